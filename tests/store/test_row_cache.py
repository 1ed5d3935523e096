"""games.models.RowCache: a player's next move starts from the game row this process wrote at
their last one, and a row someone else wrote since is never written over nor moved on."""

from datetime import UTC, datetime

import pytest
import time_machine
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from games import services
from games.models import Game, game_rows
from games.store import VersionConflict
from tests.play import bot_action

pytestmark = pytest.mark.django_db


@pytest.fixture
def game(alice):
    return services.create_game(creator=alice, kind="knonsters", per_move=None, seats=[{"user": "alice"}, {"bot": "random"}])


@pytest.fixture
def move(alice, django_capture_on_commit_callbacks):
    """alice's move (the heuristic bot's choice), committed as a request's would be: the row
    is remembered at commit. Returns the game's version after it and the queries it made."""
    def move(game, **kwargs):
        action = bot_action(game, 0)
        with django_capture_on_commit_callbacks(execute=True), CaptureQueriesContext(connection) as queries:
            outcome = services.act(game.pk, user=alice, action=action, **kwargs)
        return outcome.game.version, [q["sql"] for q in queries.captured_queries if "SAVEPOINT" not in q["sql"]]
    return move


def reads_of_the_row(statements):
    return [s for s in statements if "json_agg" in s or "json_group_array" in s]  # get_with_seats


def stale_copy(game_id):
    """What another process would hold after this one's last move: a copy behind the database."""
    with game_rows.lock:
        return game_rows.entries[game_id]


def test_it_starts_the_next_move_from_the_row_it_wrote(game, move):
    version, first = move(game)
    _, second = move(game, expected_version=version)
    assert len(reads_of_the_row(first)) == 1 and reads_of_the_row(second) == []


def test_it_moves_on_the_row_as_it_is_when_another_process_moved_since(game, move):
    move(game)
    behind = stale_copy(game.pk)
    version, _ = move(game)  # the worker, say, played meanwhile
    game_rows._store(game.pk, behind[1])
    after, statements = move(game)  # no expected_version: the move is made on the row as it is
    assert after > version and reads_of_the_row(statements)
    game_rows._store(game.pk, behind[1])
    assert move(game, expected_version=after)[0] > after  # the version the client saw, not this copy's


def test_it_refuses_a_client_behind_even_when_its_copy_is_as_far_behind(game, move):
    move(game)
    behind, seen = stale_copy(game.pk), Game.objects.get(pk=game.pk).version
    move(game)
    game_rows._store(game.pk, behind[1])
    with pytest.raises(VersionConflict):
        move(game, expected_version=seen)


def test_it_never_writes_over_a_row_written_outside_a_move(game, move):
    """A clock paused for a vacation, a tournament's friendly flag, a standing answer: written
    in another process, which stamps the row but cannot empty this process's copy."""
    move(game)
    behind = stale_copy(game.pk)
    Game.objects.filter(pk=game.pk).update(rated=False)  # any write to the row stamps it
    game_rows._store(game.pk, behind[1])
    _, statements = move(game)
    assert reads_of_the_row(statements)  # the copy's write was refused; the move was made on the row read
    assert Game.objects.get(pk=game.pk).rated is False
    game_rows._store(game.pk, stale_copy(game.pk)[1])
    behind = stale_copy(game.pk)
    Game.objects.get(pk=game.pk).save(update_fields=["options"])  # a save of some fields stamps it too
    game_rows._store(game.pk, behind[1])
    assert reads_of_the_row(move(game)[1])


def test_it_forgets_a_game_once_it_is_over(game, move, alice):
    for _ in range(500):
        game.refresh_from_db()
        if game.status != Game.ACTIVE:
            break
        move(game)
    assert game.status == Game.FINISHED and game_rows.get(game.pk) is None


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


def test_it_forgets_its_copy_when_this_process_writes_the_row(game, move):
    """Under a frozen clock a stamp cannot tell the rows apart: the write itself drops the copy
    (GameQuerySet.update, Game.save), whichever code makes it."""
    with time_machine.travel(datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC), tick=False):
        move(game)
        Game.objects.filter(pk=game.pk).update(rated=False)
        assert reads_of_the_row(move(game)[1]) and Game.objects.get(pk=game.pk).rated is False
        Game.objects.get(pk=game.pk).save(update_fields=["options"])
        assert reads_of_the_row(move(game)[1])


def test_it_hands_each_reader_a_game_of_its_own(game, move):
    """A move changes the game it starts from (to_act, result, options for a Kenta colour...): a
    copy handed out must never change what the next reader gets."""
    move(game)
    first = game_rows.get(game.pk)
    first.to_act.append(99)
    first.options["changed"] = True
    first.seat_list[0].user.username = "mallory"
    second = game_rows.get(game.pk)
    assert 99 not in second.to_act and "changed" not in second.options
    assert second.seat_list[0].user.username == "alice"
    assert second.updated_at == first.updated_at and second.seed == first.seed


def test_it_keeps_no_copy_of_a_row_it_cannot_copy(game, move, django_capture_on_commit_callbacks):
    """A value the cache could neither hand out as it is nor copy is not kept: the next move reads the row."""
    move(game)
    row = game_rows.get(game.pk)
    for options, kept in (({"plain": [1, "two"]}, True), ({"not plain data": object()}, False)):
        game_rows.drop(game.pk)
        row.options = options
        with django_capture_on_commit_callbacks(execute=True):
            game_rows.put_on_commit(row)
        assert (game_rows.get(game.pk) is not None) is kept


def test_it_names_the_seat_and_user_fields_in_the_models_order():
    """games.models._hold hands from_db these lists, which Django reads in the model's field order."""
    from django.contrib.auth import get_user_model

    from games.models import SEAT_ATTNAMES, USER_ATTNAMES, Seat

    assert [f.attname for f in Seat._meta.concrete_fields] == SEAT_ATTNAMES
    order = [f.attname for f in get_user_model()._meta.concrete_fields]
    assert sorted(USER_ATTNAMES, key=order.index) == USER_ATTNAMES


def test_it_gives_each_reader_seats_of_its_own_game(game, move):
    move(game)
    first, second = game_rows.get(game.pk), game_rows.get(game.pk)
    assert first is not None and second is not None
    for a, b in zip(first.seat_list, second.seat_list, strict=True):
        assert a.game is first and b.game is second and a is not b
        assert a.user_id is None or (a.user is not b.user and a.user.username == b.user.username)
    fresh = Game.objects.get_with_seats(game.pk)
    assert [(s.pk, s.index, s.user_id, s.bot, s.invited, s.standing) for s in first.seat_list] == [
        (s.pk, s.index, s.user_id, s.bot, s.invited, s.standing) for s in fresh.seat_list]
