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
