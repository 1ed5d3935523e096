from django.apps import AppConfig
from django.db import connections
from django.db.models.signals import post_migrate

from games import triggers


def _ensure_triggers(sender, using="default", **kwargs):
    # Also after a test flush, which empties the table with the triggers lifted.
    triggers.install(connections[using])


class LeaguesConfig(AppConfig):
    name = "kinplay.leagues"
    label = "leagues"

    def ready(self):
        # deferred: these modules import models, which need the app registry ready
        from kinplay.leagues import emails
        from kinplay.notifications import push
        from kinplay.notifications.services import register_composer

        register_composer(emails.KINDS, emails.compose)
        push.pushed_with(push.ORGANISED, emails.KINDS)
        post_migrate.connect(_ensure_triggers, sender=self)
