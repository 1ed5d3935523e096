"""Fixed-seed games give exactly what they gave before the engine was made faster (issue 18).

The digests were recorded with the engine as it was before the speed work: a change that alters
a stored event, a view, a legal action, a refusal or a replayed state changes a digest.
"""

import pytest

from games.registry import Kind
from tests.games.golden import fingerprint

GAMES = [
    (2, {}, "random", "27c225cd7c88fbf11442fb7dad59b51a7e55e82ce8f27b25e8fa16afa85e7a8d"),
    (3, {"win_bet": True, "superpowers": True}, "random",
     "0a8319f61691714140f6540174b08d3a3160a85c56188734de9d23959f1665f0"),
    (4, {"superpowers": True}, "heuristic", "da9d5020c9719bb04afbe152299a26112612e332e30b88779c59fd106f35c197"),
    (3, {"win_bet": True}, ["heuristic", "random", "heuristic"],
     "3c6f21ee339a9c9d0edc01a59a92188b3c0e924b98fd0778a7ed8d4a653bfeb4"),
    (4, {"win_bet": True, "superpowers": True}, ["random", "heuristic", "random", "random"],
     "9a16cd07a9067a67138052113cca4c2789ea16089af344da23107d8963675cff"),
    (2, {"superpowers": True}, "random", "41d0a6fe4e0e7132a8c05b311d8181d15b2f28dcbabde5d9c453815b649c6e1a"),
]


@pytest.mark.parametrize("i", range(len(GAMES)))
def test_it_plays_a_fixed_seed_game_exactly_as_before(i):
    n, options, bot, digest = GAMES[i]
    assert fingerprint(Kind("knonsters"), n, options, f"golden-knonsters-{i}", bot=bot) == digest
