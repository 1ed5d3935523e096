"""Reads about a player's email."""

from __future__ import annotations

from kinplay.notifications.models import Outbox


def delivery_problem(user) -> dict | None:
    """The last email we gave up on, unless one reached the player since (None then)."""
    # (an address still to confirm is not the player's address yet: its failures are not shown)
    failed = (Outbox.objects.filter(user=user, failed_at__isnull=False).exclude(kind=Outbox.ADDRESS)
              .order_by("-failed_at").first())
    if failed is None or Outbox.objects.filter(user=user, sent_at__gt=failed.failed_at).exists():
        return None
    return {"address": user.email, "at": failed.failed_at, "error": failed.error}
