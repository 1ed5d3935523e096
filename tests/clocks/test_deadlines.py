"""Move clocks and reminders, on a clock the test controls (time-machine): ``clock.shift``
moves "now" for the code under test and for the sweep alike."""

from datetime import timedelta

import pytest
from django.db import OperationalError
from django.utils import timezone

from games import services
from games.models import Event, Game
from kinplay.clocks.models import Deadline
from kinplay.clocks.services import apply_due, sweep
from tests.play import accepted, step

pytestmark = pytest.mark.django_db

LATER = timedelta(days=30)


@pytest.fixture
def clock(time_machine):
    """Time stands still unless the test moves it."""
    time_machine.move_to(timezone.now(), tick=False)
    return time_machine


def new_game(alice, bob, **clock):
    return accepted(services.create_game(creator=alice, kind="knonsters", seats=[{"user": "alice"}, {"user": "bob"}], **clock))


def timeouts(game):
    return [e for e in Event.objects.filter(game=game, command__isnull=False) if e.command.get("by", "").startswith("timeout")]


def pending(game, **kw):
    return Deadline.objects.filter(game=game, done_at__isnull=True, **kw)


def test_it_gives_every_game_a_three_day_clock_by_default(clock, alice, bob):
    game = new_game(alice, bob)
    assert game.per_move == 3 * 24 * 3600
    game.refresh_from_db()
    assert game.deadline - timezone.now() == timedelta(days=3)


def test_it_lets_the_bot_move_once_when_time_runs_out(clock, alice, bob):
    game = new_game(alice, bob, per_move=60)
    before = game.to_act
    clock.shift(59)
    assert sweep() == 0 and not timeouts(game)
    clock.shift(2)
    assert sweep() >= len(before)
    assert {e.seat for e in timeouts(game)} == set(before)
    assert all(e.command["by"] == "timeout-bot" for e in timeouts(game))
    assert len(timeouts(game)) == len(before)
    clock.shift(30)
    sweep()  # a fired deadline never fires again
    assert len(timeouts(game)) == len(before)


def test_it_keeps_a_waiting_players_clock_while_others_choose(clock, alice, bob):
    game = new_game(alice, bob, per_move=600)
    bobs = Deadline.objects.get(game=game, seat=1, kind=Deadline.MOVE, done_at__isnull=True)
    step(game, seat=0)
    assert Deadline.objects.get(game=game, seat=1, kind=Deadline.MOVE, done_at__isnull=True).pk == bobs.pk


def test_it_lets_a_move_that_arrives_first_win(clock, alice, bob):
    game = new_game(alice, bob, per_move=60)
    step(game, seat=0)
    step(game, seat=1)
    game.refresh_from_db()
    seat = game.to_act[0]
    clock.shift(50)
    step(game, seat=seat)  # 10 s before its clock ran out
    clock.shift(11)  # past the deadline the move beat, long before the next one
    sweep()
    assert not timeouts(game)
    clock.shift(60)
    assert sweep() and timeouts(game)  # the next seat's own clock still runs out


def test_it_forfeits_when_the_game_says_so(clock, alice, bob):
    game = new_game(alice, bob, per_move=60, on_timeout="forfeit")
    clock.shift(61)
    sweep()
    game.refresh_from_db()
    assert game.status == Game.FINISHED
    assert any(e.command["action"] == {"type": "resign"} for e in timeouts(game))


def test_it_reminds_a_human_before_a_long_clock_runs_out(clock, alice, bob, inbox):
    game = new_game(alice, bob, per_move=24 * 3600)
    inbox().clear()
    clock.shift(timedelta(hours=17, minutes=59))
    sweep()
    assert not inbox()  # six hours before the end, not earlier
    clock.shift(timedelta(minutes=2))
    sweep()
    reminders = inbox()
    assert sorted(m.to[0] for m in reminders) == ["alice@example.com", "bob@example.com"]
    assert all("due soon" in m.subject for m in reminders)
    assert not timeouts(game)


def test_it_sets_no_deadline_without_a_clock(clock, alice, bob):
    game = new_game(alice, bob, per_move=None)
    assert not Deadline.objects.filter(game=game, kind=Deadline.MOVE).exists()
    clock.shift(LATER)
    assert sweep() == 0


# ---------------------------------------------------------------- under faults


class Killed(BaseException):
    """The worker dies here (kill -9): nothing after this point runs, nothing is caught."""


def test_it_loses_no_deadline_when_the_worker_dies_while_applying_it(clock, alice, bob, monkeypatch):
    game = new_game(alice, bob, per_move=60)
    seats = set(game.to_act)
    clock.shift(61)

    def killed(*args, **kwargs):
        raise Killed

    monkeypatch.setattr(services, "act", killed)
    with pytest.raises(Killed):
        sweep()
    monkeypatch.undo()
    # Whatever was claimed went back with the transaction: the next sweep applies it.
    assert {d.seat for d in pending(game, kind=Deadline.MOVE)} == seats
    clock.shift(5)
    sweep()
    assert {e.seat for e in timeouts(game)} == seats
    assert not pending(game, kind=Deadline.MOVE, due_at__lte=timezone.now())


@pytest.mark.parametrize("failure", [RuntimeError("the rules crashed"), OperationalError("database is locked")])
def test_it_pushes_a_failing_deadline_forward_with_backoff(clock, alice, bob, monkeypatch, failure, caplog):
    game = new_game(alice, bob, per_move=60)
    calls = []

    def failing(game_id, seat):
        calls.append(seat)
        raise failure

    monkeypatch.setattr(services, "timeout", failing)
    clock.shift(61)
    sweep()
    tried = len(calls)
    assert tried == len(game.to_act)
    rows = list(pending(game, kind=Deadline.MOVE))
    assert rows and all(d.attempts == 1 and d.due_at == timezone.now() + timedelta(seconds=5) for d in rows)
    assert all(str(failure) in d.error for d in rows)
    clock.shift(4)
    sweep()
    assert len(calls) == tried  # not on every sweep
    clock.shift(1)
    sweep()
    assert len(calls) == 2 * tried
    assert all(d.attempts == 2 and d.due_at == timezone.now() + timedelta(seconds=10) for d in pending(game, kind=Deadline.MOVE))
    for _ in range(6):  # 10 s, 20 s, ... and the failures turn from warnings into errors
        clock.shift(Deadline.BACKOFF_MAX)
        sweep()
    assert "ERROR" in {r.levelname for r in caplog.records if r.name == "kinplay.clocks"}
    monkeypatch.undo()
    clock.shift(Deadline.BACKOFF_MAX)
    sweep()
    assert {e.seat for e in timeouts(game)} == set(game.to_act)  # applied in the end, once


def test_it_does_not_apply_a_deadline_a_move_superseded_after_the_sweep_listed_it(clock, alice, bob):
    game = new_game(alice, bob, per_move=60)
    alices = pending(game, seat=0, kind=Deadline.MOVE).get()
    clock.shift(61)
    step(game, seat=0)  # lands between the sweep's listing and its claim
    assert not apply_due(alices.pk, game.pk, timezone.now())
    assert not any(e.seat == 0 for e in timeouts(game))


def test_it_never_consumes_a_seats_clock_when_two_sweeps_overlap(clock, alice, bob, monkeypatch):
    """Two sweeps at once: while one applies alice's timeout, the other applies bob's. The
    loser must not record that bob "moved first" (he never moved): his clock stays and runs
    out for real."""
    game = new_game(alice, bob, per_move=60)
    clock.shift(61)
    real_act = services.act
    overlapped = []

    def act_while_another_sweep_runs(game_id, seat=None, **kw):
        if seat == 0 and not overlapped:
            overlapped.append(True)
            other = pending(game, seat=1, kind=Deadline.MOVE).get()
            apply_due(other.pk, game.pk, timezone.now())  # the other sweep, at the same version
        return real_act(game_id, seat, **kw)

    monkeypatch.setattr(services, "act", act_while_another_sweep_runs)
    sweep()
    monkeypatch.undo()
    assert overlapped
    game.refresh_from_db()
    assert not Deadline.objects.filter(game=game, outcome="moved-first").exists()
    if game.status == Game.ACTIVE and game.to_act:
        # every seat that must act has a running clock, and the game shows the earliest
        assert {d.seat for d in pending(game, kind=Deadline.MOVE)} >= set(game.to_act)
        clock.shift(timedelta(hours=1))
        sweep()
    assert {e.seat for e in timeouts(game)} >= {0, 1}
