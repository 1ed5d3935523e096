"""Kinapa bots: they look only at what ``view(state, seat)`` shows and at their own moves."""

from __future__ import annotations

from games.kinapa import rules


def random_bot(state, seat, rng):
    return dict(rng.choice(rules.actions(state, seat)))


def _num(card):
    return int(card[1:])


def _wants_switch(numbers, occupied, free_objects, rng):
    """The 2-player Switch, played as a person would: when the hand is stuck.

    Dead cards (their number's object already holds the other pair) can never leave the hand,
    and with no pair to put down the missing cards may well lie in one's own BOT, which nobody
    ever takes from: then now and then take the BOT up instead of asking again.
    """
    dead = sum(1 for x in numbers if x in occupied)
    if dead >= 2:
        return True
    placeable = any(numbers.count(x) >= 2 and x not in occupied for x in numbers)
    if placeable:
        return False
    return rng.randbelow(100) < 25


def heuristic_bot(state, seat, rng):
    legal = rules.legal_actions(state, seat)
    actions = [item["action"] for item in legal]
    v = rules.view(state, seat)
    kinds = {a["type"] for a in actions}
    hand = v["hand"] or []
    numbers = [_num(c) for c in hand]
    free_objects, taken_numbers, occupied = _objects_seen(v)
    if kinds == {"answer"}:
        return _answer(v, numbers, rng)
    if "announce" in kinds:
        if "switch" in kinds and _wants_switch(numbers, occupied, free_objects, rng):
            return {"type": "switch"}
        return _announce(actions, numbers, occupied, free_objects, taken_numbers, rng)
    if "take" in kinds:
        return _take(v, actions, rng)
    if "give" in kinds:
        return _give(actions, numbers, occupied, free_objects, rng)
    if "flip" in kinds:
        return _flip(v, actions, numbers, rng)
    return rng.choice(actions)


def _objects_seen(v):
    """From the view ``v``: number -> position of a known object without a pair, the numbers
    put down as pairs, and the numbers of the objects that hold a pair."""
    free_objects = {}
    for o in v["objects"]:
        if o["object"] is not None and o["pair"] is None:
            for x in o["numbers"]:
                free_objects[x] = o["pos"]
    taken_numbers = {o["pair"]["number"] for o in v["objects"] if o["pair"]}
    occupied = set()
    for o in v["objects"]:
        if o["pair"] is not None and o["numbers"]:
            occupied.update(o["numbers"])
    return free_objects, taken_numbers, occupied


def _answer(v, numbers, rng):
    if v["announced"] in numbers:
        # Bluff now and then: raising protects the card but risks the Foxes.
        lie = rng.randbelow(100) < 25
        return {"type": "answer", "raise": lie}
    return {"type": "answer", "raise": True}


def _announce(actions, numbers, occupied, free_objects, taken_numbers, rng):
    """Ask for the missing half of a pair that can still be put down, a known object's first."""
    singles = [x for x in numbers if numbers.count(x) == 1 and x not in occupied]
    if singles:
        best = [x for x in singles if x in free_objects] or singles
        want = rng.choice(best)
        return {"type": "announce", "number": want}
    choices = [a for a in actions if a["type"] == "announce" and a["number"] not in taken_numbers]
    return rng.choice(choices or actions)


def _take(v, actions, rng):
    """From a punished player whose face-up cards show the number, else from a player (not a BOT)."""
    k = v["announced"]
    for a in actions:
        h = a["from"]
        if h < len(v["players"]):
            info = v["players"][h]
            if info["public"] and k in [_num(c) for c in info["public"]]:
                return a
    players = [a for a in actions if a["from"] < len(v["players"])]
    return rng.choice(players or actions)


def _give(actions, numbers, occupied, free_objects, rng):
    """One of the cards least worth keeping."""
    low = min(_worth(a["card"], numbers, occupied, free_objects) for a in actions)
    return rng.choice([a for a in actions if _worth(a["card"], numbers, occupied, free_objects) == low])


def _worth(card, numbers, occupied, free_objects):
    x = _num(card)
    score = 0
    if numbers.count(x) >= 2 and x not in occupied:
        score += 10  # keep pairs that can still be put down
    if x in free_objects:
        score += 2
    if x in occupied:
        score -= 5  # a pair of this number can never be put down
    return score


def _flip(v, actions, numbers, rng):
    """A known object the hand holds a pair for, else one never seen."""
    for a in actions:
        o = v["objects"][a["pos"]]
        if o["object"] is not None and any(numbers.count(x) >= 2 for x in o["numbers"]):
            return a
    unknown = [a for a in actions if v["objects"][a["pos"]]["object"] is None]
    return rng.choice(unknown or actions)
