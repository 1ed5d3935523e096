"""decide accepts exactly the actions legal_actions lists (it validates without enumerating)."""

import itertools

from games.engine import IllegalAction, replay
from games.karenza import rules
from games.registry import Kind
from games.rng import Rng
from tests.games.harness import play


def _candidates(state, seat):
    hand = state["players"][seat]["hand"]
    codes = sorted(rules.CARDS)
    yield {"type": "draw"}
    yield {"type": "pass"}
    yield {"type": "pass", "extra": 1}
    yield {"type": "attack", "card": ["swallow"], "addons": []}
    yield {"type": "attack", "card": "swallow", "addons": "quick-hands"}
    yield {"type": "attack", "card": "swallow", "addons": [["quick-hands"]]}
    yield {"type": "trick", "card": ["smoke-veil"]}
    yield {"type": "trick", "card": "recall", "target": ["swallow"]}
    yield {"type": "discard", "card": {"code": "swallow"}}
    yield {"type": "defend", "card": None, "addons": []}
    for code in codes:
        yield {"type": "discard", "card": code}
        yield {"type": "trick", "card": code}
        for target in codes[:8] + sorted(set(rules.discard_of(state["players"][seat]))):
            yield {"type": "trick", "card": code, "target": target}
    for verb in ("attack", "defend"):
        for code in sorted(set(hand)) + ["viper", "avalanche"]:
            yield {"type": verb, "card": code, "addons": []}
            for n in (1, 2):
                for pile in itertools.permutations(sorted(hand), n):
                    yield {"type": verb, "card": code, "addons": list(pile)}


def test_it_accepts_exactly_the_listed_moves():
    kind = Kind("karenza")
    checked = 0
    for i in range(8):
        events, _ = play(kind, 2, {"characters": [["michi", "eka"], ["eka", "michi"]][i % 2]}, f"eq-{i}",
                         bot=["heuristic", "random"])
        for cut in range(9, len(events), 9):
            state = replay(rules, events[:cut])
            if rules.result(state):
                continue
            seat = state["turn"]
            legal = [item["action"] for item in rules.legal_actions(state, seat)]
            for action in _candidates(state, seat):
                try:
                    rules.decide(state, seat, action, Rng("eq", cut))
                    accepted = True
                except IllegalAction:
                    accepted = False
                assert accepted == (action in legal), (action, legal)
                checked += 1
    assert checked > 5000


def test_it_gives_the_bots_the_listed_moves_in_their_order():
    """The bots read ``_actions``, a label-free twin of legal_actions: the same moves, in the same
    order (so the same seeded pick), resign left out."""
    kind = Kind("karenza")
    compared = 0
    for i in range(8):
        events, _ = play(kind, 2, {"characters": [["michi", "eka"], ["eka", "michi"]][i % 2]}, f"bots-{i}",
                         bot=["heuristic", "random"])
        for cut in range(1, len(events)):
            state = replay(rules, events[:cut])
            for seat in (0, 1):
                listed = [item["action"] for item in rules.legal_actions(state, seat)]
                assert rules._actions(state, seat) == [a for a in listed if a["type"] != "resign"]
                compared += 1
    assert compared > 1000
