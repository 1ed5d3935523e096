"""One email in two parts, plain text and HTML, from a pair of templates (``mail/<name>.txt``
and ``mail/<name>.html``) rendered with the same context."""

from __future__ import annotations

from django.conf import settings
from django.core.mail import EmailMultiAlternatives
from django.template.loader import render_to_string


def two_part(subject: str, name: str, context: dict, to: str, **kwargs) -> EmailMultiAlternatives:
    text = render_to_string(f"mail/{name}.txt", context)
    msg = EmailMultiAlternatives(subject, text, settings.DEFAULT_FROM_EMAIL, [to], **kwargs)
    msg.attach_alternative(render_to_string(f"mail/{name}.html", context), "text/html")
    return msg
