"""Build Karenza tables by hand from events, and act on them."""

from __future__ import annotations

from games.engine import IllegalAction, apply, event, replay
from games.karenza import rules
from games.rng import Rng

FILLER = {"michi": "low-sweep", "eka": "rockslide"}


def table(hand0, hand1, deck0=None, deck1=None, chars=("michi", "eka"), first=0):
    """A game whose hands and decks are exactly these (decks default to 10 filler cards)."""
    deck0 = [FILLER[chars[0]]] * 10 if deck0 is None else list(deck0)
    deck1 = [FILLER[chars[1]]] * 10 if deck1 is None else list(deck1)
    events = [event("started", characters=list(chars), first=first)]
    full = [list(hand0) + deck0, list(hand1) + deck1]
    for seat in range(2):
        events.append(event("deck", seat=seat, cards=full[seat], count=len(full[seat])))
    for seat, hand in enumerate((hand0, hand1)):
        events.append(event("drew", seat=seat, cards=list(hand), count=len(hand), reason="deal"))
    events.append(event("turn", seat=first, extra=False))
    return replay(rules, events), events


class Game:
    """A state and its event log, moved on by ``do``."""

    def __init__(self, *args, **kwargs):
        self.state, self.events = table(*args, **kwargs)

    def do(self, seat, action, seed="t"):
        if isinstance(action, str):
            match = [i["action"] for i in rules.legal_actions(self.state, seat) if i["notation"] == action]
            if not match:
                raise IllegalAction(f"{action!r} is not legal; legal: "
                                    + ", ".join(i["notation"] for i in rules.legal_actions(self.state, seat)))
            action = match[0]
        new = rules.decide(self.state, seat, action, Rng(seed, len(self.events)))
        self.state = apply(rules, self.state, new)
        self.events += new
        return new

    def notations(self, seat):
        return [i["notation"] for i in rules.legal_actions(self.state, seat)]

    def types(self, new):
        return [e["type"] for e in new]

    @property
    def p(self):
        return self.state["players"]
