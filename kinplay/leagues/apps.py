from django.apps import AppConfig
from django.db.models.signals import post_migrate


def _ensure_triggers(sender, using="default", **kwargs):
    # Also after a test flush, which empties the table with the triggers lifted.
    from django.db import connections

    from games import triggers

    triggers.install(connections[using])


class LeaguesConfig(AppConfig):
    name = "kinplay.leagues"
    label = "leagues"

    def ready(self):
        from kinplay.leagues import emails
        from kinplay.notifications.services import register_composer

        register_composer(emails.KINDS, emails.compose)
        post_migrate.connect(_ensure_triggers, sender=self)
