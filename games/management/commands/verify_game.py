from django.core.management.base import BaseCommand, CommandError

from games.models import Game
from games.verify import first_mismatch


class Command(BaseCommand):
    help = "Replay a game's stream and check it equals the stored state; for a finished game re-derive every random outcome from the revealed seed."

    def add_arguments(self, parser):
        parser.add_argument("game_id", type=int)

    def handle(self, game_id, **opts):
        game = Game.objects.filter(pk=game_id).first()
        if game is None:
            raise CommandError(f"There is no game {game_id}.")
        problem = first_mismatch(game)
        if problem:
            raise CommandError(f"MISMATCH in game {game_id}: {problem}")
        extra = " (every roll and shuffle re-derived from the revealed seed)" if game.status == Game.FINISHED else ""
        self.stdout.write(f"OK: game {game_id}, {game.version} events{extra}")
