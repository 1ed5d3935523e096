"""The log lines and the SVG table, for every seat and the spectator."""

from games.engine import replay
from games.kinapa import render, rules
from games.registry import get
from games.rng import Rng
from tests.games.harness import play

KIND = get("kinapa")


def test_it_describes_every_redacted_event_and_renders_every_view():
    for n in (2, 4, 8):
        events, _ = play(KIND, n, {"round_limit": 15}, f"render-{n}", bot="heuristic", check_every=97,
                         max_steps=2000, resign_at=40 if n == 8 else None)
        names = [f"<P{i}>" for i in range(n)]
        for seat in list(range(n)) + [None]:
            for e in events:
                red = rules.redact(e, seat)
                if red is not None:
                    line = rules.describe(red, names)
                    assert isinstance(line, str) and line
        for cut in (5, len(events) // 2, len(events)):
            state = replay(rules, events[:cut])
            for seat in list(range(n)) + [None]:
                html = render.render(rules.view(state, seat), seat, names)
                assert "<svg" in html and 'viewBox="0 0 360 330"' in html
                assert "<P0>" not in html and "&lt;P0&gt;" in html          # names are escaped
                assert "kinapa-" in html


def test_it_marks_legal_moves_with_their_notation():
    events = rules.setup(4, {}, Rng("r", 0))
    state = replay(rules, events)
    emp = state["emperor"]
    events += rules.decide(state, emp, {"type": "announce", "number": 3}, Rng("r", 1))
    state = replay(rules, events)
    for p in state["waiting"]:
        events += rules.decide(state, p, {"type": "answer", "raise": False}, Rng("r", 2))
        state = replay(rules, events)
    html = render.render(rules.view(state, emp), emp, ["A", "B", "C", "D"])
    for item in rules.legal_actions(state, emp):
        assert f'data-notation="{item["notation"]}"' in html


def test_it_says_in_the_legend_and_the_email_that_a_raised_hand_means_not_holding_the_card():
    """Rulebook p.5: "* Raise your hand * Do nothing / «I don't have the card» «Maybe I have it, maybe
    not»", and p.8: "When a player becomes the Emperor, they also receive, if they do not already have
    one, a Sheep card" (eight Sheep: several players hold one at once). The legend beside the table
    said a raised hand claims to hold the number, and the email's text table that a player "holds
    the sheep"."""
    legend = KIND.legend
    assert "claims to hold" not in legend
    assert "do not hold the announced number" in legend
    assert "Sheep card" in legend
    state = replay(rules, rules.setup(4, {}, Rng("legend", 0)))
    text = render.render_text(rules.view(state, 0), 0, ["A", "B", "C", "D"])
    assert "holds the sheep" not in text and "has a Sheep card" in text
