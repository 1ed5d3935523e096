from django.core.management.base import BaseCommand, CommandError

from games.models import Game
from games.verify import verify


class Command(BaseCommand):
    help = ("Replay a game's stream and check it equals the stored state; for a finished game re-derive every "
            "random outcome from the revealed seed. A game played under older rules gets notes, not a mismatch, "
            "where only the rule changes explain a difference.")

    def add_arguments(self, parser):
        parser.add_argument("game_id", type=int)

    def handle(self, game_id, **opts):
        game = Game.objects.filter(pk=game_id).first()
        if game is None:
            raise CommandError(f"There is no game {game_id}.")
        verdict = verify(game)
        for note in verdict.notes:
            self.stdout.write(f"Note: {note}")
        if verdict.problem:
            raise CommandError(f"MISMATCH in game {game_id}: {verdict.problem}")
        extra = ""
        if game.status == Game.FINISHED and verdict.proven == verdict.decided:
            extra = " (every roll and shuffle re-derived from the revealed seed)"
        elif game.status == Game.FINISHED:
            extra = (f" (re-derived from the revealed seed: {verdict.proven} of {verdict.decided} commands;"
                     " the others were decided under older rules: see the notes)")
        self.stdout.write(f"OK: game {game_id}, {game.version} events{extra}")
