"""Fixed-seed games give exactly what they gave before the engine was made faster (issue 18).

The digests were recorded with the engine as it was before the speed work: a change that alters
a stored event, a view, a legal action, a refusal or a replayed state changes a digest.
"""

import pytest

from games.registry import Kind
from tests.games.golden import fingerprint

GAMES = [
    (2, {}, "random", "d0d3b40554f92e6ce88ed4f71f092e815215e700a0094e114c1baa351a83a514"),
    (3, {"vote_seconds": 3600, "reaction_seconds": 45}, "random",
     "8cb57ae60c36e91bae9f3cabe1e4cbe87f2e0ba2c153dc7c95b0fd7c05daddc2"),
    (5, {}, "heuristic", "777ae7aa7acdbf603811ba8933f9d9756f911651e3ddada68720ac012fb4d393"),
    (4, {}, ["random", "heuristic", "random", "heuristic"],
     "a72f48a773dc23b37de033c905a5af64a4be743c7aff19de6eaa6ad8957e58db"),
]


@pytest.mark.parametrize("i", range(len(GAMES)))
def test_it_plays_a_fixed_seed_game_exactly_as_before(i):
    n, options, bot, digest = GAMES[i]
    assert fingerprint(Kind("kenta"), n, options, f"golden-kenta-{i}", bot=bot) == digest
