"""Quiet hours and digests: when a player's email waits, and the one email it waits for.

The relay asks ``hold_reason`` before it sends a row; a held row stays in the outbox
(``held_at``) until ``held.release_held`` (Celery beat, every minute) either lets it go as it is
(a game-over email after quiet hours; a reminder held by quiet hours inside the digest interval;
a turn email held while the player was at the table, which ``presence.settle`` drops once they look)
or folds every held turn email of that player into one message: the turn email of the only game
waiting for them, or a digest of all of them.
"""

from __future__ import annotations

from datetime import datetime

from django.db.models import Max

from kinplay.accounts.models import Profile
from kinplay.notifications import presence
from kinplay.notifications.models import Outbox

# Answers to the player's own email move: they just wrote to us, they are awake; and the account
# emails (an address to confirm, a password reset), which someone waits for at the screen.
NEVER_HELD = (Outbox.MOVE_ACCEPTED, Outbox.MOVE_REFUSED, Outbox.ADDRESS, Outbox.PASSWORD_RESET)


def hold_reason(row: Outbox, profile: Profile, now: datetime) -> str | None:
    if row.kind in NEVER_HELD:
        return None
    if profile.is_quiet(now) and not warns_in_time(row, profile, now):
        return "quiet hours"  # the player's own "not at night", but for a move due before the morning
    if row.kind in Outbox.TURN_MAIL and not profile.email_on_site and presence.at_table(row, now):
        return presence.AT_TABLE  # they see it on the page: presence.settle drops it or lets it go
    if row.kind in Outbox.TURN_MAIL and spaced(row, next_digest(row.user_id, profile, now)):
        return "digest interval"
    return None


def warns_in_time(row: Outbox, profile: Profile, now: datetime) -> bool:
    """A reminder whose move falls due before the quiet hours it came in end: held, it would come
    too late to say anything (kinplay.clocks.scheduling.before_quiet sets such a reminder before
    they start, when it can)."""
    if row.kind != Outbox.REMINDER or row.game is None or row.game.deadline is None:
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
    deadline = row.game.deadline if row.game is not None else None
    return deadline is None or deadline > digest_at


def next_digest(user_id, profile: Profile, now: datetime) -> datetime | None:
    """When the player's interval lets their next turn email go, if not now: a turn email
    already went out within it."""
    interval = profile.digest_interval
    if interval is None:
        return None
    last = Outbox.emails().filter(
        user_id=user_id, kind__in=Outbox.TURN_MAIL, held_at__isnull=True, sent_at__gte=now - interval
    ).exclude(error__startswith="not sent").aggregate(last=Max("sent_at"))["last"]  # services.passed: done, unsent
    return last + interval if last else None
