"""A read replica for reads that may lag a little: leaderboards and player pages (``may_lag`` on
their views) and the events of a game over for longer than the lag allowed (``reads_may_lag``). With ``REPLICA_DATABASE_URL`` set (a PostgreSQL streaming replica), their reads go
there while the replica keeps up, and to the primary when it lags more than
``REPLICA_MAX_LAG`` seconds, is paused or cannot be reached. Everything else (writes, sign-in,
tokens, games being played) reads and writes the primary, as without a replica.

How far behind it is: every check reads the primary's WAL position and the replica's replayed
one. The replica is as fresh as the newest primary position it has replayed, taken at a
check's time: so the lag is known to within the time between checks (at most one a second per
process), also while the primary is idle (nothing to replay: no lag) or the replica has lost
its primary (the positions part: it lags from then on).
"""

from __future__ import annotations

import contextlib
import functools
import logging
import threading
import time
from collections import deque
from contextvars import ContextVar
from datetime import timedelta

from django.conf import settings
from django.db import DatabaseError, connections
from django.utils import timezone

log = logging.getLogger(__name__)

REPLICA = "replica"
CHECK_EVERY = 1.0  # seconds between two checks of the replica's lag, per process

_may_lag: ContextVar[bool] = ContextVar("may_lag", default=False)


def may_lag(view):
    """The view's reads (GET and HEAD) may come from the replica."""
    @functools.wraps(view)
    def wrapped(request, *args, **kwargs):
        with reads_may_lag(request.method in ("GET", "HEAD")):
            return view(request, *args, **kwargs)

    return wrapped


@contextlib.contextmanager
def reads_may_lag(allowed: bool = True):
    """Within it, reads may come from the replica (``allowed``: for a caller that decides late)."""
    token = _may_lag.set(allowed or _may_lag.get())
    try:
        yield
    finally:
        _may_lag.reset(token)


def settled(updated_at) -> bool:
    """Whether a row last written at ``updated_at`` is on a replica the router would read."""
    return updated_at < timezone.now() - timedelta(seconds=settings.REPLICA_MAX_LAG + CHECK_EVERY)


class ReplicaRouter:
    """settings.DATABASE_ROUTERS when a replica is configured."""

    def db_for_read(self, model, **hints):
        return REPLICA if _may_lag.get() and LAG.fresh() else None

    def db_for_write(self, model, **hints):
        return "default"

    def allow_relation(self, obj1, obj2, **hints):
        return True  # one database, two copies of it

    def allow_migrate(self, db, app_label, model_name=None, **hints):
        return db == "default"


def _lsn(text: str | None) -> int | None:
    """'16/B374D848' as a number (a WAL position)."""
    if not text:
        return None
    high, low = text.split("/")
    return (int(high, 16) << 32) | int(low, 16)


class Lag:
    """The replica's lag as this process last measured it (checked at most once a second)."""

    def __init__(self):
        self._lock = threading.Lock()
        self._checked = 0.0
        self._fresh = False
        self._seen: deque[tuple[float, int]] = deque()  # (when, the primary's position then), oldest first

    def fresh(self) -> bool:
        now = time.monotonic()
        with self._lock:
            if now - self._checked >= CHECK_EVERY:
                self._checked = now
                self._fresh = self._measure(now) <= settings.REPLICA_MAX_LAG
            return self._fresh

    def _measure(self, now: float) -> float:
        try:
            primary = _lsn(_one("default", "SELECT pg_current_wal_lsn()::text"))
            replayed = _lsn(_one(REPLICA, "SELECT pg_last_wal_replay_lsn()::text"))
        except DatabaseError as exc:
            log.warning("the read replica cannot be checked (%s): reading the primary", exc)
            return float("inf")
        if primary is None or replayed is None:
            return float("inf")  # not a primary and a replica
        self._seen.append((now, primary))
        horizon = now - 2 * settings.REPLICA_MAX_LAG - CHECK_EVERY
        while len(self._seen) > 1 and self._seen[0][0] < horizon:
            self._seen.popleft()
        caught_up = [when for when, position in self._seen if position <= replayed]
        return now - max(caught_up) if caught_up else now - self._seen[0][0] + CHECK_EVERY


def _one(alias: str, sql: str):
    with connections[alias].cursor() as cursor:
        cursor.execute(sql)
        return cursor.fetchone()[0]


LAG = Lag()
