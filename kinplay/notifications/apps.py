from django.apps import AppConfig


class Config(AppConfig):
    name = "kinplay.notifications"
    label = "notifications"

    def ready(self):
        # deferred: the receivers and the system check import models, which need the app registry ready
        from anymail.signals import inbound

        from games import events

        # (authentication registers its system check; tasks, the task services.kick publishes by name)
        from kinplay.notifications import answers, authentication, consent, receivers, tasks  # noqa: F401
        from kinplay.notifications.models import Outbox
        from kinplay.notifications.services import register_composer

        inbound.connect(_inbound, dispatch_uid="kinplay-mail-moves")
        register_composer(consent.KINDS, consent.compose)  # invitations and vacations
        register_composer((Outbox.MOVE_ACCEPTED, Outbox.MOVE_REFUSED), answers.compose)  # answers to replies, no reply token
        # After the clocks' (INSTALLED_APPS' order): the emails show the deadline they set.
        events.games_created.connect(receivers.games_created, dispatch_uid="notifications")
        events.game_changing.connect(receivers.game_changing, dispatch_uid="notifications")
        events.game_called_off.connect(receivers.game_called_off, dispatch_uid="notifications")
        events.seat_withdrawn.connect(receivers.seat_withdrawn, dispatch_uid="notifications")


def _inbound(sender, event, esp_name, **kwargs):
    """Moves by email through a provider's inbound webhook (django-anymail): the same checks as
    a piped message, with the provider's verdict on the sender where anymail passes one on."""
    from kinplay.notifications.authentication import provider_verdict
    from kinplay.notifications.replies import receive_message

    message = event.message
    envelope = [message.envelope_recipient] if getattr(message, "envelope_recipient", None) else []
    try:  # for MAIL_VERIFY_DKIM; a re-serialised message may fail DKIM, never pass it falsely
        raw = message.as_bytes()
    except Exception:  # noqa: BLE001  the stdlib cannot always write a hostile message back out
        raw = None
    receive_message(message, raw=raw, envelope=envelope, provider=provider_verdict(esp_name, event))
