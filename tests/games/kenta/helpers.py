"""Scenario helpers: Kenta states built from hand-written events, a scripted RNG."""

from games.engine import apply, event, replay
from games.kenta import rules as R

OPTS = {"vote_seconds": 60, "reaction_seconds": 60}


class Script:
    """An RNG whose dice are scripted; shuffles keep their order."""

    def __init__(self, dice=()):
        self.dice = list(dice)

    def choice(self, seq):
        seq = list(seq)
        if self.dice and seq == R.FACES:
            v = self.dice.pop(0)
            assert v in seq
            return v
        return seq[0]

    def shuffled(self, seq):
        return list(seq)

    def randbelow(self, n):
        return 0


def game(n=3, hands=None, pile=None, objectives=None, first=0, disc="black", line=25, pos=None,
         options=None):
    """A state at the start of ``first``'s turn (before the roll)."""
    hands = hands if hands is not None else [["sprint"] for _ in range(n)]
    objectives = objectives or ["last"] + [f"color-{R.COLORS[(s + 1) % n]}" for s in range(1, n)]
    pile = pile if pile is not None else ["dash"] * 30
    evs = [event("setup", n=n, options=options or OPTS, colors=R.COLORS[:n], disc=disc, line=line,
                 first=first, hands=hands, objectives=objectives, pile=pile),
           event("turn", seat=first)]
    if pos:
        evs.append(event("move", moves=[{"seat": s, "from": 0, "to": p} for s, p in enumerate(pos)],
                         why="test"))
    return replay(R, evs)


def rolled(state, black, white):
    return apply(R, state, [event("roll", seat=state["active"], black=black, white=white)])


def at_cards(state):
    return apply(R, state, [event("cards", seat=state["active"])])


def act(state, seat, action, rng=None):
    evs = R.decide(state, seat, action, rng or Script())
    return apply(R, state, evs), evs


def types(evs):
    return [e["type"] for e in evs]


def notations(state, seat):
    return [a["notation"] for a in R.legal_actions(state, seat)]


def everyone_passes(state):
    evs = []
    while state["react"]:
        seat = state["react"]["waiting"][0]
        state, new = act(state, seat, {"type": "pass"})
        evs += new
    return state, evs
