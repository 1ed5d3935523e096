"""Here, in the app that uses all the others, because it rebuilds the read models of games,
tournaments, leagues and ladders alike (the game layer imports none of the apps above it)."""

from django.core.management.base import BaseCommand

from games.models import Game
from games.projections import rebuild
from kinplay.ladders.models import Ladder
from kinplay.ladders.projections import rebuild as rebuild_ladder
from kinplay.leagues.models import League
from kinplay.leagues.projections import rebuild as rebuild_league
from kinplay.tournaments.models import Tournament
from kinplay.tournaments.projections import rebuild as rebuild_tournament


class Command(BaseCommand):
    help = "Rebuild every read model (game rows, snapshots, tournaments, leagues, ladders) from the event streams."

    def handle(self, **opts):
        games = Game.objects.order_by("pk")
        total = games.count()
        for i, game in enumerate(games.iterator(), start=1):
            rebuild(game)
            if i % 50 == 0 or i == total:
                self.stdout.write(f"rebuilt {i}/{total} games")
        self.stdout.write(self.style.SUCCESS(f"Done: {total} games rebuilt from their streams."))
        tournaments = Tournament.objects.order_by("pk")
        for t in tournaments.iterator():
            rebuild_tournament(t)
        self.stdout.write(self.style.SUCCESS(f"Done: {tournaments.count()} tournaments rebuilt from their streams."))
        leagues = League.objects.order_by("pk")
        for league in leagues.iterator():
            rebuild_league(league)
        self.stdout.write(self.style.SUCCESS(f"Done: {leagues.count()} leagues rebuilt from their streams."))
        ladders = Ladder.objects.order_by("pk")
        for ladder in ladders.iterator():
            rebuild_ladder(ladder)
        self.stdout.write(self.style.SUCCESS(f"Done: {ladders.count()} ladders rebuilt from their streams."))
