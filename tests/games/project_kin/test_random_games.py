"""Thousands of whole bot games over every mode x variant x fuse combination (harness.play).

The games are spread over two worker processes (this machine has two cores); each worker
runs harness.play, which checks the contract on the way (legal actions accepted, nonsense
refused, decide leaves its input alone, replay equals the live state, the game ends).
"""

import itertools
import multiprocessing

from games.registry import Kind
from tests.games.harness import play

MODES = ["standard", "demolition"]
VARIANTS = ["none", "to_kingdom_come"]
FUSES = [None, 45]
COMBOS = list(itertools.product(MODES, VARIANTS, FUSES))
GAMES_PER_COMBO = 252  # 8 combinations -> 2,016 games


def _bots(j):
    if j % 4 == 0:
        return ["heuristic", "random"]
    if j % 4 == 2:
        return ["random", "heuristic"]
    if j % 31 == 7:
        return "heuristic"
    return "random"


def _one(job):
    (mode, variant, fuse), j, check_every = job
    options = {"mode": mode, "variant": variant, "fuse_seconds": fuse}
    if j % 9 == 4:
        options["turn_limit"] = 20  # exercise the turn-limit draw as well
    resign_at = 11 if j % 50 == 25 else None
    events, state = play(Kind("project_kin"), 2, options, f"pk:{mode}:{variant}:{fuse}:{j}",
                         bot=_bots(j), check_every=check_every, resign_at=resign_at)
    return state["result"]["reason"], len(events)


def _run(jobs):
    ctx = multiprocessing.get_context("forkserver")
    with ctx.Pool(2) as pool:
        return pool.map(_one, jobs, chunksize=8)


def test_it_plays_two_thousand_random_games_over_every_option_combination_to_the_end():
    jobs = [(combo, j, 60) for combo in COMBOS for j in range(GAMES_PER_COMBO)]
    results = _run(jobs)
    assert len(results) >= 2000
    reasons = " | ".join(r for r, _ in results)
    for ending in ("delivered the bomb", "all their pawns", "no piece left", "King was eliminated",
                   "resigned", "turn limit"):
        assert ending in reasons, f"no game ended by {ending!r}"


def test_it_checks_the_contract_thoroughly_on_a_smaller_batch():
    jobs = [(combo, 1000 + j, 2) for combo in COMBOS for j in range(5)]
    assert len(_run(jobs)) == 40
