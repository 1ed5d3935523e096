"""A request about one game (a move, a resignation, the game itself) checks the caller's token and
reads the game in one statement (api.authentication.GameTokenAuthentication): as current as two
reads, refused as at once, and never a reason to write over a row that changed since."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from games import selectors, services
from games.models import Event, Game

pytestmark = pytest.mark.django_db


@pytest.fixture
def game(alice):
    return services.create_game(creator=alice, kind="knonsters", per_move=None, seats=[{"user": "alice"}, {"bot": "random"}])


def first_action(game, user):
    game.refresh_from_db()
    return selectors.game_for(game, user)["legal_actions"][0]["action"]


def test_it_checks_the_token_and_reads_the_game_in_one_statement(api, alice, game):
    client = api(alice)
    action = first_action(game, alice)
    with CaptureQueriesContext(connection) as captured:
        answer = client.post(f"/api/games/{game.pk}/actions/", {"action": action}, format="json")
    assert answer.status_code == 201, answer.json()
    statements = [q["sql"] for q in captured.captured_queries]
    tokens = [s for s in statements if "authtoken_token" in s]
    games = [s for s in statements if "json_agg" in s or "json_group_array" in s]  # games.store.game_with_seats
    assert len(tokens) == 1 and games == tokens, statements
    with CaptureQueriesContext(connection) as captured:
        assert client.get(f"/api/games/{game.pk}/").status_code == 200
    assert [q["sql"] for q in captured.captured_queries if "authtoken_token" in q["sql"]] == \
        [q["sql"] for q in captured.captured_queries if "json_agg" in q["sql"] or "json_group_array" in q["sql"]]


def test_it_refuses_a_replaced_token_and_a_deactivated_player_at_a_game_s_address(api, alice, game):
    from rest_framework.authtoken.models import Token

    client = api(alice)
    action = first_action(game, alice)
    assert client.get(f"/api/games/{game.pk}/").status_code == 200
    Token.objects.filter(user=alice).delete()  # a new token from the settings page replaces it
    Token.objects.create(user=alice)
    for answer in (client.get(f"/api/games/{game.pk}/"),
                   client.post(f"/api/games/{game.pk}/actions/", {"action": action}, format="json"),
                   client.post(f"/api/games/{game.pk}/resign/")):
        assert answer.status_code == 401 and answer.json()["error"] == "not_authenticated"
    client = api(alice)
    alice.is_active = False
    alice.save()
    answer = client.post(f"/api/games/{game.pk}/actions/", {"action": action}, format="json")
    assert answer.status_code == 401 and "inactive" in answer.json()["detail"]
    assert Game.objects.get(pk=game.pk).version == game.version  # nothing was played


def test_it_tells_no_game_from_a_bad_token(api, alice, game):
    missing = game.pk + 1000
    assert api(alice).get(f"/api/games/{missing}/").status_code == 404
    assert api(alice).post(f"/api/games/{missing}/actions/", {"action": {"type": "x"}}, format="json").status_code == 404
    bad = api()
    bad.credentials(HTTP_AUTHORIZATION="Token nope")
    assert bad.get(f"/api/games/{missing}/").status_code == 401
    assert bad.get(f"/api/games/{game.pk}/").status_code == 401


def test_it_moves_on_the_row_as_it_is_when_it_changed_after_the_token_check(api, alice, game, monkeypatch):
    """Another process writes the row between the statement that read it with the token and the
    move's write: the move is made again on the row as it is now, the other write kept."""
    action = first_action(game, alice)
    real = services.act

    def written_meanwhile(*args, **kwargs):
        assert kwargs["game"] is not None  # the row the token check read
        Game.objects.filter(pk=game.pk).update(rated=False)
        return real(*args, **kwargs)

    monkeypatch.setattr(services, "act", written_meanwhile)
    answer = api(alice).post(f"/api/games/{game.pk}/actions/", {"action": action, "expected_version": game.version},
                             format="json")
    assert answer.status_code == 201, answer.json()
    row = Game.objects.get(pk=game.pk)
    assert row.rated is False and row.version == answer.json()["version"] > game.version
    assert Event.objects.filter(game=game, seq__gt=game.version).count() == row.version - game.version


def test_it_reads_the_game_itself_for_a_session(client, alice, game):
    client.force_login(alice)
    answer = client.get(f"/api/games/{game.pk}/")
    assert answer.status_code == 200 and answer.json()["you"] == 0
