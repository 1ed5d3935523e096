from django.core.management.base import BaseCommand

from kinplay.ratings.models import Rating
from kinplay.ratings.services import rebuild


class Command(BaseCommand):
    help = "Rebuild every rating from the finished games, replayed in the order they finished."

    def handle(self, **opts):
        rated = rebuild()
        players = Rating.objects.count()
        self.stdout.write(self.style.SUCCESS(f"Done: {rated} rated games replayed, {players} player ratings."))
