"""Held mail let go (Celery beat, every minute): as it is, or folded into one turn email or a
digest, as the player's quiet hours and digest interval say (kinplay.notifications.digests)."""

from __future__ import annotations

from datetime import datetime

from django.db import transaction
from django.utils import timezone

from games.selectors import waiting_games
from kinplay.accounts.models import Profile
from kinplay.notifications import presence
from kinplay.notifications.digests import next_digest, spaced
from kinplay.notifications.models import Outbox
from kinplay.notifications.services import kick


def release_held(now: datetime | None = None) -> int:
    """Let held mail go where its player's quiet hours and interval allow; returns rows written."""
    now = now or timezone.now()
    written = 0
    for user_id in Outbox.held().values_list("user_id", flat=True).distinct().order_by("user_id"):
        written += _release_for(user_id, now)
    if written:
        transaction.on_commit(kick)
    return written


@transaction.atomic
def _release_for(user_id, now: datetime) -> int:
    held = list(Outbox.held().filter(user_id=user_id).select_related("user").select_for_update().order_by("pk"))
    at_table = [r for r in held if r.error == f"held: {presence.AT_TABLE}"]
    released = sum(presence.settle(r, now) == "released" for r in at_table)  # back to the relay, which asks again
    return released + _fold([r for r in held if r not in at_table], now)


def _fold(held: list[Outbox], now: datetime) -> int:
    """Quiet hours over, digest interval over: the held rows go as they are or as one email."""
    if not held:
        return 0
    user = held[0].user
    profile = Profile.of(user)
    if profile.is_quiet(now):
        return 0
    others = [r.pk for r in held if r.kind not in Outbox.TURN_MAIL]
    Outbox.objects.filter(pk__in=others).update(held_at=None)  # as they were, now that it is morning
    turn_rows = [r.pk for r in held if r.kind in Outbox.TURN_MAIL]
    if not turn_rows:
        return len(others)
    digest_at = next_digest(user.pk, profile, now)
    if digest_at is not None:  # inside the interval: only what cannot wait for the digest goes (a reminder)
        due = [r.pk for r in held if r.kind in Outbox.TURN_MAIL and not spaced(r, digest_at)]
        Outbox.objects.filter(pk__in=due).update(held_at=None)
        return len(others) + len(due)
    waiting = waiting_games(user) if profile.email_turns and user.email else []
    if not waiting:
        # Nothing waits any more (they played on the page, or a bot did): nothing to say.
        Outbox.objects.filter(pk__in=turn_rows).update(sent_at=now, error="not sent: no game was waiting any more")
        return len(others)
    if len(waiting) == 1:
        game = waiting[0]
        message = Outbox.objects.create(kind=Outbox.YOUR_TURN, game=game, user=user, version=game.version)
    else:
        message = Outbox.objects.create(kind=Outbox.DIGEST, game=None, user=user, version=0,
                                        games={str(g.pk): g.version for g in waiting})
    Outbox.objects.filter(pk__in=turn_rows).update(sent_at=now, folded_into=message)
    return len(others) + 1
