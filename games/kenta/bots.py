"""Kenta bots. Both look only at what the seat may see: its own legal moves and its view."""

from __future__ import annotations

from typing import Any

from . import rules


def random_bot(state: Any, seat: Any, rng: Any) -> Any:
    """A legal move chosen uniformly (from the moves without their texts). The only move (e.g.
    passing without a STOP card) needs no draw: each bot move has an ``rng`` of its own."""
    moves: list[dict[str, Any]] = rules.actions(state, seat)
    return moves[0] if len(moves) == 1 else rng.choice(moves)


def _net_self_gain(key, seat, view):
    """How many squares a card moves me (rough), and whether it sets others back."""
    c = rules.CARDS[key]
    gain = 0
    for e in c["effects"]:
        if e["do"] == "move" and e["who"] in ("me", "all"):
            gain += e["steps"] if e["dir"] != "backward" else -e["steps"]
        if e["do"] == "move" and e["who"] in ("others", "you") and e["dir"] in ("backward", "either"):
            gain += 1
        if e["do"] == "draw" and e["who"] in ("me", "all"):
            gain += 0.5
        if e["do"] == "kenta":
            gain += 0.5
    return gain


def _ahead_if_it_ended_now(v, seat, alive):
    """Whether my pawn would be furthest up after the scoring if the race ended now.

    I know my own objective; the others' are secret, so they count with their public points only.
    """
    pos = v["positions"]
    rank = [None] * v["n"]
    for p in alive:
        rank[p] = 1 + sum(1 for q in alive if pos[q] > pos[p])
    last = max(rank[p] for p in alive)
    guess = {"n": v["n"], "objectives": [v["you"]["objective"]] * v["n"], "resigned": v["resigned"], "line": v["line"]}
    mine = pos[seat] + v["points"][seat] + rules.objective_points(guess, seat, rank, last)
    return all(mine >= pos[p] + v["points"][p] for p in alive if p != seat)


def heuristic_bot(state, seat, rng):
    legal = rules.legal_actions(state, seat)
    v = rules.view(state, seat)
    acts = [item["action"] for item in legal]
    pos = v["positions"]
    me_pos = pos[seat]
    alive = [p for p in range(v["n"]) if not v["resigned"][p]]
    leader = max(pos[p] for p in alive)
    i_lead = me_pos == leader
    line = v["line"]
    types = {a["type"] for a in acts}

    def first(pred):
        for a in acts:
            if pred(a):
                return a
        return None

    if "vote" in types:
        if v["vote"]["kind"] == "winner":
            return rng.choice([a for a in acts if a["marker"] != "none"])
        # Vote for my own position: if the race ending now would put me ahead, bring the line
        # closer (white); otherwise give myself more room (black).
        want = "white" if _ahead_if_it_ended_now(v, seat, alive) else "black"
        return first(lambda a: a.get("marker") == want)
    if "pass" in types:
        p = v["playing"]
        stop = first(lambda a: a["type"] == "stop")
        if stop and p and (pos[p["seat"]] >= me_pos or _net_self_gain(p["card"], p["seat"], v) >= 3):
            return stop
        return first(lambda a: a["type"] == "pass")
    if "die" in types:
        hand = len(v["you"]["hand"])

        def score(a):
            val = v["dice"][a["color"]]
            if val == 4:
                return 1.5 if hand < 5 else 0
            target = me_pos + val
            sq = rules.square(target)
            bonus = 0
            if sq["color"] == a["color"]:
                bonus = sq["arrow"]
            if sq["card"]:
                bonus += 1
            return val + bonus
        return max((a for a in acts if a["type"] == "die"), key=score)
    closer = i_lead or line - leader > 6
    if "line" in types:
        return first(lambda a: a["dir"] == ("back" if closer else "forward"))
    if "kenta" in types:
        return first(lambda a: a.get("choice") == ("back" if closer else "forward"))
    if "target" in types:
        card = rules.CARDS[v["playing"]["card"]]
        helps = any(e["do"] in ("move",) and e["who"] == "you" and e["dir"] == "forward"
                    for e in card["effects"]) or any(e["do"] == "give" for e in card["effects"])
        key = (lambda a: pos[a["seat"]]) if helps else (lambda a: -pos[a["seat"]])
        return min((a for a in acts if a["type"] == "target"), key=key)
    if "dir" in types:
        return first(lambda a: a["dir"] == ("forward" if a["mover"] == seat else "backward"))
    if "discard" in types or "give" in types:
        # Keep point cards and STOPs; let go of the rest first.
        def keep(a):
            c = rules.CARDS[a["card"]]
            return (c["points"] > 0) * 2 + c["stop"]
        return min(acts, key=keep)
    if "end" in types:
        plays = [a for a in acts if a["type"] == "play"]
        if plays:
            best = max(plays, key=lambda a: _net_self_gain(a["card"], seat, v))
            if _net_self_gain(best["card"], seat, v) >= 1:
                return best
        swaps = [a for a in acts if a["type"] == "swap" and not rules.CARDS[a["card"]]["stop"]
                 and not rules.CARDS[a["card"]]["points"]]
        if swaps and v["uses"] == 0 and rng.randbelow(3) == 0:
            return swaps[0]
        return first(lambda a: a["type"] == "end")
    return rng.choice(acts)
