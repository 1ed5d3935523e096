from django.apps import AppConfig
from django.db import connections
from django.db.models.signals import post_migrate

from games import events, triggers


def _ensure_triggers(sender, using="default", **kwargs):
    # Also after a test flush, which empties the table with the triggers lifted.
    triggers.install(connections[using])


class TournamentsConfig(AppConfig):
    name = "kinplay.tournaments"
    label = "tournaments"

    def ready(self):
        # deferred: these modules import models, which need the app registry ready
        from kinplay.notifications import push
        from kinplay.notifications.services import register_composer
        from kinplay.tournaments import emails, receivers, tasks  # noqa: F401  (tasks: services._kick publishes one by name)

        # After ratings' (INSTALLED_APPS' order: games/events.py).
        events.game_finished.connect(receivers.game_finished, dispatch_uid="tournaments")
        register_composer(emails.KINDS, emails.compose)
        push.pushed_with(push.ORGANISED, emails.KINDS)
        post_migrate.connect(_ensure_triggers, sender=self)
