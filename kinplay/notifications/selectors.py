"""Reads about a player's email."""

from __future__ import annotations

from datetime import datetime

from django.utils import timezone

from kinplay.accounts.models import Profile
from kinplay.notifications.models import Bounce, Outbox


def delivery_problem(user) -> dict | None:
    """Why mail does not reach the player: their address bounced for good (``bounced``), or the
    last email we gave up on, unless one reached the player since; None when it does."""
    if Bounce.failing(user.email):
        last = Bounce.objects.filter(address=user.email.strip().lower(), hard=True).order_by("-received_at").first()
        assert last is not None
        return {"address": user.email, "at": last.received_at, "error": "", "bounced": True}
    # (an address still to confirm is not the player's address yet: its failures are not shown)
    failed = (Outbox.emails().filter(user=user, failed_at__isnull=False).exclude(kind=Outbox.ADDRESS)
              .order_by("-failed_at").first())
    if failed is None or Outbox.emails().filter(user=user, sent_at__gt=failed.failed_at).exists():
        return None
    return {"address": user.email, "at": failed.failed_at, "error": failed.error}


def quiet_hold(user, now: datetime | None = None) -> dict | None:
    """Inside the player's quiet hours: until when (their local time, "07:00") and how many of
    their emails wait for it; None outside them."""
    now = now or timezone.now()
    profile = Profile.of(user)
    span = profile.quiet_span(now)
    if span is None:
        return None
    held = Outbox.held().filter(user=user, error="held: quiet hours").count()
    return {"until": span[1].astimezone(profile.tz).strftime("%H:%M"), "held": held, "time_zone": profile.tz.key}
