from datetime import timedelta

from django.core.management.base import BaseCommand
from django.utils import timezone

from kinplay.notifications.models import Outbox


class Command(BaseCommand):
    help = ("Delete outbox rows sent more than --days ago (rows given up on are kept: the "
            "player's settings page shows the last one until an email reaches them again).")

    def add_arguments(self, parser):
        parser.add_argument("--days", type=int, default=30)

    def handle(self, days, **opts):
        n, _ = Outbox.objects.filter(sent_at__lt=timezone.now() - timedelta(days=days)).delete()
        self.stdout.write(f"Deleted {n} sent email(s) older than {days} day(s).")
