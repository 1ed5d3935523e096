"""Quiet hours and digests: when a player's email waits, and the one email it waits for.

The relay asks ``hold_reason`` before it sends a row; a held row stays in the outbox
(``held_at``) until ``release_held`` (Celery beat, every minute) either lets it go as it is
(a game-over email after quiet hours; a reminder held by quiet hours inside the digest interval)
or folds every held turn email of that player into one message: the turn email of the only game
waiting for them, or a digest of all of them.
"""

from __future__ import annotations

from datetime import datetime

from django.db import transaction
from django.db.models import Max
from django.utils import timezone

from kinplay.accounts.models import Profile
from kinplay.notifications.models import Outbox

# Answers to the player's own email move: they just wrote to us, they are awake; and the account
# emails (an address to confirm, a password reset), which someone waits for at the screen.
NEVER_HELD = (Outbox.MOVE_ACCEPTED, Outbox.MOVE_REFUSED, Outbox.ADDRESS, Outbox.PASSWORD_RESET)


def hold_reason(row: Outbox, profile: Profile, now: datetime) -> str | None:
    if row.kind in NEVER_HELD:
        return None
    if profile.is_quiet(now) and not warns_in_time(row, profile, now):
        return "quiet hours"  # the player's own "not at night", but for a move due before the morning
    if row.kind in Outbox.TURN_MAIL and spaced(row, next_digest(row.user_id, profile, now)):
        return "digest interval"
    return None


def warns_in_time(row: Outbox, profile: Profile, now: datetime) -> bool:
    """A reminder whose move falls due before the quiet hours it came in end: held, it would come
    too late to say anything (kinplay.clocks.scheduling.before_quiet sets such a reminder before
    they start, when it can)."""
    if row.kind != Outbox.REMINDER or row.game_id is None or row.game.deadline is None:
        return False
    quiet = profile.quiet_span(now)
    return quiet is not None and row.game.deadline <= quiet[1]


def spaced(row: Outbox, digest_at: datetime | None) -> bool:
    """Does the player's digest interval hold this row until ``digest_at`` (``next_digest``)?

    A digest player asked for fewer emails, not for missed moves: a turn email (one that gives the
    turn straight back after their move by email too) waits for the digest only when its move is
    due after the digest leaves, and a reminder never waits: it is sent because the move is due
    soon (at most a day ahead: kinplay.clocks.scheduling)."""
    if digest_at is None or row.kind == Outbox.REMINDER:
        return False
    deadline = row.game.deadline if row.game_id else None
    return deadline is None or deadline > digest_at


def next_digest(user_id, profile: Profile, now: datetime) -> datetime | None:
    """When the player's interval lets their next turn email go, if not now: a turn email
    already went out within it."""
    interval = profile.digest_interval
    if interval is None:
        return None
    last = Outbox.objects.filter(
        user_id=user_id, kind__in=Outbox.TURN_MAIL, held_at__isnull=True, sent_at__gte=now - interval
    ).exclude(error__startswith="not sent").aggregate(last=Max("sent_at"))["last"]  # services.passed: done, unsent
    return last + interval if last else None


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
    if not turn_rows:
        return len(others)
    digest_at = next_digest(user_id, profile, now)
    if digest_at is not None:  # inside the interval: only what cannot wait for the digest goes (a reminder)
        due = [r.pk for r in held if r.kind in Outbox.TURN_MAIL and not spaced(r, digest_at)]
        Outbox.objects.filter(pk__in=due).update(held_at=None)
        return len(others) + len(due)
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
