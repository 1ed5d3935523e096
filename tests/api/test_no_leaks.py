"""A secret of alice's changes nothing bob or a spectator receives, on any channel."""

import pytest

from games.models import Game
from games.rng import seed_digest

pytestmark = pytest.mark.django_db

SEED = "0" * 64


def twin_games(api, alice, bob):
    """Two games dealt from the same seed, alice seated, bob joining both."""
    ids = []
    for _ in range(2):
        r = api(alice).post("/api/games/", {"kind": "knonsters", "seats": [{"user": "alice"}, {}], "clock": {"per_move": None}}, format="json")
        ids.append(r.json()["id"])
    Game.objects.filter(pk__in=ids).update(seed=SEED, seed_sha256=seed_digest(SEED))
    for pk in ids:
        assert api(bob).post(f"/api/games/{pk}/join/").status_code == 200
    return ids


def received(client, pk):
    game = client.get(f"/api/games/{pk}/").json()
    events = client.get(f"/api/games/{pk}/events/").json()
    refused = client.post(f"/api/games/{pk}/actions/", {"notation": "nothing at all"}, format="json").json()
    for e in events:
        e.pop("at")
    for key in ("id",):
        game.pop(key)
    return {"game": game, "events": events, "refused": refused}


def test_it_hides_alices_secret_choice_from_bob_and_spectators(api, alice, bob, charlie):
    one, two = twin_games(api, alice, bob)
    moves = api(alice).get(f"/api/games/{one}/").json()["legal_actions"]
    assert len(moves) > 1
    api(alice).post(f"/api/games/{one}/actions/", {"action": moves[0]["action"]}, format="json")
    api(alice).post(f"/api/games/{two}/actions/", {"action": moves[-1]["action"]}, format="json")
    assert received(api(alice), one) != received(api(alice), two)  # alice does see her own choice
    assert received(api(bob), one) == received(api(bob), two)
    assert received(api(charlie), one) == received(api(charlie), two)
