"""Applying the deadlines that fall due (setting them after each change: kinplay.clocks.scheduling)."""

from __future__ import annotations

import logging

from django.db import DatabaseError, transaction
from django.utils import timezone

from games import services
from games.models import Game
from games.registry import get
from games.store import load_state
from kinplay.clocks.models import Deadline, Heartbeat
from kinplay.notifications.services import remind

log = logging.getLogger("kinplay.clocks")


def sweep(now=None, limit=200) -> int:
    """Apply every due deadline once; returns how many were applied.

    Each deadline is claimed and applied in one transaction: a worker killed in between
    leaves it pending (the next sweep applies it), and one that fails is pushed forward
    with backoff instead of being retried on every sweep or dropped.
    """
    now = now or timezone.now()
    fired = 0
    try:
        due = list(Deadline.due(now).order_by("due_at").values_list("pk", "game_id")[:limit])
    except DatabaseError:
        log.exception("could not read the due deadlines")
        return 0
    for pk, game_id in due:
        fired += apply_due(pk, game_id, now)
    try:
        Heartbeat.beat("sweep")
    except DatabaseError:
        log.exception("could not record the sweep")
    return fired


def apply_due(pk, game_id, now) -> bool:
    """Claim and apply one deadline in one transaction; True if it was applied here."""
    d = None
    try:
        with transaction.atomic():
            # Writers to one game take turns here (PostgreSQL; SQLite's IMMEDIATE transactions
            # serialise every writer): two sweeps never apply two seats' clocks against the
            # same version, so neither sees the other's move as the seat having "moved first".
            game = Game.objects.select_for_update().filter(pk=game_id).first()
            d = Deadline.objects.select_for_update(skip_locked=True).filter(pk=pk).first()
            if game is None or d is None or not d.claim(now):
                return False  # another sweeper, or a move, got there first
            d.finish(_apply(d, game))
        return True
    except Exception as exc:  # one broken game must not stop the sweep for the others
        if d is None:
            log.exception("deadline %s could not be claimed", pk)
            return False
        try:
            with transaction.atomic():
                delay = d.postpone(f"{type(exc).__name__}: {exc}", now)
        except DatabaseError:
            log.exception("deadline %s failed and could not be postponed", pk)
            return False
        level = logging.ERROR if d.attempts + 1 >= 5 else logging.WARNING
        log.log(level, "deadline %s (game %s) failed %s time(s), next try in %ss",
                pk, d.game_id, d.attempts + 1, int(delay.total_seconds()), exc_info=True)
        return False


def _apply(d, game) -> str:

    if d.kind == Deadline.MOVE:
        return services.timeout(d.game_id, d.seat)
    if d.kind == Deadline.REMINDER:
        return remind(d.game_id, d.seat)
    if d.kind == Deadline.INVITATION:
        return services.expire_invitation(d.game_id, d.seat)
    if d.kind == Deadline.BOTS:
        return services.play_bots(d.game_id)
    timer = next((t for t in get(game.kind).rules.timers(load_state(game)) if t["key"] == d.key), None)
    return services.fire_timer(d.game_id, timer["action"]) if timer else "gone"
