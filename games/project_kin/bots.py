"""Bots for Project_Kin: a uniform random bot and a greedy heuristic bot.

Project_Kin has perfect information, so the view a seat receives is the whole
public board; the bots use only the view's content and the rules' own
simulation of a legal move.
"""

from __future__ import annotations

from . import rules


def random_bot(state, seat, rng):
    return rules._copy_action(rng.choice(rules._legal_entry(state, seat)[1]))


def _evaluate(state, seat):
    res = rules.result(state)
    if res is not None:
        if seat in res["winners"] and len(res["winners"]) == 1:
            return 10_000
        return -10_000 if res["winners"] else 0
    score = 0.0
    dist = rules.BOARD["dist"]
    for p in rules._pieces(state):
        sign = 1 if p["seat"] == seat else -1
        if p["zone"] == "out":
            score += sign * 60
        elif p["zone"] == "board":
            d = dist[p["seat"]].get(p["at"], 12)
            score += sign * (20 + (14 - min(d, 14)) * 2)
            if p["type"] == "king":
                score += sign * 30
    bomb = state["bomb"]
    if bomb["carrier"]:
        carrier = rules._piece(state, bomb["carrier"])
        sign = 1 if carrier["seat"] == seat else -1
        left = rules.turns_left(state)
        value = 15
        if carrier["at"] == rules.BOARD["objective"]:
            value += 60
        if left is not None and left <= 2:
            value -= 25
        score += sign * value
    # a piece standing on a target of an enemy turret is shot when its turn ends
    for tnode, targets in rules.BOARD["turrets"].items():
        owner = rules.BOARD["turret_seat"][tnode]
        for t in targets:
            victim = rules._occupant(state, t)
            if victim and victim["seat"] != owner:
                score += -15 if victim["seat"] == seat else 15
    score += 4 * state["points"][seat] - 4 * state["points"][1 - seat]
    return score


def _after(state, events):
    s = rules._clone(state)
    for e in events:
        s = rules.evolve(s, e)
    return s


class _NoRng:
    def randint(self, a, b):
        return (a + b) // 2

    def randbelow(self, n):
        return 0


def heuristic_bot(state, seat, rng):
    legal = rules.legal_actions(state, seat)
    view = rules.view(state, seat)
    for item in legal:
        if item["action"]["type"] == "deliver":
            return item["action"]
    if state["turn"]["phase"] == "start":
        mine = view["active"][seat]
        spawn = [i for i in legal if i["action"]["type"] == "spawn"]
        if spawn and (mine < 2 or rng.randbelow(3) == 0):
            normal = [i for i in spawn if i["action"]["kind"] != "bulldozer"]
            return (normal or spawn)[0]["action"]
        others = [i for i in legal if i["action"]["type"] in ("pass", "defuse", "special")]
        best, best_score = None, None
        for item in others:
            after = _after(state, rules.decide(state, seat, item["action"], _NoRng()))
            sc = _evaluate(after, seat)
            if best_score is None or sc > best_score:
                best, best_score = item, sc
        if best is not None and best_score > _evaluate(state, seat) + 5:
            return best["action"]
        return {"type": "roll"}
    best, best_score = [], None
    for item in legal:
        after = _after(state, rules.decide(state, seat, item["action"], _NoRng()))
        sc = _evaluate(after, seat)
        if best_score is None or sc > best_score:
            best, best_score = [item], sc
        elif sc == best_score:
            best.append(item)
    return rng.choice(best)["action"]
