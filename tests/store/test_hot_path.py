"""The few statements every move makes (kinplay/infra/sql.py, games.store.game_with_seats) and the
per-process cache of latest states (games/store.py): same answers as the ORM, fewer queries."""

import pytest
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext

from games import services
from games.engine import canonical
from games.models import Game
from games.store import game_with_seats, load_state, states
from kinplay.infra import sql
from tests.play import bot_action

pytestmark = pytest.mark.django_db


@pytest.fixture
def game(alice, bob):
    return services.create_game(creator=alice, kind="knonsters", per_move=None,
                                seats=[{"user": "alice"}, {"bot": "random"}, {}])


def test_it_loads_a_game_its_seats_and_players_in_one_query(game, django_assert_num_queries):
    with django_assert_num_queries(1):
        loaded = game_with_seats(game.pk)
        seats = [(s.index, s.user and s.user.username, s.user and s.user.email, s.bot) for s in loaded.seat_list]
        names = [s.name for s in loaded.seat_list]
        assert len(loaded.seat_list) == 3
    assert seats == [(0, "alice", "alice@example.com", ""), (1, None, None, "random"), (2, None, None, "")]
    assert names == ["alice", "Bot 2 (random)", "open seat"]
    orm = Game.objects.get(pk=game.pk)
    for field in Game._meta.concrete_fields:
        assert getattr(loaded, field.attname) == getattr(orm, field.attname), field.name


def test_it_says_when_there_is_no_such_game(db):
    with pytest.raises(Game.DoesNotExist):
        game_with_seats(987654)


def test_it_answers_a_move_with_few_queries(alice, api):
    game = services.create_game(creator=alice, kind="knonsters", per_move=None, seats=[{"user": "alice"}, {"bot": "random"}])
    client = api(alice)
    body = client.get(f"/api/games/{game.pk}/").json()
    with CaptureQueriesContext(connection) as captured:
        response = client.post(f"/api/games/{game.pk}/actions/", {"action": body["legal_actions"][0]["action"]}, format="json")
    assert response.status_code == 201, response.json()
    statements = [q["sql"] for q in captured.captured_queries if "SAVEPOINT" not in q["sql"]]  # the test's own transaction
    # the token with its player and the game with its seats (api/authentication.py), the state
    # (no cache inside a test transaction), the events (the player's and the bot's answer
    # together) and the game row, in one statement on PostgreSQL
    assert len(statements) == (3 if connection.vendor == "postgresql" else 4), statements


def test_it_writes_the_read_model_only_if_no_one_moved_first(game):
    game.refresh_from_db()
    version = game.version
    game.version = version + 1
    assert not sql.update_if(game, ("version",), {"version": version - 1})
    assert Game.objects.get(pk=game.pk).version == version
    assert sql.update_if(game, ("version",), {"version": version})
    assert Game.objects.get(pk=game.pk).version == version + 1


def test_it_remembers_a_state_only_once_its_move_is_committed(alice, django_capture_on_commit_callbacks):
    states.clear()
    game = services.create_game(creator=alice, kind="knonsters", per_move=None, seats=[{"user": "alice"}, {"bot": "random"}])
    game.refresh_from_db()
    with pytest.raises(RuntimeError), transaction.atomic():
        with django_capture_on_commit_callbacks(execute=False) as pending:
            outcome = services.act(game.pk, 0, action=bot_action(game, 0))
        raise RuntimeError("the request failed after the move: it rolls back")
    assert pending and states.get(outcome.game, outcome.game.version) is None
    game.refresh_from_db()
    with django_capture_on_commit_callbacks(execute=True):
        outcome = services.act(game.pk, 0, action=bot_action(game, 0))
    cached = states.get(outcome.game, outcome.game.version)
    assert canonical(cached) == canonical(load_state(outcome.game, cached=False))


def test_it_hands_out_copies_and_never_mistakes_one_game_for_another(alice):
    game = services.create_game(creator=alice, kind="knonsters", per_move=None, seats=[{"user": "alice"}, {"bot": "random"}])
    game.refresh_from_db()
    states.put(game, game.version, load_state(game, cached=False))
    first = states.get(game, game.version)
    first["hands"] = "scribbled on"
    assert states.get(game, game.version)["hands"] != "scribbled on"
    reused_id = Game(pk=game.pk, version=game.version, seed="0" * 64)  # another game that got the same id
    assert states.get(reused_id, game.version) is None


def test_it_brings_the_game_just_played_to_the_top_of_my_list(alice):
    from games.selectors import live_games

    older, newer = (services.create_game(creator=alice, kind="knonsters", per_move=None,
                                         seats=[{"user": "alice"}, {"bot": "random"}]) for _ in range(2))
    assert [g.pk for g in live_games(alice)] == [newer.pk, older.pk]
    older.refresh_from_db()
    services.act(older.pk, 0, action=bot_action(older, 0))  # the move writes the game row itself
    assert [g.pk for g in live_games(alice)] == [older.pk, newer.pk]
