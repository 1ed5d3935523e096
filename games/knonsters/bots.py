"""Knonsters bots. They only use what ``view(state, seat)`` shows the seat."""

from __future__ import annotations

from typing import Any

from games.knonsters import rules


def random_bot(state: dict[str, Any], seat: Any, rng: Any) -> dict[str, Any]:
    """A legal action chosen uniformly: on a turn from the lean ``hand_choices`` (the same
    moves in the same order as ``legal_actions``, so the same pick, without a label each)."""
    phase: str = state["phase"]
    if phase == "race" and not state["offer"] and state["turn"] == seat:  # to_act: a turn
        codes, powered = rules.hand_choices(state, seat)
        i: int = rng.randbelow(len(codes) + len(powered))  # rng.choice of the moves, codes then powered
        if i < len(codes):
            return rules.card_action(state, codes[i])
        code, k = powered[i - len(codes)]
        return rules.power_action(code, k)
    if phase == "choose" and seat in rules.to_act(state):
        # legal_actions' choice of favourites without its deep copy of every item: rng.choice's
        # draw, then a copy of the one action picked
        actions = rules.favourite_actions(state)
        action = dict(actions[rng.randbelow(len(actions))])
        action["knonsters"] = list(action["knonsters"])
        return action
    return rng.choice(rules.legal_actions(state, seat))["action"]


def heuristic_bot(state, seat, rng):
    """The rulebook's robot: random favourites; plays a random card that moves a
    Knonster forward, preferring one that helps its own favourites; discards only
    when no card moves anything. It never uses superpowers and declines the offer
    to let the system finish for it."""
    legal = rules.legal_actions(state, seat)
    v = rules.view(state, seat)
    kinds = {item["action"]["type"] for item in legal}
    if "favourites" in kinds or "auto" in kinds:
        if "auto" in kinds:
            return dict(rules.AUTO_NO)
        return rng.choice(legal)["action"]
    favs = v.get("favourites") or []
    best, best_score = [], None
    for item in legal:
        a = item["action"]
        if a["type"] == "power":
            continue
        score = 0
        if a["type"] == "play":
            moves = rules.simulate(v["positions"], v["podium"], a["card"])
            forward = sum(m["to"] - m["from"] for m in moves)
            mine = sum(m["to"] - m["from"] for m in moves if m["knonster"] in favs)
            score = 1 + (1000 if mine > 0 else 0) + mine
            if forward <= 0:
                score = 0
        if best_score is None or score > best_score:
            best, best_score = [a], score
        elif score == best_score:
            best.append(a)
    if not best:
        return rng.choice(legal)["action"]
    return rng.choice(best)
