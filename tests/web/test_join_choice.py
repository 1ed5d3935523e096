"""Kenta: "each player chooses an identification card" — a colour picked when joining (issue 13)."""

import pytest

from games import services
from games.models import Game
from games.store import load_state

pytestmark = pytest.mark.django_db


def _kenta_waiting_for_two(api, alice):
    body = {"kind": "kenta", "options": {}, "seats": [{"user": "alice"}, {}, {}], "clock": {"per_move": None}}
    return api(alice).post("/api/games/", body, format="json").json()


def test_it_lets_a_player_joining_by_the_api_choose_a_free_colour(api, alice, bob, charlie):
    game = _kenta_waiting_for_two(api, alice)
    r = api(bob).post(f"/api/games/{game['id']}/join/", {"choice": "purple"}, format="json")
    assert r.status_code == 200
    assert Game.objects.get(pk=game["id"]).options["colors"][:3] == ["red", "purple", "green"]
    taken = api(charlie).post(f"/api/games/{game['id']}/join/", {"choice": "red"}, format="json")
    assert taken.status_code == 409 and "already has red" in taken.json()["detail"]
    api(charlie).post(f"/api/games/{game['id']}/join/", format="json")      # no choice: the seat's colour
    g = Game.objects.get(pk=game["id"])
    assert g.status == Game.ACTIVE and load_state(g)["colors"] == ["red", "purple", "green"]


def test_it_offers_the_free_colours_on_the_join_form(api, alice, bob, signed_in):
    game = _kenta_waiting_for_two(api, alice)
    page = signed_in(bob).get(f"/games/{game['id']}/").content.decode()
    assert '<select name="choice">' in page and '<option value="blue">Blue</option>' in page
    assert '<option value="red">' not in page                                # alice is red
    signed_in(bob).post(f"/games/{game['id']}/join/", {"choice": "yellow"})
    assert Game.objects.get(pk=game["id"]).options["colors"][1] == "yellow"


def test_it_refuses_a_choice_in_a_game_without_one(alice, bob):
    game = services.create_game(creator=alice, kind="knonsters", seats=[{"user": "alice"}, {}])
    with pytest.raises(services.IllegalAction, match="nothing to choose"):
        services.join_game(game.pk, bob, choice="red")
