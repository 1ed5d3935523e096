"""Kenta bots. Both look only at what the seat may see: its own legal moves and its view."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

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
    b = _Turn(state, seat, rng)
    for kind, choose in CHOOSE:
        if kind in b.types:
            return choose(b)
    return rng.choice(b.acts)


class _Turn:
    """What the heuristic bot weighs a move with: the seat's legal moves and its view."""

    acts: list[Any]
    types: set[Any]
    v: dict[str, Any]
    seat: Any
    rng: Any
    pos: Any
    me_pos: Any
    alive: list[int]
    closer: bool

    def __init__(self, state: Any, seat: Any, rng: Any) -> None:
        legal = rules.legal_actions(state, seat)
        v = self.v = rules.view(state, seat)
        self.acts = [item["action"] for item in legal]
        self.seat = seat
        self.rng = rng
        pos = self.pos = v["positions"]
        self.me_pos = pos[seat]
        self.alive = [p for p in range(v["n"]) if not v["resigned"][p]]
        leader = max(pos[p] for p in self.alive)
        # whether to bring the finish line closer: I lead, or it is far from the leader
        self.closer = bool(self.me_pos == leader or v["line"] - leader > 6)
        self.types = {a["type"] for a in self.acts}

    def first(self, pred: Callable[[Any], Any]) -> Any:
        for a in self.acts:
            if pred(a):
                return a
        return None


# A move of each kind, in this order of the kinds offered (a kind: the type of its actions).

def _vote(b: _Turn) -> Any:
    if b.v["vote"]["kind"] == "winner":
        return b.rng.choice([a for a in b.acts if a["marker"] != "none"])
    # Vote for my own position: if the race ending now would put me ahead, bring the line
    # closer (white); otherwise give myself more room (black).
    want = "white" if _ahead_if_it_ended_now(b.v, b.seat, b.alive) else "black"
    return b.first(lambda a: a.get("marker") == want)


def _react(b: _Turn) -> Any:
    p = b.v["playing"]
    stop = b.first(lambda a: a["type"] == "stop")
    if stop and p and (b.pos[p["seat"]] >= b.me_pos or _net_self_gain(p["card"], p["seat"], b.v) >= 3):
        return stop
    return b.first(lambda a: a["type"] == "pass")


def _die(b: _Turn) -> Any:
    hand = len(b.v["you"]["hand"])

    def score(a: Any) -> Any:
        val = b.v["dice"][a["color"]]
        if val == 4:
            return 1.5 if hand < 5 else 0
        target = b.me_pos + val
        sq = rules.square(target)
        bonus = 0
        if sq["color"] == a["color"]:
            bonus = sq["arrow"]
        if sq["card"]:
            bonus += 1
        return val + bonus
    return max((a for a in b.acts if a["type"] == "die"), key=score)


def _line(b: _Turn) -> Any:
    return b.first(lambda a: a["dir"] == ("back" if b.closer else "forward"))


def _kenta(b: _Turn) -> Any:
    return b.first(lambda a: a.get("choice") == ("back" if b.closer else "forward"))


def _target(b: _Turn) -> Any:
    card = rules.CARDS[b.v["playing"]["card"]]
    helps = any(e["do"] in ("move",) and e["who"] == "you" and e["dir"] == "forward"
                for e in card["effects"]) or any(e["do"] == "give" for e in card["effects"])
    pos = b.pos
    key = (lambda a: pos[a["seat"]]) if helps else (lambda a: -pos[a["seat"]])
    return min((a for a in b.acts if a["type"] == "target"), key=key)


def _dir(b: _Turn) -> Any:
    return b.first(lambda a: a["dir"] == ("forward" if a["mover"] == b.seat else "backward"))


def _let_go(b: _Turn) -> Any:
    """A card to discard or give: keep point cards and STOPs; let go of the rest first."""
    def keep(a: Any) -> Any:
        c = rules.CARDS[a["card"]]
        return (c["points"] > 0) * 2 + c["stop"]
    return min(b.acts, key=keep)


def _cards(b: _Turn) -> Any:
    plays = [a for a in b.acts if a["type"] == "play"]
    if plays:
        best = max(plays, key=lambda a: _net_self_gain(a["card"], b.seat, b.v))
        if _net_self_gain(best["card"], b.seat, b.v) >= 1:
            return best
    swaps = [a for a in b.acts if a["type"] == "swap" and not rules.CARDS[a["card"]]["stop"]
             and not rules.CARDS[a["card"]]["points"]]
    if swaps and b.v["uses"] == 0 and b.rng.randbelow(3) == 0:
        return swaps[0]
    return b.first(lambda a: a["type"] == "end")


CHOOSE: Final[tuple[tuple[str, Callable[[_Turn], Any]], ...]] = (
    ("vote", _vote), ("pass", _react), ("die", _die), ("line", _line), ("kenta", _kenta),
    ("target", _target), ("dir", _dir), ("discard", _let_go), ("give", _let_go), ("end", _cards),
)
