"""Fixed-seed games give exactly what they gave before the engine was made faster (issue 18).

The digests were recorded with the engine as it was before the speed work: a change that alters
a stored event, a view, a legal action, a refusal or a replayed state changes a digest.
"""

import pytest

from games.registry import Kind
from tests.games.golden import fingerprint

GAMES = [
    ({}, "random", "0e862bfda77e20981ca7ebadadfd848b576488ff67aaf22f042c06e9ee288956"),
    ({"mode": "demolition"}, "random", "49b00127ee1e4d1b061aeacbaca8c23581ad296be3b78e12d259f6aa53dd6cfa"),
    ({"variant": "to_kingdom_come"}, ["heuristic", "random"],
     "88538137ebd509577c1b2552c305839ecc7d8ac2c29fb7744a5a640beee5a1cc"),
    ({"mode": "demolition", "variant": "to_kingdom_come", "fuse_seconds": 45}, "random",
     "01b9e1059f7155e1ce1bc07220d89e28d73406bf2ab64bbf32f7d504287336b6"),
    ({"mode": "standard", "variant": "to_kingdom_come", "fuse_seconds": 30}, "heuristic",
     "d0c6f52a7f03fe486350a50020c7265e531e19e3b58c84a2799ef9415da2cf3c"),
    ({"turn_limit": 20, "fuse_seconds": 45}, "random", "ec8a625e7fe1312fe4ac3c85cba66c229aae0a07dcfb278a6a9502dbf5c46b62"),
]


@pytest.mark.parametrize("i", range(len(GAMES)))
def test_it_plays_a_fixed_seed_game_exactly_as_before(i):
    options, bot, digest = GAMES[i]
    assert fingerprint(Kind("project_kin"), 2, options, f"golden-pk-{i}", bot=bot) == digest
