"""The deck data file is validated at load; the renderer draws every view."""

import json
from html import escape

import pytest

from games.engine import clone
from games.knonsters import rules as R
from games.knonsters.render import render
from games.registry import Kind
from tests.games.harness import play

GOOD = json.loads((R.DATA_DIR / "deck.json").read_text())


def write(tmp_path, data):
    path = tmp_path / "deck.json"
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    return path


def test_it_loads_the_shipped_deck():
    deck = R.load_deck(R.DATA_DIR / "deck.json")
    assert len(deck["deck"]) == 60 and deck["finish"] == 61


@pytest.mark.parametrize("change,words", [
    (lambda d: "{not json", "JSON"),
    (lambda d: [1, 2], "top level"),
    (lambda d: dict(d, knonsters=["Rithle", "Rithle", "Celya", "Elaari"]), "knonsters"),
    (lambda d: dict(d, box_total=80), "box"),
    (lambda d: dict(d, deal={"2": 16, "3": 14}), "deal"),
    (lambda d: dict(d, deal={"2": 40, "3": 14, "4": 12}), "cannot deal"),
    (lambda d: dict(d, powers=dict(d["powers"], Celya="follow")), "powers"),
    (lambda d: dict(d, points=[48, 24]), "points"),
    (lambda d: dict(d, knonster_cards=[dict(d["knonster_cards"][0], kind="jump")] + d["knonster_cards"][1:]), "kind"),
    (lambda d: dict(d, rank_cards=[dict(d["rank_cards"][0], steps="14")] + d["rank_cards"][1:]), "steps"),
    (lambda d: dict(d, finish_after=-1), "finish_after"),
])
def test_it_refuses_a_malformed_deck_file_loudly(tmp_path, change, words):
    path = write(tmp_path, change(clone(GOOD)))
    with pytest.raises(ValueError) as exc:
        R.load_deck(path)
    assert str(path) in str(exc.value) and words in str(exc.value)


def test_it_refuses_a_missing_deck_file(tmp_path):
    with pytest.raises(ValueError, match="missing.json"):
        R.load_deck(tmp_path / "missing.json")


def test_it_renders_every_seat_and_the_spectator_and_escapes_names():
    kind = Kind("knonsters")
    names = ["<b>Ann</b>", "Bob & co", "Cy", "Di"]
    events, final = play(kind, 4, {"win_bet": True, "superpowers": True}, "render", check_every=1000)
    state = R.evolve({}, events[0])
    for i, e in enumerate(events[1:], 1):
        state = R.evolve(state, e)
        if i % 15 and i != len(events) - 1:
            continue
        for seat in (0, 1, 2, 3, None):
            html = render(R.view(state, seat), seat, names)
            assert html.startswith("<style>") and "<svg" in html and "viewBox" in html
            assert "<b>Ann</b>" not in html and escape("<b>Ann</b>") in html
            if seat is not None and R.to_act(state).get(seat, {}).get("kind") == "turn":
                legal = {a["notation"] for a in R.legal_actions(state, seat)}
                clickable = set(part.split('"')[0] for part in html.split('data-notation="')[1:])
                assert clickable and clickable <= legal
    assert "Game over" in R.describe(events[-1], names) or events[-1]["type"] == "ended"
    assert render({}, None, names)


def _contrast(a, b):
    def lum(h):
        c = [int(h[i:i + 2], 16) / 255 for i in (1, 3, 5)]
        c = [v / 12.92 if v <= .03928 else ((v + .055) / 1.055) ** 2.4 for v in c]
        return .2126 * c[0] + .7152 * c[1] + .0722 * c[2]
    hi, lo = sorted([lum(a), lum(b)], reverse=True)
    return (hi + .05) / (lo + .05)


def test_it_writes_in_the_knonsters_colours_readably():
    """Text in a Knonster's colour (a card's +5, a lane's name) and white numbers on it (the chips,
    the figures) reach 4.5:1; Rithle's yellow gave 2.2:1, white on it too (WCAG AA)."""
    import re

    events, _ = play(Kind("knonsters"), 2, {}, "contrast", check_every=1000)
    state = {}
    for e in events[: len(events) // 2]:
        state = R.evolve(state, e)
    html = render(R.view(state, 0), 0, ["Ann", "Bob"])
    ink = set(re.findall(r'<b style="color:(#[0-9a-f]{6})"', html))  # the cards' big labels
    ink |= set(re.findall(r'<text [^>]*fill="(#[0-9a-f]{6})" font-weight="bold">(?:Rithle|Aristas|Celya|Elaari)<', html))
    under_white = set(re.findall(r'class="knonsters-chip" style="background:(#[0-9a-f]{6})"', html))
    under_white |= set(re.findall(r'<circle [^>]*r="12" fill="(#[0-9a-f]{6})"', html))
    assert len(ink) >= 4 and len(under_white) >= 4
    low = {c: round(_contrast(c, "#ffffff"), 2) for c in ink | under_white if _contrast(c, "#ffffff") < 4.5}
    low |= {c: round(_contrast(c, "#f7f3e8"), 2) for c in ink if _contrast(c, "#f7f3e8") < 4.5}  # the track
    assert not low, f"colours too light for text: {low}"
