"""Two web server processes over one database: a game changed through one is seen at once by the
other, by its next GET and its next move, never a stale row (nothing of a game is kept in a
process between requests but StateCache's immutable states)."""

from __future__ import annotations

import http.client
import json
import os
import subprocess
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from rest_framework.authtoken.models import Token

from games import services
from tests.conftest import start_server, wait_listening
from tests.services.conftest import database_url

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def two_servers(tmp_path):
    """Two ``python -m kinplay.server`` processes (one worker each) on the test database."""
    env = dict(os.environ, WEB_WORKERS="1", DATABASE_URL=database_url(), KINPLAY_VAR=str(tmp_path), PYTHONPATH=str(ROOT))
    env.pop("REDIS_URL", None)  # the throttles' counters in files under KINPLAY_VAR: nothing else shared
    started = []
    try:
        for _ in range(2):
            started.append(start_server(env))
        for proc, port in started:
            wait_listening(proc, port)
        yield [port for _, port in started]
    finally:
        for proc, _ in started:
            proc.terminate()
        for proc, _ in started:
            try:
                proc.wait(30)
            except subprocess.TimeoutExpired:
                proc.kill()


def call(port, user, method, path, body=None):
    token = Token.objects.get_or_create(user=user)[0].key
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    connection.request(method, path, body=None if body is None else json.dumps(body),
                       headers={"Authorization": f"Token {token}", "Content-Type": "application/json"})
    answer = connection.getresponse()
    content = json.loads(answer.read() or b"null")
    connection.close()
    return answer.status, content


def move(port, user, game_id, version):
    """The first legal action of ``user``'s seat, at the version the client last saw; the game in the answer."""
    status, game = call(port, user, "GET", f"/api/games/{game_id}/")
    assert status == 200, game
    status, answer = call(port, user, "POST", f"/api/games/{game_id}/actions/",
                          {"action": game["legal_actions"][0]["action"], "expected_version": version})
    assert status == 201, answer
    return answer.get("game", answer)


def test_it_shows_each_process_the_game_as_the_other_left_it(alice, bob, two_servers, purgeable_events):
    first, second = two_servers
    game = services.create_game(creator=alice, kind="knonsters", per_move=None, seats=[{"user": "alice"}, {"user": "bob"}],
                                accepted=True)
    players = {s.index: s.user for s in game.seat_list}
    version = game.version
    for turn in range(6):
        here, there = (first, second) if turn % 2 == 0 else (second, first)
        status, content = call(here, alice, "GET", f"/api/games/{game.pk}/")
        assert status == 200 and content["version"] == version  # what the other process wrote last
        player = players[content["to_act"][0]]
        moved = move(here, player, game.pk, version)
        assert moved["version"] > version
        version = moved["version"]
        status, content = call(there, alice, "GET", f"/api/games/{game.pk}/")
        assert status == 200 and content["version"] == version  # at once, in the other process


def test_it_names_a_renamed_player_at_once_in_the_process_that_last_moved(alice, bob, two_servers, purgeable_events):
    """What no version covers (a player's name and address) is read with the row, every time."""
    first, _ = two_servers
    game = services.create_game(creator=alice, kind="knonsters", per_move=None, seats=[{"user": "alice"}, {"bot": "random"}])
    moved = move(first, alice, game.pk, game.version)
    get_user_model().objects.filter(pk=alice.pk).update(username="alicia")  # as another process would
    moved = move(first, alice, game.pk, moved["version"])
    assert "alicia" in json.dumps(moved) and '"alice"' not in json.dumps(moved)
