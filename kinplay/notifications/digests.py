"""Quiet hours and digests: when a player's email waits, and the one email it waits for.

The relay asks ``hold_reason`` before it sends a row; a held row stays in the outbox
(``held_at``) until ``release_held`` (Celery beat, every minute) either lets it go as it is
(a game-over email after quiet hours) or folds every held turn email of that player into one
message: the turn email of the only game waiting for them, or a digest of all of them.
"""

from __future__ import annotations

from datetime import datetime

from django.db import transaction
from django.utils import timezone

from kinplay.accounts.models import Profile
from kinplay.notifications.models import Outbox

# Answers to the player's own email move: they just wrote to us, they are awake; and the account
# emails (an address to confirm, a password reset), which someone waits for at the screen.
NEVER_HELD = (Outbox.MOVE_ACCEPTED, Outbox.MOVE_REFUSED, Outbox.ADDRESS, Outbox.PASSWORD_RESET)


def hold_reason(row: Outbox, profile: Profile, now: datetime) -> str | None:
    if row.kind in NEVER_HELD:
        return None
    if profile.is_quiet(now):
        return "quiet hours"
    if row.kind in Outbox.TURN_MAIL and too_soon(row.user_id, profile, now):
        return "digest interval"
    return None


def too_soon(user_id, profile: Profile, now: datetime) -> bool:
    """A turn email already went out within the player's chosen interval."""
    interval = profile.digest_interval
    if interval is None:
        return False
    return Outbox.objects.filter(
        user_id=user_id, kind__in=Outbox.TURN_MAIL, held_at__isnull=True, sent_at__gte=now - interval
    ).exists()


def release_held(now: datetime | None = None) -> int:
    """Let held mail go where its player's quiet hours and interval allow; returns rows written."""
    now = now or timezone.now()
    written = 0
    for user_id in Outbox.held().values_list("user_id", flat=True).distinct().order_by("user_id"):
        written += _release_for(user_id, now)
    if written:
        from kinplay.notifications.services import kick

        transaction.on_commit(kick)
    return written


@transaction.atomic
def _release_for(user_id, now: datetime) -> int:
    from games.selectors import games_of

    held = list(Outbox.held().filter(user_id=user_id).select_related("user").select_for_update().order_by("pk"))
    if not held:
        return 0
    user = held[0].user
    profile = Profile.of(user)
    if profile.is_quiet(now):
        return 0
    others = [r.pk for r in held if r.kind not in Outbox.TURN_MAIL]
    Outbox.objects.filter(pk__in=others).update(held_at=None)  # as they were, now that it is morning
    turn_rows = [r.pk for r in held if r.kind in Outbox.TURN_MAIL]
    if not turn_rows or too_soon(user_id, profile, now):
        return len(others)
    waiting = games_of(user, my_turn=True) if profile.email_turns and user.email else []
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
