"""Building Knonsters states for scenario tests."""

from games.engine import apply, event, replay
from games.knonsters import rules as R
from games.rng import Rng

FAVS = [["Rithle", "Aristas"], ["Celya", "Elaari"], ["Rithle", "Celya"], ["Aristas", "Elaari"]]


def race(n=2, options=None, hands=None, favs=None, bets=None, pos=None, podium=(), pile=None, turn=0):
    """A race in progress: setup + favourites from events, then the track set by hand."""
    opts = {"win_bet": False, "superpowers": False}
    opts.update(options or {})
    if hands is None:
        hands = [["rank2", "rank3", "rank4", "Elaari+5", "Elaari+7", "Celya+5"] for _ in range(n)]
        hands = hands[:n]
    favs = favs or FAVS[:n]
    bets = bets or [f[0] if opts["win_bet"] else None for f in favs]
    events = [event("setup", n=n, options=opts, hands=hands, first=turn)]
    for s in range(n):
        events.append(event("chosen", seat=s, knonsters=list(favs[s]), bet=bets[s]))
    events.append(event("race_started", first=turn))
    st = replay(R, events)
    st["pos"].update(pos or {})
    st["podium"] = list(podium)
    for k in podium:
        st["pos"][k] = R.GOAL
    if pile is not None:
        st["pile"] = sorted(pile)
    return st


def act(state, seat, action, seed="t"):
    """decide + evolve: (events, new state)."""
    evs = R.decide(state, seat, action, Rng(seed, 1))
    return evs, apply(R, state, evs)


def play(state, seat, card, seed="t"):
    return act(state, seat, {"type": "play", "card": card}, seed)


def moves_of(evs):
    return [m for e in evs if e["type"] == "played" for m in e["data"]["moves"]]
