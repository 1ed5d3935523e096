"""Setting deadlines after each change, and applying the ones that fall due."""

from __future__ import annotations

import logging
from datetime import timedelta

from django.utils import timezone

from games.registry import get
from games.store import load_state
from kinplay.clocks.models import Deadline
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
        known = set(Deadline.objects.filter(game=game, kind=Deadline.TIMER).values_list("key", flat=True))
        for key, timer in timer_keys.items():
            if key not in known:
                new.append(Deadline(game=game, kind=Deadline.TIMER, key=key, due_at=now + timedelta(seconds=timer["seconds"]), version=game.version))
    if new:
        hold_new(game, new)  # a player on vacation: their clock starts held (kinplay.clocks.vacation)
        Deadline.objects.bulk_create(new)
    moves = [d.due_at for d in kept + new if d.kind == Deadline.MOVE and d.paused_left is None]
    return min(moves) if moves else None


def sweep(now=None, limit=200) -> int:
    """Apply every due deadline once; returns how many were applied."""
    from games import services
    from kinplay.notifications.services import remind

    now = now or timezone.now()
    fired = 0
    for d in Deadline.objects.filter(done_at__isnull=True, due_at__lte=now).order_by("due_at")[:limit]:
        if not d.claim():
            continue  # another sweeper, or a move, got there first
        try:
            if d.kind == Deadline.MOVE:
                outcome = services.timeout(d.game_id, d.seat)
            elif d.kind == Deadline.REMINDER:
                outcome = remind(d.game_id, d.seat)
            elif d.kind == Deadline.INVITATION:
                outcome = services.expire_invitation(d.game_id, d.seat)
            elif d.kind == Deadline.BOTS:
                outcome = services.play_bots(d.game_id)
            else:
                timer = next((t for t in get(d.game.kind).rules.timers(load_state(d.game)) if t["key"] == d.key), None)
                outcome = services.fire_timer(d.game_id, timer["action"]) if timer else "gone"
        except Exception:  # one broken game must not stop the sweep for the others
            log.exception("deadline %s failed", d.pk)
            outcome = "error"
        d.finish(outcome)
        fired += 1
    return fired
