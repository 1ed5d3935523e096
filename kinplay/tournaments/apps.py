from django.apps import AppConfig
from django.db.models.signals import post_migrate


def _ensure_triggers(sender, using="default", **kwargs):
    # Also after a test flush, which empties the table with the triggers lifted.
    from django.db import connections

    from games import triggers

    triggers.install(connections[using])


class TournamentsConfig(AppConfig):
    name = "kinplay.tournaments"
    label = "tournaments"

    def ready(self):
        from games import services
        from kinplay.notifications.services import register_composer
        from kinplay.tournaments import emails
        from kinplay.tournaments.services import game_finished

        if game_finished not in services.ON_GAME_FINISHED:
            services.ON_GAME_FINISHED.append(game_finished)
        register_composer(emails.KINDS, emails.compose)
        post_migrate.connect(_ensure_triggers, sender=self)
