"""Who is at the table: when each player last had a game's page (or the lobby) open, and the
last version of the game that page showed them (``Look``).

The game page, its poll, the lobby's poll and the API's game read call ``looked``. A poll
answered 304 every 15 seconds must stay cheap, so a look is written at most every
``LOOK_EVERY`` seconds per player and game unless the version it showed changed (a cache key
remembers the last write). Turn emails, reminders and digests wait while the player is at the
table (``digests.hold_reason``) and are dropped once they look (``settle``); the page and the
emails mark what changed since the version of the last look (``seen_version``).
"""

from __future__ import annotations

from contextlib import suppress
from datetime import datetime, timedelta

from django.core.cache import cache
from django.db import IntegrityError, transaction
from django.db.models import Q
from django.db.models.functions import Greatest
from django.utils import timezone

from kinplay.notifications.models import Look, Outbox

LOOK_EVERY = 30  # seconds between two writes of an unchanged look
PRESENT = timedelta(seconds=75)  # a page that wrote a look this recently is open (it polls every 15 s)
HOLD = timedelta(minutes=5)  # how long a held turn email waits for the player to look or act
AT_TABLE = "at the table"  # the hold reason (Outbox.error "held: at the table")


def looked(user, game_id: int | None = None, version: int | None = None) -> None:
    """``user`` has the game's page open (``version``: the version it shows; None for a poll, which
    shows nothing new) or, with no game, the lobby."""
    if not user.is_authenticated:
        return
    key = f"look:{user.pk}:{game_id or 0}:{'-' if version is None else version}"
    with suppress(Exception):  # a cache that is down costs a write, never the page
        if cache.get(key):
            return
    now = timezone.now()
    fields: dict = {"seen_at": now}
    if version is not None:
        fields["version"] = Greatest("version", version)
    which = Q(game_id=game_id) if game_id is not None else Q(game__isnull=True)
    if not Look.objects.filter(which, user_id=user.pk).update(**fields):
        try:
            with transaction.atomic():
                Look.objects.create(user_id=user.pk, game_id=game_id, seen_at=now, version=version or 0)
        except IntegrityError:  # another request of theirs wrote it first
            pass
    with suppress(Exception):
        cache.set(key, 1, LOOK_EVERY)


def seen_version(user, game_id: int) -> int:
    """The last version of the game its page showed ``user`` (0: never)."""
    if not user.is_authenticated:
        return 0
    return Look.objects.filter(user_id=user.pk, game_id=game_id).values_list("version", flat=True).first() or 0


def _games_of(row: Outbox) -> list[int]:
    return [row.game_id] if row.game_id else [int(pk) for pk in row.games]


def _looks(row: Outbox, since: datetime):
    """The row's player's looks since ``since`` at the lobby or at a game the row is about."""
    return Look.objects.filter(user_id=row.user_id, seen_at__gte=since).filter(
        Q(game__isnull=True) | Q(game_id__in=_games_of(row)))


def at_table(row: Outbox, now: datetime) -> bool:
    """Does the player have the lobby or a page of the row's game(s) open?"""
    return _looks(row, now - PRESENT).exists()


def settle(row: Outbox, now: datetime) -> str:
    """A row held while its player was at the table: "dropped" once they looked after it was
    written (they saw the game; a move they made voids it too: services.passed), "released" to the
    relay when ``HOLD`` has passed without a look, else "held"."""
    if _looks(row, max(row.created_at, row.held_at or row.created_at)).exists():
        Outbox.objects.filter(pk=row.pk).update(sent_at=now, error="not sent: seen on the site")
        return "dropped"
    if row.held_at is not None and now - row.held_at >= HOLD:
        Outbox.objects.filter(pk=row.pk).update(held_at=None, error="")
        return "released"
    return "held"
