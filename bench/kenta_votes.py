#!/usr/bin/env python3
"""Kenta heuristic-bot figures (issue 13): share of white markers and where the finish line ends.

    python bench/kenta_votes.py [--games 120] [--players 3]
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from games.engine import clone  # noqa: E402
from games.kenta import bots, rules  # noqa: E402
from games.rng import Rng  # noqa: E402


def play(seed, n):
    events = rules.setup(n, {}, Rng(seed, 0))
    state = {}
    for e in events:
        state = rules.evolve(state, e)
    markers = {"black": 0, "white": 0, "none": 0}
    for step in range(20_000):
        if rules.result(state) is not None:
            break
        acting = rules.to_act(state)
        seat = sorted(acting)[step % len(acting)]
        action = bots.heuristic_bot(clone(state), seat, Rng(seed, f"bot:{step}"))
        for e in rules.decide(state, seat, action, Rng(seed, len(events))):
            state = rules.evolve(state, e)
            events.append(e)
            if e["type"] == "vote" and e["data"].get("marker") in markers:
                markers[e["data"]["marker"]] += 1
    return markers, state["line"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--games", type=int, default=120)
    ap.add_argument("--players", type=int, default=3)
    args = ap.parse_args()
    total = {"black": 0, "white": 0, "none": 0}
    lines = []
    for i in range(args.games):
        m, line = play(f"kv-{i}", args.players)
        for k in total:
            total[k] += m[k]
        lines.append(line)
    votes = total["black"] + total["white"]
    print(f"{args.games} heuristic {args.players}-player games: {votes} markers, "
          f"white {100 * total['white'] / max(votes, 1):.0f}%")
    print(f"  finish line at the end: median {statistics.median(lines)}, "
          f"range {min(lines)}-{max(lines)}, below 20 in {sum(x < 20 for x in lines)} games")


if __name__ == "__main__":
    main()
