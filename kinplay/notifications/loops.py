"""Mail loops: never answer a machine, and never refuse anyone too often.

Inbound auto-replies (RFC 3834 Auto-Submitted), bounces (an empty Return-Path, delivery
reports) and list or bulk mail (List-Id, Precedence) are dropped without an answer; our own
answers say ``Auto-Submitted: auto-replied`` and carry no reply token, so a well-behaved
responder will not answer them and one that does reaches no game.
"""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.utils import timezone

from kinplay.notifications import headers
from kinplay.notifications.models import Outbox


def automatic(msg) -> str | None:
    """Why this message was written by a machine, or None."""
    auto = (headers.first(msg, "Auto-Submitted") or "").lower()
    if auto and auto.split(";")[0].strip() != "no":
        return f"Auto-Submitted: {auto[:50]}"
    precedence = (headers.first(msg, "Precedence") or "").lower()
    if precedence in ("bulk", "list", "junk", "auto_reply"):
        return f"Precedence: {precedence}"
    if headers.values(msg, "List-Id") or headers.values(msg, "List-Unsubscribe"):
        return "mailing list"
    if any(v in ("<>", "") for v in headers.values(msg, "Return-Path")):
        return "bounce (empty Return-Path)"
    if (headers.first(msg, "Content-Type") or "").lower().startswith("multipart/report"):
        return "delivery or read report"
    if headers.values(msg, "X-Autoreply") or headers.values(msg, "X-Autorespond"):
        return "auto-responder"
    return None


def may_answer(user, *, applied: bool) -> bool:
    """Whether to answer a reply from ``user``. One that ``applied`` something (a move, a window or
    standing answer, table talk) is always answered: only a person, or their own program, writes a
    legal move, and the games' pace bounds those, so a player moving fast against bots gets every
    answer. A machine's text (an "I am away" that ignores Auto-Submitted) applies nothing: at most
    MAIL_ANSWERS_PER_HOUR answers that refused something go to one address an hour, which stops a
    loop with it."""
    if applied:
        return True
    since = timezone.now() - timedelta(hours=1)
    refused = Outbox.objects.filter(user=user, kind=Outbox.MOVE_REFUSED, created_at__gte=since).count()
    return refused < settings.MAIL_ANSWERS_PER_HOUR
