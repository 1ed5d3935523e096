from django.apps import AppConfig


class Config(AppConfig):
    name = "kinplay.notifications"
    label = "notifications"

    def ready(self):
        from anymail.signals import inbound

        inbound.connect(_inbound, dispatch_uid="kinplay-mail-moves")


def _inbound(sender, event, esp_name, **kwargs):
    """Moves by email through any provider's inbound webhook (django-anymail)."""
    from kinplay.notifications.replies import receive

    message = event.message
    recipients = [a.addr_spec for a in (message.to or []) + (message.cc or [])]
    envelope = getattr(message, "envelope_recipient", None)
    if envelope:
        recipients.append(envelope)
    receive(sender=message.from_email.addr_spec if message.from_email else "", recipients=recipients, text=message.text or "")
