"""Thousands of whole bot games through the shared harness (tests/games/harness.py).

The games are spread over two worker processes (the machine has two cores), each game
still played and checked by ``harness.play``.
"""

import multiprocessing
import os

from games.registry import Kind
from tests.games.harness import play

OPTION_SETS = [
    {},
    {"vote_seconds": 10, "reaction_seconds": 10},
    {"vote_seconds": 3600, "reaction_seconds": 45},
    {"vote_seconds": 86400, "reaction_seconds": 604800},
]
BOTS = ["random", "heuristic"]


def _one(i):
    kind = Kind("kenta")
    n = 2 + i % 4
    options = OPTION_SETS[(i // 4) % len(OPTION_SETS)]
    mode = (i // 16) % 3
    if mode == 0:
        bot = "random"
    elif mode == 1:
        bot = "heuristic"
    else:
        bot = [BOTS[(i + s) % 2] for s in range(n)]
    resign_at = 30 + i % 50 if i % 23 == 0 else None
    events, state = play(kind, n, options, f"kenta-bulk-{i}", bot=bot, check_every=61,
                         resign_at=resign_at)
    res = kind.rules.result(state)
    assert res is not None
    assert len(res["ranks"]) == n and len(res["scores"]) == n and res["winners"]
    assert all(res["ranks"][w] == 1 for w in res["winners"])
    return n, state["end"]["why"] if state["end"] else "resign", len(events)


def _run(indices):
    workers = min(2, os.cpu_count() or 1)
    if workers > 1:
        with multiprocessing.get_context("fork").Pool(workers) as pool:
            return pool.map(_one, indices, chunksize=25)
    return [_one(i) for i in indices]


def test_it_plays_two_thousand_games_over_every_player_count_and_option_set():
    out = _run(range(2000))
    assert len(out) == 2000
    counts = {n: sum(1 for o in out if o[0] == n) for n in range(2, 6)}
    assert all(c >= 400 for c in counts.values())
    whys = {o[1] for o in out}
    assert {"pawn", "line", "pile", "resign"} <= whys
