"""Builders for Project_Kin scenario tests."""

from games.engine import apply, replay
from games.project_kin import rules
from games.rng import Rng


class FixedRng:
    """An Rng stand-in whose die rolls are given in advance."""

    def __init__(self, *rolls):
        self.rolls = list(rolls)

    def randint(self, a, b):
        v = self.rolls.pop(0)
        assert a <= v <= b
        return v

    def randbelow(self, n):
        return 0


def new_game(**options):
    return replay(rules, rules.setup(2, options, Rng("scenario", 0)))


def board(options=None, pos=None, seat=0, roll=None, piece=None, clear=True, **state_extra):
    """A state with the given piece positions ({id: node or zone}); others go to their spawn pool
    (or stay where setup put them when clear is False)."""
    s = new_game(**(options or {}))
    where = dict(rules.positions(s))
    if clear:
        for pid, loc in where.items():
            if loc not in rules.ZONES:
                where[pid] = "spawn"
    where.update(pos or {})
    s["pos"] = rules.encode_positions(where)
    s["turn"] = {"seat": seat, "number": 5, "phase": "start" if roll is None else "move",
                 "roll": roll, "piece": piece, "extra": False}
    s.update(state_extra)
    return s


def notations(state, seat):
    return sorted(a["notation"] for a in rules.legal_actions(state, seat))


def act(state, seat, action, *rolls):
    """decide then evolve: returns (events, new state)."""
    if isinstance(action, str):
        found = [a["action"] for a in rules.legal_actions(state, seat) if a["notation"] == action]
        assert found, f"{action!r} not in {notations(state, seat)}"
        action = found[0]
    events = rules.decide(state, seat, action, FixedRng(*rolls))
    return events, apply(rules, state, events)


def types(events):
    return [e["type"] for e in events]


def P(state):
    """Where every piece is: {piece id: node or zone}."""
    return rules.positions(state)


def place(state, **where):
    pos = dict(rules.positions(state))
    pos.update(where)
    state["pos"] = rules.encode_positions(pos)
