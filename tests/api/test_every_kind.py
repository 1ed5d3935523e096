"""Every hosted game plays to the end through the public API, and its history checks out."""

import random

import jsonschema
import pytest
from django.core.management import call_command

from games.registry import kinds

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("slug", list(kinds()))
def test_it_plays_a_whole_game_of_each_kind_through_the_api(slug, api, alice, capsys, django_capture_on_commit_callbacks):
    kind = kinds()[slug]
    jsonschema.Draft202012Validator.check_schema(kind.rules.OPTIONS_SCHEMA)
    n = kind.rules.MIN_PLAYERS
    client = api(alice)
    seats = [{"user": "alice"}] + [{"bot": "heuristic"}] * (n - 1)
    r = client.post("/api/games/", {"kind": slug, "seats": seats, "clock": {"per_move": None}}, format="json")
    assert r.status_code == 201, r.json()
    game = r.json()
    pick = random.Random(slug)
    for _ in range(3000):
        if game["status"] != "active":
            break
        assert game["legal_actions"], f"alice must act in {slug} but has no move"
        move = pick.choice(game["legal_actions"])
        body = {"notation": move["notation"]} if pick.random() < 0.5 else {"action": move["action"]}
        with django_capture_on_commit_callbacks(execute=True):  # the worker's share, when bots owe moves
            r = client.post(f"/api/games/{game['id']}/actions/", {**body, "expected_version": game["version"]}, format="json")
        assert r.status_code == 201, r.json()
        game = r.json()["game"]
        if game["status"] == "active" and not game["legal_actions"]:  # the bots played on in the worker
            game = client.get(f"/api/games/{game['id']}/").json()
    assert game["status"] == "finished" and game["result"]["winners"] is not None
    assert game["fairness"]["seed"]
    call_command("verify_game", game["id"])
    assert "OK" in capsys.readouterr().out
