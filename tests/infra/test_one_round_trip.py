"""A usual move on PostgreSQL is one statement sent on its own (kinplay.infra.postgres
``execute_last``): no BEGIN and no COMMIT, yet still all or nothing, and nothing can slip in
after it that would no longer be undone with it."""

import psycopg
import pytest
from django.db import connection, transaction
from django.db.transaction import TransactionManagementError

from games import services
from games.models import Event, Game
from games.store import game_with_seats, states
from kinplay.infra import sql
from kinplay.notifications.models import Outbox
from tests.play import bot_action

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.postgresql]


@pytest.fixture
def commands(monkeypatch):
    """What psycopg sends of its own accord: BEGIN before a transaction's first statement, COMMIT."""
    sent = []
    real = psycopg.Connection._exec_command

    def spy(self, command, *args, **kwargs):
        sent.append(bytes(command).split()[0].decode().upper())
        return (yield from real(self, command, *args, **kwargs))

    monkeypatch.setattr(psycopg.Connection, "_exec_command", spy)
    return sent


def a_game(alice, *others):
    game = services.create_game(creator=alice, kind="knonsters", per_move=None,
                                seats=[{"user": "alice"}, *(others or [{"bot": "random"}])])
    game.refresh_from_db()
    return game


def test_it_makes_a_usual_move_in_one_statement_without_begin_or_commit(alice, commands):
    game = a_game(alice)
    services.act(game.pk, user=alice, action=bot_action(game, 0))  # the next move finds the state it left
    game.refresh_from_db()
    commands.clear()
    outcome = services.act(game.pk, user=alice, action=bot_action(game, 0))
    assert commands == []
    assert Game.objects.get(pk=game.pk).version == outcome.game.version > game.version
    assert Event.objects.filter(game=game).count() == outcome.game.version
    # what waits for the commit still happens: the state is remembered, the row read as written
    assert states.get(outcome.game, outcome.game.version) is not None
    assert game_with_seats(game.pk).version == outcome.game.version


def test_it_commits_a_move_and_its_email_together(alice, bob, commands):
    game = services.create_game(creator=alice, kind="knonsters", per_move=None, seats=[{"user": "alice"}, {"user": "bob"}])
    services.accept_invitation(game.pk, bob)
    emailed = Outbox.objects.count()
    while Outbox.objects.count() == emailed:  # until a move hands the turn to the other player
        game.refresh_from_db()
        seat = game.to_act[0]
        commands.clear()
        outcome = services.act(game.pk, user=game.seat_list[seat].user, action=bot_action(game, seat))
    assert commands[0] == "BEGIN" and commands[-1] == "COMMIT"  # the outbox row came first: a transaction as ever
    assert Outbox.objects.filter(game=game, version=outcome.game.version).exists()


def test_it_writes_nothing_when_the_row_changed_since_it_was_read(alice, commands):
    game = a_game(alice)
    stale = Game.objects.get(pk=game.pk)
    services.act(game.pk, user=alice, action=bot_action(game, 0))  # another move lands first
    events = Event.objects.filter(game=game).count()
    stale.version += 1
    with transaction.atomic():
        written = sql.update_if(stale, ("version",), {"version": game.version},
                                then=(Event, [Event(game=game, seq=events + 1, type="x", data={}, at=stale.updated_at)],
                                      ("game", "seq", "type", "data", "at")), last=True)
        assert not written
        assert Game.objects.filter(pk=game.pk).exists()  # nothing was written: the block may go on
    assert Event.objects.filter(game=game).count() == events


def test_it_refuses_a_statement_after_the_last_one(alice):
    game = a_game(alice)
    game.version += 1
    with pytest.raises(TransactionManagementError), transaction.atomic():
        assert sql.update_if(game, ("version",), {"version": game.version - 1}, last=True)
        Game.objects.count()
    assert Game.objects.get(pk=game.pk).version == game.version  # committed by itself, and it says so
    assert Game.objects.count() == 1  # the refusal ended with the block


def test_it_keeps_the_transaction_when_a_statement_came_first(alice, commands):
    game = a_game(alice)
    version = game.version
    game.version += 1
    commands.clear()
    with pytest.raises(RuntimeError), transaction.atomic():
        Game.objects.count()
        assert sql.update_if(game, ("version",), {"version": version}, last=True)
        raise RuntimeError("the request fails after its last statement: everything rolls back")
    assert commands[:2] == ["BEGIN", "ROLLBACK"]
    assert Game.objects.get(pk=game.pk).version == version


def test_it_keeps_the_transaction_inside_another_one(alice):
    game = a_game(alice)
    version = game.version
    game.version += 1
    with pytest.raises(RuntimeError), transaction.atomic():
        with transaction.atomic():  # the caller's caller may still write: not the last statement
            assert sql.update_if(game, ("version",), {"version": version}, last=True)
        raise RuntimeError("the outer block fails")
    assert Game.objects.get(pk=game.pk).version == version
    assert connection.connection.autocommit is False or not connection.in_atomic_block
