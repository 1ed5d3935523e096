"""Setting deadlines after each change, and applying the ones that fall due."""

from __future__ import annotations

import logging
from datetime import timedelta

from django.db import DatabaseError, transaction
from django.db.models import Q
from django.utils import timezone

from games.registry import get
from games.store import load_state
from kinplay.clocks.models import Deadline, Heartbeat
from kinplay.clocks.vacation import hold_new

log = logging.getLogger("kinplay.clocks")

REMIND_FROM = 3600  # clocks shorter than an hour get no reminder
REMIND_BEFORE_MAX = 24 * 3600


def reschedule(game, state, entries: dict, acted: set, had_timers=True):
    """Keep the deadlines of seats still waiting, replace the rest; return the earliest.

    A seat keeps its running clock while others act (a simultaneous choice), and gets a
    fresh one when it has just acted and must act again. A game that showed no deadline (its
    row, not yet updated) and ran no timer before this change (``had_timers``) has no
    pending rows to look for.
    """
    now = timezone.now()
    humans = {s.index for s in game.seats.all() if s.user_id}
    running = game.status == "active"
    timer_keys = {t["key"]: t for t in get(game.kind).rules.timers(state)} if running else {}
    # A clocked game may show no deadline while its clocks are held (vacation): look anyway.
    had_deadlines = game.deadline is not None or had_timers or bool(game.per_move)
    pending = list(Deadline.objects.filter(game=game, done_at__isnull=True)) if had_deadlines else []
    kept, stale = [], []
    for d in pending:
        if d.kind == Deadline.TIMER:
            if d.key not in timer_keys:
                stale.append(d.pk)
        elif d.seat in entries and d.seat not in acted:
            kept.append(d)
        else:
            stale.append(d.pk)
    if stale:
        Deadline.objects.filter(pk__in=stale, done_at__isnull=True).update(done_at=now, outcome="superseded")
    kept_seats = {d.seat for d in kept}
    new = []
    for seat, entry in entries.items():
        if seat in kept_seats:
            continue
        seconds = game.seconds_for(entry)
        if not seconds:
            continue
        due = now + timedelta(seconds=seconds)
        new.append(Deadline(game=game, kind=Deadline.MOVE, seat=seat, due_at=due, version=game.version))
        if seat in humans and seconds >= REMIND_FROM:  # windows too: they last days now
            before = min(REMIND_BEFORE_MAX, seconds // 4)
            new.append(Deadline(game=game, kind=Deadline.REMINDER, seat=seat, due_at=due - timedelta(seconds=before), version=game.version))
    if timer_keys:
        # A key is known while its row is pending, or once it went off (or the rules refused
        # it): a fired fuse is not lit again. A row that ended any other way does not count.
        timers = Deadline.objects.filter(game=game, kind=Deadline.TIMER, key__in=list(timer_keys))
        known = set(timers.filter(Q(done_at__isnull=True) | Q(outcome="applied") | Q(outcome__startswith="refused"))
                    .values_list("key", flat=True))
        for key, timer in timer_keys.items():
            if key not in known:
                new.append(Deadline(game=game, kind=Deadline.TIMER, key=key, due_at=now + timedelta(seconds=timer["seconds"]), version=game.version))
    if new:
        hold_new(game, new)  # a player on vacation: their clock starts held (kinplay.clocks.vacation)
        Deadline.objects.bulk_create(new)
    moves = [d.due_at for d in kept + new if d.kind == Deadline.MOVE and d.paused_left is None]
    return min(moves) if moves else None


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
    from games.models import Game

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
    from games import services
    from kinplay.notifications.services import remind

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
