"""Fixed-seed games give exactly what they gave before the engine was made faster (issue 18).

The digests were recorded with the engine as it was before the speed work: a change that alters
a stored event, a view, a legal action, a refusal or a replayed state changes a digest. Recorded
again once since, for rules version 2, whose only change to these games is the clock's mark on
a vote's default, ``to_act``'s {"type": "vote", "marker": "none", "timeout": true} (with the
old constant the engine gives the old digests).
"""

import pytest

from games.registry import Kind
from tests.games.golden import fingerprint

GAMES = [
    (2, {}, "random", "35dbe44afa3a880b58d9a16987412f01e180406148f0b4f3e1f1c4cdd38d8377"),
    (3, {"vote_seconds": 3600, "reaction_seconds": 45}, "random",
     "32750a040b47a00e591964ea5b35c887f8d537ff16e5cccca6749de79043a319"),
    (5, {}, "heuristic", "d99b678124045dc7831658a59303f9be3531654cddeeb6bd8b6897be766f4dda"),
    (4, {}, ["random", "heuristic", "random", "heuristic"],
     "ca7e036cfc92a5ef2ab9f19bffc2d657f6734b7b7ce3381aecbd2fe4b0d5fe21"),
]


@pytest.mark.parametrize("i", range(len(GAMES)))
def test_it_plays_a_fixed_seed_game_exactly_as_before(i):
    n, options, bot, digest = GAMES[i]
    assert fingerprint(Kind("kenta"), n, options, f"golden-kenta-{i}", bot=bot) == digest
