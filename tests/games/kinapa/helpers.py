"""Building Kinapa states by hand (from events) for the scenario tests."""

from __future__ import annotations

from games.engine import clone, event, replay
from games.kinapa import rules
from games.rng import Rng


def start(hands, objects=None, options=None, emperor=None):
    """A game whose deal is given: ``hands`` lists each holder's cards (BOTs after the players in 2p)."""
    two = len(hands) == 4 and all(len(h) == 4 for h in hands) and options and options.get("_two")
    opts = dict(rules.DEFAULTS)
    for k, v in (options or {}).items():
        if not k.startswith("_"):
            opts[k] = v
    n = len(hands) // 2 if two else len(hands)
    top = 8 if two else 2 * n
    objects = list(range(top // 2)) if objects is None else objects
    first = emperor if emperor is not None else next(s for s in range(n) if "A1" in hands[s])
    evs = [
        event("setup", players=n, two_player=bool(two), numbers=top, options=opts,
              **({"fox_rounds": True} if two else {})),
        event("deal", hands=[rules.sort_cards(h) for h in hands], objects=objects),
        event("emperor", seat=first, prev=None, reason="cat"),
        event("round", round=1, emperor=first),
    ]
    return replay(rules, evs), evs


def two_player(hands, bots, objects=None, options=None):
    opts = dict(options or {})
    opts["_two"] = True
    return start(hands + bots, objects, opts)


def act(state, events, seat, action, seed="t"):
    """Apply one decided action; returns (state, all events, new events)."""
    new = rules.decide(state, seat, action, Rng(seed, len(events)))
    state = clone(state)
    for e in new:
        state = rules.evolve(state, e)
    return state, events + new, new


def types(evs):
    return [e["type"] for e in evs]


def answer_all(state, events, raises):
    """Everyone in the window answers: ``raises`` is the set of seats raising a hand."""
    new_all = []
    for p in list(state["waiting"]):
        state, events, new = act(state, events, p, {"type": "answer", "raise": p in raises})
        new_all += new
    return state, events, new_all


# A 4-player deal used by several tests: cards 1..8, all dealt.
DEAL4 = [
    ["A2", "S2", "A3", "A7"],   # A (seat 0)
    ["S7", "A4", "S4", "S5"],   # B (seat 1)
    ["A6", "S6", "S8", "S3"],   # C (seat 2)
    ["A1", "S1", "A5", "A8"],   # D (seat 3) holds the Maneki-Neko
]
