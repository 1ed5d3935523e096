"""Views, redaction (perfect information), leak checks and the rendered page."""

import re

from games.engine import canonical, replay
from games.project_kin import render, rules
from games.registry import Kind
from tests.games.harness import play, received

from .helpers import act, board


def _midgame(seed="views", **options):
    events, _ = play(Kind("project_kin"), 2, options, seed)
    cut = max(2, len(events) // 2)
    return events[:cut], replay(rules, events[:cut])


def test_it_shows_both_players_and_spectators_the_whole_board():
    events, s = _midgame(variant="to_kingdom_come")
    v0, v1, vs = rules.view(s, 0), rules.view(s, 1), rules.view(s, None)
    def strip(v):
        return {k: x for k, x in v.items() if k not in ("you", "moves")}
    assert strip(v0) == strip(v1) == strip(vs)
    assert vs["moves"] == [] and vs["you"] is None
    assert len(v0["pieces"]) == len(rules.positions(s))


def test_it_never_puts_the_seed_in_a_view_or_event():
    events, s = _midgame()
    blob = canonical([rules.view(s, 0), rules.view(s, None)] + events)
    assert "seed" not in blob and "views" not in blob  # "views" is the seed of this game


def test_it_redacts_nothing_because_everything_is_public():
    events, s = _midgame(mode="demolition")
    for e in events:
        for seat in (0, 1, None):
            assert rules.redact(e, seat) == e


def test_it_gives_every_seat_the_same_information_whatever_the_seed():
    # the only secret is the RNG seed: a game replayed from the same events under another seed
    # gives every seat and the spectator exactly the same things
    events, s = _midgame("leak-a")
    again = replay(rules, [dict(e) for e in events])
    for seat in (0, 1, None):
        assert received(rules, s, events, seat) == received(rules, again, events, seat)


def test_it_shows_the_turns_left_on_the_tracker_in_every_view():
    s = board(pos={"r1": "M2", "r2": "RG", "b1": "M3", "b2": "M4", "b3": "BG"}, seat=0, roll=1,
              bomb={"carrier": "b1", "pickup": 1, "fuse": False, "countdown": None})
    _, s2 = act(s, 0, "move r1 M3 steal")
    for seat in (0, 1, None):
        b = rules.view(s2, seat)["bomb"]
        assert b["turns_left"] == rules.BOARD["tracker"] - 1 and b["countdown_from"] == 0


def test_it_renders_an_svg_board_with_clickable_moves_and_escaped_names():
    s = board(pos={"r1": "RG", "b1": "BG"}, roll=2)
    html = render.render(rules.view(s, 0), 0, ["<script>x</script>", "Bob & co"])
    assert "<svg" in html and "viewBox" in html and 'width="100%"' in html
    assert "<script>x" not in html and "&lt;script&gt;" in html and "Bob &amp; co" in html
    notations = set(re.findall(r'data-notation="([^"]+)"', html))
    assert notations == {"move r1 L2", "move r1 M2", "move r1 R2"}
    assert all(c.startswith("pk-") for c in re.findall(r'class="([\w-]+)"', html))


def test_it_renders_every_state_of_a_game_for_each_seat_and_spectator():
    events, _ = play(Kind("project_kin"), 2, {"variant": "to_kingdom_come", "mode": "demolition",
                                              "fuse_seconds": 30}, "render-all")
    s = {}
    for i, e in enumerate(events):
        s = rules.evolve(s, e)
        if i % 5 == 0 or i == len(events) - 1:
            for seat in (0, 1, None):
                assert "<svg" in render.render(rules.view(s, seat), seat, ["A", "B"])


def test_it_lets_a_tap_on_the_piece_a_move_lands_on_play_that_move():
    """The piece standing on a move's destination is drawn over the space: a finger on it must
    select the move (it swallowed the tap: only a thin ring of the space around it answered)."""
    s = board(pos={"r1": "M1", "b1": "M3", "b2": "BG"}, roll=2)
    html = render.render(rules.view(s, 0), 0, ["A", "B"])
    pieces = re.findall(r'<g( class="pk-move" data-notation="[^"]+")?><title>Blue \w+ (b\d)', html)
    assert ("", "b2") in pieces  # not a destination: only a picture
    assert (' class="pk-move" data-notation="move r1 M3"', "b1") in pieces
