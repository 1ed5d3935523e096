from anymail.signals import inbound
from django.apps import AppConfig

from games import events


class Config(AppConfig):
    name = "kinplay.notifications"
    label = "notifications"

    def ready(self):
        # deferred: these modules import models, which need the app registry ready (authentication
        # registers its system check; tasks holds the task services.kick publishes by name)
        from kinplay.notifications import answers, authentication, consent, receivers, tasks  # noqa: F401
        from kinplay.notifications.models import Outbox
        from kinplay.notifications.services import register_composer

        inbound.connect(receivers.inbound, dispatch_uid="kinplay-mail-moves")
        register_composer(consent.KINDS, consent.compose)  # invitations and vacations
        register_composer((Outbox.MOVE_ACCEPTED, Outbox.MOVE_REFUSED), answers.compose)  # answers to replies, no reply token
        # After the clocks' (INSTALLED_APPS' order): the emails show the deadline they set.
        events.games_created.connect(receivers.games_created, dispatch_uid="notifications")
        events.game_changing.connect(receivers.game_changing, dispatch_uid="notifications")
        events.game_called_off.connect(receivers.game_called_off, dispatch_uid="notifications")
        events.seat_withdrawn.connect(receivers.seat_withdrawn, dispatch_uid="notifications")
        events.chat_posted.connect(receivers.chat_posted, dispatch_uid="notifications")

