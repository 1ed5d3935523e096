from datetime import timedelta

import pytest
from django.utils import timezone

from games import services
from games.models import Event, Game
from kinplay.clocks.models import Deadline
from kinplay.clocks.services import sweep
from tests.play import accepted, step

pytestmark = pytest.mark.django_db

LATER = timedelta(days=30)


def new_game(alice, bob, **clock):
    return accepted(services.create_game(creator=alice, kind="knonsters", seats=[{"user": "alice"}, {"user": "bob"}], **clock))


def timeouts(game):
    return [e for e in Event.objects.filter(game=game, command__isnull=False) if e.command.get("by", "").startswith("timeout")]


def test_it_gives_every_game_a_three_day_clock_by_default(alice, bob):
    game = new_game(alice, bob)
    assert game.per_move == 3 * 24 * 3600
    game.refresh_from_db()
    assert timedelta(days=2, hours=23) < game.deadline - timezone.now() <= timedelta(days=3)


def test_it_lets_the_bot_move_once_when_time_runs_out(alice, bob):
    game = new_game(alice, bob, per_move=60)
    before = game.to_act
    assert sweep(now=timezone.now() + timedelta(seconds=61)) >= len(before)
    assert {e.seat for e in timeouts(game)} == set(before)
    assert all(e.command["by"] == "timeout-bot" for e in timeouts(game))
    assert len(timeouts(game)) == len(before)
    sweep(now=timezone.now() + timedelta(seconds=30))  # a fired deadline never fires again
    assert len(timeouts(game)) == len(before)


def test_it_keeps_a_waiting_players_clock_while_others_choose(alice, bob):
    game = new_game(alice, bob, per_move=600)
    bobs = Deadline.objects.get(game=game, seat=1, kind=Deadline.MOVE, done_at__isnull=True)
    step(game, seat=0)
    assert Deadline.objects.get(game=game, seat=1, kind=Deadline.MOVE, done_at__isnull=True).pk == bobs.pk


def test_it_lets_a_move_that_arrives_first_win(alice, bob):
    game = new_game(alice, bob, per_move=60)
    step(game, seat=0)
    step(game, seat=1)
    game.refresh_from_db()
    seat = game.to_act[0]
    step(game, seat=seat)
    sweep(now=timezone.now() + timedelta(seconds=59))
    assert not timeouts(game)


def test_it_forfeits_when_the_game_says_so(alice, bob):
    game = new_game(alice, bob, per_move=60, on_timeout="forfeit")
    sweep(now=timezone.now() + timedelta(seconds=61))
    game.refresh_from_db()
    assert game.status == Game.FINISHED
    assert any(e.command["action"] == {"type": "resign"} for e in timeouts(game))


def test_it_reminds_a_human_before_a_long_clock_runs_out(alice, bob, inbox):
    game = new_game(alice, bob, per_move=24 * 3600)
    inbox().clear()
    sweep(now=timezone.now() + timedelta(hours=19))
    reminders = inbox()
    assert sorted(m.to[0] for m in reminders) == ["alice@example.com", "bob@example.com"]
    assert all("due soon" in m.subject for m in reminders)
    assert not timeouts(game)


def test_it_sets_no_deadline_without_a_clock(alice, bob):
    game = new_game(alice, bob, per_move=None)
    assert not Deadline.objects.filter(game=game, kind=Deadline.MOVE).exists()
    assert sweep(now=timezone.now() + LATER) == 0
