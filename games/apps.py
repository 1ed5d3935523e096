from django.apps import AppConfig
from django.db import connections
from django.db.models.signals import post_migrate

from games import triggers
from games.registry import kinds


def _ensure_triggers(sender, using="default", **kwargs):
    # Also after a test flush, which empties the table with the triggers lifted.
    triggers.install(connections[using])


class GamesConfig(AppConfig):
    name = "games"

    def ready(self):
        # A malformed rules package or data file must fail at start-up, naming the problem.
        kinds()
        post_migrate.connect(_ensure_triggers, sender=self)
