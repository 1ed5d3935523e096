"""Wall-clock game timers (the Project_Kin bomb fuse) are durable deadlines swept by beat."""


import pytest
from django.db import OperationalError
from django.utils import timezone

from games import services
from games.models import Event, Game
from games.registry import get
from games.store import load_state
from kinplay.clocks.models import Deadline
from kinplay.clocks.services import sweep
from tests.play import accepted, step

pytestmark = pytest.mark.django_db


@pytest.fixture
def clock(time_machine):
    """Time stands still unless the test moves it."""
    time_machine.move_to(timezone.now(), tick=False)
    return time_machine


def game_with_a_lit_fuse(alice, bob):
    rules = get("project_kin").rules
    for _ in range(20):
        game = accepted(services.create_game(creator=alice, kind="project_kin", options={"fuse_seconds": 30},
                                             seats=[{"user": "alice"}, {"user": "bob"}], per_move=None))
        for _ in range(400):
            game.refresh_from_db()
            if game.status != Game.ACTIVE:
                break
            if rules.timers(load_state(game)):
                return game
            step(game)
    pytest.fail("no bomb was picked up in 20 games")


def test_it_sets_off_the_fuse_when_its_time_runs_out_and_only_once(clock, alice, bob):
    game = game_with_a_lit_fuse(alice, bob)
    timer = Deadline.objects.get(game=game, kind=Deadline.TIMER, done_at__isnull=True)
    before = Event.objects.filter(game=game).count()
    clock.shift(29)
    sweep()
    assert Event.objects.filter(game=game).count() == before  # not yet
    clock.shift(2)
    sweep()
    fired = Event.objects.filter(game=game, seq__gt=before, seat__isnull=True)
    assert fired.exists() and fired.first().command["by"] == "timer"
    timer.refresh_from_db()
    assert timer.outcome == "applied"
    count = Event.objects.filter(game=game).count()
    clock.shift(31)
    sweep()
    assert Event.objects.filter(game=game, seat__isnull=True, seq__gt=count).count() == 0


class Killed(BaseException):
    """The worker dies here (kill -9): nothing after this point runs, nothing is caught."""


def detonations(game):
    return Event.objects.filter(game=game, seat__isnull=True, command__by="timer").count()


@pytest.mark.parametrize("failure", [Killed(), OperationalError("server closed the connection unexpectedly")])
def test_it_never_loses_a_fuse_when_the_worker_dies_or_the_database_fails(clock, alice, bob, monkeypatch, failure):
    game = game_with_a_lit_fuse(alice, bob)

    def broken(*args, **kwargs):
        raise failure

    monkeypatch.setattr(services, "fire_timer", broken)
    clock.shift(31)
    try:
        sweep()
    except Killed:
        pass
    monkeypatch.undo()
    assert Deadline.objects.filter(game=game, kind=Deadline.TIMER, done_at__isnull=True).exists()
    clock.shift(Deadline.BACKOFF_FIRST)
    sweep()
    assert detonations(game) == 1  # the bomb went off, once
    clock.shift(60)
    sweep()
    assert detonations(game) == 1


def test_it_lights_a_fuse_again_unless_it_went_off(clock, alice, bob):
    """A timer row that ended without firing (left behind by a crashed sweeper of an older
    release) does not stop the next move from lighting the fuse again."""
    from games.store import load_state
    from kinplay.clocks.services import reschedule

    game = game_with_a_lit_fuse(alice, bob)
    Deadline.objects.filter(game=game, kind=Deadline.TIMER).update(done_at=timezone.now(), outcome="claimed")
    game.refresh_from_db()
    reschedule(game, load_state(game), {}, set())
    assert Deadline.objects.filter(game=game, kind=Deadline.TIMER, done_at__isnull=True).exists()
