"""Smaller things of the game page a player reads: the options in words, Kenta's pawns that can
be told apart, Karenza's empty sequence areas that take a line, not a row of empty room."""

import re

import pytest

from games.registry import kinds
from tests.play import accepted

pytestmark = pytest.mark.django_db


def facts(client, game):
    html = client.get(f"/games/{game.pk}/").content.decode()
    return dict(re.findall(r"<dt>(.*?)</dt><dd>(.*?)</dd>", html))


@pytest.mark.parametrize("options, window, vote", [
    ({}, None, "as long as the move clock"),
    ({}, 3600, "as long as the reaction windows (1 hour)"),
    ({"vote_seconds": 120}, None, "2 minutes"),
])
def test_it_says_the_options_in_words(client, alice, options, window, vote):
    from games import services

    game = accepted(services.create_game(creator=alice, kind="kenta", options=options, per_move=86400, window=window,
                                         seats=[{"user": "alice"}, {"bot": "heuristic"}, {"bot": "heuristic"}]))
    client.force_login(alice)
    said = facts(client, game)
    assert said["Vote window"] == vote
    assert not [t for t in said if "seconds" in t]


def test_it_draws_kenta_pawns_a_finger_wide_and_lettered_with_their_colour(client, alice):
    from games import selectors, services

    game = accepted(services.create_game(creator=alice, kind="kenta", options={}, per_move=None,
                                         seats=[{"user": "alice"}, {"bot": "heuristic"}, {"bot": "heuristic"}]))
    client.force_login(alice)
    html = client.get(f"/games/{game.pk}/").content.decode()
    pawns = re.findall(r'<g class="kenta-pawn"><title>[^<]*\((\w+)\)</title><circle [^>]*r="([\d.]+)"[^>]*/><text [^>]*>(\w)</text>', html)
    colours = selectors.game_for(game, alice)["view"]["colors"]
    assert sorted(c for c, _, _ in pawns) == sorted(colours)
    assert all(float(r) >= 7 and letter == c[0].upper() for c, r, letter in pawns), pawns


def karenza_height(view, seat):
    svg = kinds()["karenza"].render(view, seat, ["alice", "bob"])
    return float(re.search(r'class="karenza-table" viewBox="0 0 [\d.]+ ([\d.]+)"', svg).group(1))


def test_it_gives_an_empty_karenza_sequence_area_a_line_not_a_row(alice):
    import copy

    from games import services
    from games.karenza import rules
    from games.store import load_state

    game = accepted(services.create_game(creator=alice, kind="karenza", options={}, per_move=None,
                                         seats=[{"user": "alice"}, {"bot": "heuristic"}]))
    view = rules.view(load_state(game), 0)
    for p in view["players"]:  # the bot may have started
        p["sequence"] = []
    empty = karenza_height(view, 0)
    played = copy.deepcopy(view)
    card = next(iter(view["cards"]))
    played["players"][1]["sequence"] = [{"card": card, "role": "attack", "power": 3, "addons": []}]
    one_row = karenza_height(played, 0)
    assert empty <= 120 < one_row, (empty, one_row)
