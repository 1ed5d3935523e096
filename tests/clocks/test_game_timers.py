"""Wall-clock game timers (the Project_Kin bomb fuse) are durable deadlines swept by beat."""

from datetime import timedelta

import pytest
from django.utils import timezone

from games import services
from games.models import Event, Game
from games.registry import get
from games.store import load_state
from kinplay.clocks.models import Deadline
from kinplay.clocks.services import sweep
from tests.play import accepted, step

pytestmark = pytest.mark.django_db


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


def test_it_sets_off_the_fuse_when_its_time_runs_out_and_only_once(alice, bob):
    game = game_with_a_lit_fuse(alice, bob)
    timer = Deadline.objects.get(game=game, kind=Deadline.TIMER, done_at__isnull=True)
    before = Event.objects.filter(game=game).count()
    sweep(now=timezone.now() + timedelta(seconds=20))
    assert Event.objects.filter(game=game).count() == before  # not yet
    sweep(now=timezone.now() + timedelta(seconds=31))
    fired = Event.objects.filter(game=game, seq__gt=before, seat__isnull=True)
    assert fired.exists() and fired.first().command["by"] == "timer"
    timer.refresh_from_db()
    assert timer.outcome == "applied"
    count = Event.objects.filter(game=game).count()
    sweep(now=timezone.now() + timedelta(seconds=31))
    assert Event.objects.filter(game=game, seat__isnull=True, seq__gt=count).count() == 0
