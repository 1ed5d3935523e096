"""Setting deadlines after each change (kinplay.clocks.receivers calls ``reschedule`` in the
move's transaction, ``opening`` for games just dealt).

Apart from applying them (kinplay.clocks.services, which plays moves through games.services).
"""

from __future__ import annotations

from datetime import timedelta

from django.db.models import Q
from django.utils import timezone

from games.registry import get
from kinplay.accounts.models import Profile
from kinplay.clocks.models import Deadline
from kinplay.clocks.vacation import hold_new_many

REMIND_FROM = 3600  # clocks shorter than an hour get no reminder
REMIND_BEFORE_MAX = 24 * 3600
BEFORE_QUIET = timedelta(minutes=5)  # a reminder moved out of quiet hours goes this long before they start


def reschedule(game, state, entries: dict, acted: set, had_timers=True):
    """Keep the deadlines of seats still waiting, replace the rest; return the earliest.

    A seat keeps its running clock while others act (a simultaneous choice), and gets a
    fresh one when it has just acted and must act again. A game that showed no deadline (its
    row, not yet updated) and ran no timer before this change (``had_timers``) has no
    pending rows to look for.
    """
    now = timezone.now()
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
    new = plan(game, entries, keep={d.seat for d in kept}, now=now)
    if timer_keys:
        # A key is known while its row is pending, or once it went off (or the rules refused
        # it): a fired fuse is not lit again. A row that ended any other way does not count.
        timers = Deadline.objects.filter(game=game, kind=Deadline.TIMER, key__in=list(timer_keys))
        known = set(timers.filter(Q(done_at__isnull=True) | Q(outcome="applied") | Q(outcome__startswith="refused"))
                    .values_list("key", flat=True))
        for key, timer in timer_keys.items():
            if key not in known:
                new.append(_timer(game, timer, now))
    if new:
        settle([(game, new)], now)  # a player on vacation: their clock starts held (kinplay.clocks.vacation)
        Deadline.objects.bulk_create(new)
    return earliest(kept + new)


def plan(game, entries: dict, *, keep=frozenset(), now=None) -> list[Deadline]:
    """The clocks (and reminders) of the seats in ``entries`` that keep no running clock
    (``keep``), unsaved; a game's row may not exist yet (games.services.create_games)."""
    now = now or timezone.now()
    humans = {s.index for s in game.seat_list if s.user_id}
    new = []
    for seat, entry in entries.items():
        if seat in keep:
            continue
        seconds = game.seconds_for(entry)
        if not seconds:
            continue
        due, key = now + timedelta(seconds=seconds), Deadline.WINDOW if entry.get("kind") == "window" else ""
        new.append(Deadline(game=game, kind=Deadline.MOVE, seat=seat, key=key, due_at=due, version=game.version))
        if seat in humans and seconds >= REMIND_FROM:  # windows too: they last days now
            before = min(REMIND_BEFORE_MAX, seconds // 4)
            new.append(Deadline(game=game, kind=Deadline.REMINDER, seat=seat, key=key, due_at=due - timedelta(seconds=before),
                                version=game.version))
    return new


def opening(games_states) -> list[Deadline]:
    """The first deadlines of games just dealt, ``(game, state, entries)`` each, unsaved; sets
    each game's ``deadline``. A new game has no clock running and no timer that went off:
    no query, but one for the players' settings (``settle``)."""
    now, planned = timezone.now(), []
    for game, state, entries in games_states:
        timers = get(game.kind).rules.timers(state) if game.status == "active" else []
        planned.append((game, plan(game, entries, now=now) + [_timer(game, t, now) for t in timers]))
    settle(planned, now)
    for game, new in planned:
        game.deadline = earliest(new)
    return [d for _, new in planned for d in new]


def settle(games_rows, now):
    """What the players' settings change about the deadlines about to be set (unsaved), ``(game,
    rows)`` each, read in one query for all (a game may have no row yet: games.services.create_games,
    so none is a dict key): the clocks of a player on vacation start held, and a reminder that
    would fall in quiet hours goes before they start (``before_quiet``)."""
    seated = [{s.index: s.user_id for s in game.seat_list if s.user_id} for game, _ in games_rows]
    asked = {users[d.seat] for (_, rows), users in zip(games_rows, seated) for d in rows
             if d.kind in (Deadline.MOVE, Deadline.REMINDER) and d.seat in users}
    if not asked:
        return
    profiles = {p.user_id: p for p in Profile.objects.filter(user_id__in=asked)
                .filter(Q(vacation_since__isnull=False) | Q(quiet_hours=True))}
    hold_new_many(games_rows, seated, {pk for pk, p in profiles.items() if p.on_vacation}, now)
    for (_, rows), users in zip(games_rows, seated):
        before_quiet(rows, users, profiles, now)


def before_quiet(rows, users: dict, profiles: dict, now):
    """A reminder that would fall in its player's quiet hours, for a move due before they end,
    goes before they start, or at once when they have started: the warning before they sleep
    (digests.hold_reason lets such a reminder through quiet hours). One for a move due after
    them waits for the morning, as the player asked."""
    moves = {(d.seat, d.key): d.due_at for d in rows if d.kind == Deadline.MOVE}
    for d in rows:
        profile = profiles.get(users.get(d.seat))
        if d.kind != Deadline.REMINDER or profile is None or d.paused_left is not None:
            continue
        quiet, due = profile.quiet_span(d.due_at), moves.get((d.seat, d.key))
        if quiet and due and due <= quiet[1]:
            d.due_at = max(now, quiet[0] - BEFORE_QUIET)


def _timer(game, timer: dict, now) -> Deadline:
    return Deadline(game=game, kind=Deadline.TIMER, key=timer["key"], due_at=now + timedelta(seconds=timer["seconds"]),
                    version=game.version)


def earliest(rows):
    """What the game row shows: the earliest move clock that runs (a held one shows nowhere)."""
    moves = [d.due_at for d in rows if d.kind == Deadline.MOVE and d.paused_left is None]
    return min(moves) if moves else None
