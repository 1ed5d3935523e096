from django.apps import AppConfig
from django.db import connections
from django.db.models.signals import post_migrate

from games import events, triggers


def _ensure_triggers(sender, using="default", **kwargs):
    # Also after a test flush, which empties the table with the triggers lifted.
    triggers.install(connections[using])


class LaddersConfig(AppConfig):
    name = "kinplay.ladders"
    label = "ladders"

    def ready(self):
        # deferred: these modules import models, which need the app registry ready
        from kinplay.ladders import emails, receivers, tasks  # noqa: F401  (tasks: services._kick publishes one by name)
        from kinplay.notifications.consent import register_origin
        from kinplay.notifications.services import register_composer

        # A challenge is a game with an invitation: its answer, lapse, cancel and end reach the ladder here.
        events.invitation_answered.connect(receivers.invitation_answered, dispatch_uid="ladders")
        events.seat_withdrawn.connect(receivers.seat_withdrawn, dispatch_uid="ladders")
        events.game_called_off.connect(receivers.game_called_off, dispatch_uid="ladders")
        events.game_finished.connect(receivers.game_finished, dispatch_uid="ladders")
        register_composer(emails.KINDS, emails.compose)
        register_origin(emails.invitation_origin)
        post_migrate.connect(_ensure_triggers, sender=self)
