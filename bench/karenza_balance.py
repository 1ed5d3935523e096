#!/usr/bin/env python3
"""Karenza deck balance (issue 13): heuristic bot against itself, Michi vs Eka, seats alternating.

    python bench/karenza_balance.py [--games 2000] [--salt kb]

Prints Michi wins / Eka wins / draws and, for Michi's share of the decisive games, a 95% Wilson
score interval. A deck is "clearly ahead" when the interval excludes 50%.
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from games.engine import clone  # noqa: E402
from games.karenza import bots, rules  # noqa: E402
from games.rng import Rng  # noqa: E402


def play(seed, characters):
    events = rules.setup(2, {"characters": characters}, Rng(seed, 0))
    state = {}
    for e in events:
        state = rules.evolve(state, e)
    for step in range(20_000):
        if rules.result(state) is not None:
            break
        acting = rules.to_act(state)
        seat = sorted(acting)[step % len(acting)]
        action = bots.heuristic_bot(clone(state), seat, Rng(seed, f"bot:{step}"))
        for e in rules.decide(state, seat, action, Rng(seed, len(events))):
            state = rules.evolve(state, e)
            events.append(e)
    return rules.result(state)["winners"]


def wilson(k, n, z=1.96):
    if n == 0:
        return 0.0, 1.0
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--games", type=int, default=2000)
    ap.add_argument("--salt", default="kb")
    args = ap.parse_args()
    michi = eka = draws = 0
    for i in range(args.games):
        chars = ["michi", "eka"] if i % 2 == 0 else ["eka", "michi"]
        winners = play(f"{args.salt}-{i}", chars)
        if len(winners) != 1:
            draws += 1
        elif chars[winners[0]] == "michi":
            michi += 1
        else:
            eka += 1
    lo, hi = wilson(michi, michi + eka)
    print(f"{args.games} games: Michi {michi} / Eka {eka} / draws {draws}; "
          f"Michi's share of decisive games {michi / max(michi + eka, 1):.1%} (95% CI {lo:.1%}-{hi:.1%})")


if __name__ == "__main__":
    main()
