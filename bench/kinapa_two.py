#!/usr/bin/env python3
"""Kinapa 2-player fidelity figures (issue 13): plays N bot games and counts

* lock-outs: a player with no legal move for 10 or more rounds in a row while holding the Foxes;
* the longest such run (rounds without a legal move because of a penalty);
* wins with cards still in hand, games ended by the round limit, Switches played.

    python bench/kinapa_two.py [--games 60] [--bot heuristic|random]

Pure Python, no Django: the rules and the bots only.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from games.engine import clone  # noqa: E402
from games.kinapa import bots, rules  # noqa: E402
from games.rng import Rng  # noqa: E402


def play(seed: str, bot: str):
    fn = bots.heuristic_bot if bot == "heuristic" else bots.random_bot
    events = rules.setup(2, {}, Rng(seed, 0))
    state = {}
    for e in events:
        state = rules.evolve(state, e)
    idle = [0, 0]  # rounds in a row a punished player had no legal move
    worst = [0, 0]
    moved = [False, False]
    fox_at_start = [0, 0]
    last_round = state["round"]
    lie = switches = 0
    for step in range(20_000):
        if rules.result(state) is not None:
            break
        acting = rules.to_act(state)
        for p in acting:
            moved[p] = True
        seat = sorted(acting)[step % len(acting)]
        action = fn(clone(state), seat, Rng(seed, f"bot:{step}"))
        new = rules.decide(state, seat, action, Rng(seed, len(events)))
        for e in new:
            state = rules.evolve(state, e)
            lie += e["type"] == "demand" and bool(e["data"].get("liar"))
            switches += e["type"] == "switch" and not e["data"].get("setup")
        events += new
        if state["round"] != last_round or state["phase"] == "over":
            for p in range(2):
                if not moved[p] and fox_at_start[p] > 0:
                    idle[p] += 1
                else:
                    idle[p] = 0
                worst[p] = max(worst[p], idle[p])
            moved = [p in rules.to_act(state) for p in range(2)]
            fox_at_start = list(state["foxes"])
            last_round = state["round"]
    end = state["end"]
    winner = end.get("winner")
    return {
        "lie": lie > 0,
        "worst": max(worst),
        "won_holding": end["reason"] == "win" and len(state["hands"][winner]) > 0,
        "limit": end["reason"] == "rounds",
        "switches": switches,
    }


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--games", type=int, default=60)
    ap.add_argument("--bot", default="heuristic")
    ap.add_argument("--salt", default="k2")
    args = ap.parse_args()
    runs = [play(f"{args.salt}-{i}", args.bot) for i in range(args.games)]
    lies = [r for r in runs if r["lie"]]
    print(f"{args.games} {args.bot} 2-player games, {len(lies)} with a lie")
    print(f"  locked out 10+ rounds: {sum(r['worst'] >= 10 for r in lies)} of {len(lies)} with a lie")
    print(f"  longest run without a legal move under a penalty: {max((r['worst'] for r in runs), default=0)} rounds")
    print(f"  won with cards in hand: {sum(r['won_holding'] for r in runs)}")
    print(f"  round limit reached: {sum(r['limit'] for r in runs)}")
    print(f"  games with a Switch: {sum(r['switches'] > 0 for r in runs)}")


if __name__ == "__main__":
    main()
