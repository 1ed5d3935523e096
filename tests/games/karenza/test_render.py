"""The page fragment: SVG table, own hand only, escaped names, clickable legal moves."""

from games.engine import replay
from games.karenza import rules
from games.karenza.render import render
from games.registry import Kind
from tests.games.harness import play

from .helpers import Game


def test_it_draws_the_table_and_only_my_hand():
    g = Game(["swallow", "quick-hands", "flurry"], ["root", "cleaver", "heavy-grip"], chars=("michi", "eka"))
    g.do(0, "attack swallow + quick-hands")
    mine = render(rules.view(g.state, 1), 1, ["Ann <script>", "Bob"])
    assert "<svg" in mine and "viewBox" in mine and 'width="100%"' in mine
    assert "<script>" not in mine and "Ann &lt;script&gt;" in mine
    assert "Cleaver" in mine and "Heavy Grip" in mine  # my hand
    assert "Flurry" not in mine  # the opponent's hand
    assert 'data-notation="defend root"' in mine
    assert "under attack" in mine
    spectator = render(rules.view(g.state, None), None, ["Ann", "Bob"])
    assert "Cleaver" not in spectator and "Your hand" not in spectator
    assert "Swallow Cut" in spectator and "Quick Hands" in spectator  # the sequence area is public


def test_it_renders_every_stage_of_whole_games():
    kind = Kind("karenza")
    for i in range(3):
        events, _ = play(kind, 2, {}, f"render-{i}", bot="heuristic")
        for cut in range(10, len(events) + 1, 15):
            state = replay(rules, events[:cut])
            for seat in (0, 1, None):
                out = render(rules.view(state, seat), seat, ["A", "B"])
                assert out.startswith("<style>") and "karenza" in out
        state = replay(rules, events)
        final = render(rules.view(state, 0), 0, ["A", "B"])
        assert rules.result(state)["summary"].split(";")[0].split("(")[0] in final
