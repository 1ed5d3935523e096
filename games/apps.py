from django.apps import AppConfig
from django.db.models.signals import post_migrate


def _ensure_triggers(sender, using="default", **kwargs):
    # Also after a test flush, which empties the table with the triggers lifted.
    from django.db import connections

    from games import triggers

    triggers.install(connections[using])


class GamesConfig(AppConfig):
    name = "games"

    def ready(self):
        # A malformed rules package or data file must fail at start-up, naming the problem.
        from games.registry import kinds

        kinds()
        post_migrate.connect(_ensure_triggers, sender=self)
