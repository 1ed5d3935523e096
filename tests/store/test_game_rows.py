"""Every move starts from the game row as it is in the database (games.store.game_with_seats,
one statement): a row someone else wrote since a reader read it is never written over nor
moved on, in this process or another (tests/store/test_two_processes.py)."""

from datetime import UTC, datetime

import pytest
import time_machine
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from games import services
from games.engine import IllegalAction
from games.models import Game
from games.store import VersionConflict, game_with_seats
from tests.play import bot_action

pytestmark = pytest.mark.django_db


@pytest.fixture
def game(alice):
    return services.create_game(creator=alice, kind="knonsters", per_move=None, seats=[{"user": "alice"}, {"bot": "random"}])


@pytest.fixture
def move(alice, django_capture_on_commit_callbacks):
    """alice's move (the heuristic bot's choice), committed as a request's would be. Returns the game's version after it and the queries it made."""
    def move(game, **kwargs):
        action = bot_action(game, 0)
        with django_capture_on_commit_callbacks(execute=True), CaptureQueriesContext(connection) as queries:
            outcome = services.act(game.pk, user=alice, action=action, **kwargs)
        return outcome.game.version, [q["sql"] for q in queries.captured_queries if "SAVEPOINT" not in q["sql"]]
    return move


def reads_of_the_row(statements):
    return [s for s in statements if "json_agg" in s or "json_group_array" in s]  # game_with_seats


def test_it_reads_the_row_once_for_each_move(game, move):
    version, first = move(game)
    _, second = move(game, expected_version=version)
    assert len(reads_of_the_row(first)) == 1 and len(reads_of_the_row(second)) == 1


def test_it_moves_on_the_row_as_it_is_when_another_process_moved_since(game, move):
    move(game)
    version, _ = move(game)  # the worker, say, played meanwhile
    after, statements = move(game)  # no expected_version: the move is made on the row as it is
    assert after > version and reads_of_the_row(statements)
    assert move(game, expected_version=after)[0] > after  # the version the client saw


def test_it_refuses_a_client_behind(game, move):
    move(game)
    seen = Game.objects.get(pk=game.pk).version
    move(game)
    with pytest.raises(VersionConflict):
        move(game, expected_version=seen)


def test_it_never_writes_over_a_row_written_outside_a_move(game, move):
    """A clock paused for a vacation, a tournament's friendly flag, a standing answer: written
    in another process, which stamps the row but cannot empty this process's copy."""
    move(game)
    Game.objects.filter(pk=game.pk).update(rated=False)  # any write to the row stamps it
    _, statements = move(game)
    assert reads_of_the_row(statements)  # the move was made on the row read
    assert Game.objects.get(pk=game.pk).rated is False
    Game.objects.get(pk=game.pk).save(update_fields=["options"])  # a save of some fields stamps it too
    assert reads_of_the_row(move(game)[1])


def test_it_never_writes_over_a_row_stamped_between_its_read_and_its_write(game, move, monkeypatch):
    """Another process writes the row just after a move read it: the move's compare-and-set
    fails, and it is made again on the row as it is now (the other write kept)."""
    from games import services

    read, stamped = game_with_seats, []

    def meanwhile(*args, **kwargs):
        row = read(*args, **kwargs)
        if not stamped:
            stamped.append(Game.objects.filter(pk=game.pk).update(rated=False))
        return row

    monkeypatch.setattr(services, "game_with_seats", meanwhile)  # the move's read
    before = Game.objects.get(pk=game.pk).version
    after, statements = move(game)
    assert stamped == [1] and len(reads_of_the_row(statements)) == 2 and after > before
    assert Game.objects.get(pk=game.pk).rated is False


def test_it_forgets_a_game_once_it_is_over(game, move, alice):
    for _ in range(500):
        game.refresh_from_db()
        if game.status != Game.ACTIVE:
            break
        move(game)
    assert game.status == Game.FINISHED and game_with_seats(game.pk).status == Game.FINISHED
    with pytest.raises(IllegalAction, match="over"):
        services.act(game.pk, user=alice, action={"type": "any"})


def test_it_plays_owed_bot_moves_on_a_row_stamped_while_the_worker_played(alice, settings, monkeypatch):
    """A standing answer, a held clock or a tournament's friendly flag stamps the row while the
    worker plays the bots' owed moves: nobody moved, so the worker plays them on the row as it
    is now, rather than giving up as if a move came first (the bots would wait for the sweep)."""
    settings.INLINE_BOT_STEPS = 0  # the bots' moves are all owed to the worker
    game = services.create_game(creator=alice, kind="kenta", seats=[{"bot": "heuristic"}] * 3, per_move=None)
    run_bots, stamped = services._run_bots, []

    def meanwhile(*args, **kwargs):
        if not stamped:  # another process writes the row once, between the worker's read and write
            stamped.append(Game.objects.filter(pk=game.pk).update(updated_at=timezone.now()))
        return run_bots(*args, **kwargs)

    monkeypatch.setattr(services, "_run_bots", meanwhile)
    version = Game.objects.get(pk=game.pk).version
    assert services.play_bots(game.pk) in ("played", "more-owed") and stamped == [1]
    assert Game.objects.get(pk=game.pk).version > version


def test_it_reads_a_row_written_under_a_frozen_clock(game, move):
    """Under a frozen clock a stamp cannot tell the rows apart: the move reads the row as written."""
    with time_machine.travel(datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC), tick=False):
        move(game)
        Game.objects.filter(pk=game.pk).update(rated=False)
        assert reads_of_the_row(move(game)[1]) and Game.objects.get(pk=game.pk).rated is False
        Game.objects.get(pk=game.pk).save(update_fields=["options"])
        assert reads_of_the_row(move(game)[1])


def test_it_hands_each_reader_a_game_of_its_own(game, move):
    """A move changes the game it starts from (to_act, result, options for a Kenta colour...): a
    game handed out must never change what the next reader gets."""
    move(game)
    first = game_with_seats(game.pk)
    first.to_act.append(99)
    first.options["changed"] = True
    first.seat_list[0].user.username = "mallory"
    second = game_with_seats(game.pk)
    assert 99 not in second.to_act and "changed" not in second.options
    assert second.seat_list[0].user.username == "alice"
    assert second.updated_at == first.updated_at and second.seed == first.seed


def test_it_reads_the_options_as_written(game, move):
    """Whatever the row holds now is what the next reader gets: nothing of an earlier read is kept."""
    move(game)
    for options in ({"plain": [1, "two"]}, {"other": {"nested": True}}):
        Game.objects.filter(pk=game.pk).update(options=options)
        assert game_with_seats(game.pk).options == options


def test_it_names_the_seat_and_user_fields_in_the_models_order():
    """games.store._seats hands from_db these lists, which Django reads in the model's field order."""
    from django.contrib.auth import get_user_model

    from games.models import Seat
    from games.store import SEAT_ATTNAMES, USER_ATTNAMES

    assert [f.attname for f in Seat._meta.concrete_fields] == SEAT_ATTNAMES
    order = [f.attname for f in get_user_model()._meta.concrete_fields]
    assert sorted(USER_ATTNAMES, key=order.index) == USER_ATTNAMES


def test_it_gives_each_reader_seats_of_its_own_game(game, move):
    move(game)
    first, second = game_with_seats(game.pk), game_with_seats(game.pk)
    assert first is not None and second is not None
    for a, b in zip(first.seat_list, second.seat_list, strict=True):
        assert a.game is first and b.game is second and a is not b
        assert a.user_id is None or (a.user is not b.user and a.user.username == b.user.username)
    fresh = game_with_seats(game.pk)
    assert [(s.pk, s.index, s.user_id, s.bot, s.invited, s.standing) for s in first.seat_list] == [
        (s.pk, s.index, s.user_id, s.bot, s.invited, s.standing) for s in fresh.seat_list]
