"""Karenza bots. They read only what ``view(state, seat)`` shows: their own hand and the public table."""

from __future__ import annotations

from typing import Any

from games.karenza import rules


def random_bot(state: dict[str, Any], seat: Any, rng: Any) -> Any:
    legal = rules._actions(state, seat)
    return rng.choice(legal)


def _value(code):
    """How much a card is worth keeping (higher = keep)."""
    c = rules.CARDS[code]
    if c["type"] == "technique":
        return c["power"] + (0.5 if c["function"] == "defence" else 0)
    if c["ability"] in ("attack", "defence"):
        return c["power"] + 1.5
    return 3


def _cost(action):
    return sum(_value(c) for c in [action["card"]] + action.get("addons", []))


def heuristic_bot(state, seat, rng):
    # Only what this seat may see: its own hand (through legal_actions) and the public table.
    v = {"under_attack": rules.other(state["attack"]["by"]) if state["attack"] else None,
         "attack": state["attack"], "in_sequence": rules.in_sequence(state)}
    me = {"hand_count": len(state["players"][seat]["hand"])}
    legal = rules._actions(state, seat)
    by_type = {}
    for a in legal:
        by_type.setdefault(a["type"], []).append(a)

    if "discard" in by_type:
        return min(by_type["discard"], key=lambda a: (_value(a["card"]), a["card"]))

    def power(a, role):
        return rules.card_power(state, seat, rules.CARDS[a["card"]], a.get("addons", []), role)

    if v["under_attack"] == seat:
        attack = v["attack"]["power"]
        options = by_type.get("defend", [])
        if not options:
            return {"type": "pass"}
        # prefer a defence that earns the extra turn, then the cheapest one
        def score(a):
            extra = power(a, "defence") > attack
            return (0 if extra else 1, _cost(a), len(a.get("addons", [])))
        return min(options, key=score)

    attacks = by_type.get("attack", [])
    if attacks:
        best = max(attacks, key=lambda a: (power(a, "attack") - 0.3 * len(a["addons"]), -_cost(a)))
        best_power = power(best, "attack")
        if v["in_sequence"] or best_power >= 3 or me["hand_count"] >= 7 or "draw" not in by_type:
            return best
    if "draw" in by_type and me["hand_count"] < 7:
        return {"type": "draw"}
    tricks = by_type.get("trick", [])
    if tricks and rng.randbelow(3) == 0:
        return rng.choice(tricks)
    if "draw" in by_type:
        return {"type": "draw"}
    return {"type": "pass"}
