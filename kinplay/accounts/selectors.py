"""Reads about accounts."""

from __future__ import annotations

from datetime import timedelta

from django.utils import timezone

from kinplay.accounts.emails import EMAIL_CHANGE_DAYS
from kinplay.accounts.models import Profile, email_key
from kinplay.notifications.models import Outbox


def pending_address(user) -> dict | None:
    """The address the player asked to change to and has not confirmed yet, from the newest
    ``address`` email whose link still works (kinplay.accounts.emails); None when there is none.
    ``sent_at`` is None while the email waits to go, ``failed`` once the relay gave up."""
    cancelled = Profile.of(user).address_cancelled_at
    rows = Outbox.objects.filter(user=user, kind=Outbox.ADDRESS,
                                 created_at__gt=timezone.now() - timedelta(days=EMAIL_CHANGE_DAYS))
    if cancelled is not None:
        rows = rows.filter(created_at__gt=cancelled)
    row = rows.order_by("-created_at", "-pk").first()
    if row is None or email_key(row.detail) == email_key(user.email):
        return None  # confirmed already (or asked for the address it has)
    return {"address": row.detail, "sent_at": row.sent_at, "failed": row.failed_at is not None}
