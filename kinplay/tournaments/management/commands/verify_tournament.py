from django.core.management.base import BaseCommand, CommandError

from kinplay.tournaments.models import Tournament
from kinplay.tournaments.projections import verify


class Command(BaseCommand):
    help = ("Replay a tournament's stream, compare it with its standings and tables, and (once the "
            "seed is revealed) redraw the seeding and every round's pairings from the seed.")

    def add_arguments(self, parser):
        parser.add_argument("id", type=int)

    def handle(self, id, **opts):
        t = Tournament.objects.filter(pk=id).first()
        if t is None:
            raise CommandError(f"There is no tournament {id}.")
        problems = verify(t)
        if problems:
            raise CommandError("; ".join(problems))
        drawn = " and every draw redrawn from the revealed seed" if t.state.get("seed") else " (the seed is still secret)"
        self.stdout.write(self.style.SUCCESS(f"Tournament {id}: {t.version} events replayed, standings agree{drawn}."))
