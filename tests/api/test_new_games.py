"""POST /api/games/: the commonest new game (mine against a bot) in few statements, answered as
reading it again would answer, its body read by CreateGameSerializer."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from api import serializers as s
from kinplay.notifications.models import Outbox

pytestmark = pytest.mark.django_db

MINE_AGAINST_A_BOT = {"kind": "knonsters", "options": {}, "seats": [{"user": "alice"}, {"bot": "random"}],
                      "clock": {"per_move": None, "on_timeout": "bot"}}

USUAL = [
    MINE_AGAINST_A_BOT,
    {"kind": "karenza", "seats": [{"user": "alice"}, {"user": "bob"}]},
    {"kind": "kenta", "options": {"colors": True}, "seats": [{}, {"user": "bob"}, {"bot": "heuristic"}],
     "clock": {"per_move": 600, "window": 60, "on_timeout": "skip"}, "rated": False, "invite_only": True},
    {"kind": "knonsters", "seats": [{"user": "alice"}, {}], "clock": {}},
    {"kind": "knonsters", "seats": [{"user": "alice"}, {}], "clock": {"window": None}},
]

UNUSUAL = [
    {"kind": "chess", "seats": [{}]},  # the service names the kinds
    {"kind": " knonsters", "seats": [{}]},  # the serializer trims it
    {"kind": ["knonsters"], "seats": [{}]},
    {"kind": "knonsters", "seats": []},
    {"kind": "knonsters", "seats": [{}] * 17},
    {"kind": "knonsters", "seats": [[]]},
    {"kind": "knonsters", "seats": {"user": "alice"}},
    {"kind": "knonsters", "seats": [{}], "options": []},
    {"kind": "knonsters", "seats": [{}], "clock": None},
    {"kind": "knonsters", "seats": [{}], "clock": {"per_move": "600"}},  # the serializer reads 600
    {"kind": "knonsters", "seats": [{}], "clock": {"per_move": True}},
    {"kind": "knonsters", "seats": [{}], "clock": {"per_move": 0}},
    {"kind": "knonsters", "seats": [{}], "clock": {"per_move": 10**9}},
    {"kind": "knonsters", "seats": [{}], "clock": {"window": 0}},
    {"kind": "knonsters", "seats": [{}], "clock": {"on_timeout": "pass"}},
    {"kind": "knonsters", "seats": [{}], "clock": {"on_timeout": ["bot"]}},
    {"kind": "knonsters", "seats": [{}], "clock": {"per_move": None, "speed": 1}},  # the serializer drops it
    {"kind": "knonsters", "seats": [{}], "rated": "false"},
    {"kind": "knonsters", "seats": [{}], "invite_only": 1},
    {"kind": "knonsters", "seats": [{}], "colour": "red"},
    ["knonsters"],
]


@pytest.mark.parametrize("body", USUAL)
def test_it_creates_a_usual_new_game_as_the_serializer_reads_it(body, api, alice, bob):
    serializer = s.CreateGameSerializer(data=body)
    assert serializer.is_valid(), serializer.errors
    created = api(alice).post("/api/games/", body, format="json")
    if created.status_code == 422:  # past the serializer, refused by the service (Kenta's colors is a list)
        assert created.json()["error"] == "unprocessable" and body["kind"] == "kenta", created.json()
        return
    assert created.status_code == 201, created.json()
    game, asked = created.json(), serializer.validated_data
    assert game["kind"] == asked["kind"] and game["rated"] == asked["rated"]
    assert game["clock"]["on_timeout"] == asked.get("clock", {}).get("on_timeout", "bot")


@pytest.mark.parametrize("body", UNUSUAL)
def test_it_answers_any_other_body_as_the_serializer_reads_it(body, api, alice):
    serializer = s.CreateGameSerializer(data=body)
    answer = api(alice).post("/api/games/", body, format="json")
    if serializer.is_valid():  # read as the serializer reads it; the service may still refuse it
        assert answer.status_code in (201, 422) and answer.json().get("error", "unprocessable") == "unprocessable"
    else:
        assert answer.status_code == 400 and answer.json()["error"] == "invalid", answer.json()


def test_it_answers_a_new_game_as_reading_it_again_would(api, alice, bob):
    bodies = [MINE_AGAINST_A_BOT, {"kind": "karenza", "seats": [{"user": "alice"}, {"user": "bob"}]},
              {"kind": "kenta", "seats": [{"user": "alice"}, {}, {"bot": "random"}], "clock": {"per_move": 600}},
              {"kind": "karenza", "seats": [{"bot": "random"}, {"bot": "heuristic"}], "clock": {"per_move": None}}]
    for body in bodies:
        created = api(alice).post("/api/games/", body, format="json")
        assert created.status_code == 201, created.json()
        assert created.json() == api(alice).get(f"/api/games/{created.json()['id']}/").json()


def test_it_creates_my_game_against_a_bot_in_nine_statements(api, alice):
    client = api(alice)
    client.get("/api/games/")  # as in a session of requests
    with CaptureQueriesContext(connection) as statements:
        created = client.post("/api/games/", MINE_AGAINST_A_BOT, format="json")
    assert created.status_code == 201
    assert Outbox.objects.filter(kind="your_turn", user=alice).count() == 1  # alice moves first, by email
    # the token, the transaction's savepoint, the game, its seats, its events, whether alice
    # turned turn emails off, her "your turn" email, the savepoint's release; and the state for the answer, which a
    # commit would have left in this process's cache (a test's transaction never commits)
    assert len(statements) == 9, "\n".join(q["sql"][:60] for q in statements)
