"""Fixed-seed games give exactly what they gave before the engine was made faster (issue 18).

The digests were recorded with the engine as it was before the speed work: a change that alters
a stored event, a view, a legal action, a refusal or a replayed state changes a digest.
"""

import pytest

from games.registry import Kind
from tests.games.golden import fingerprint

GAMES = [
    (2, {}, "random", "20fce97a1bea97f18fc1abbcc22806218c40bef19a2587fa3b6bc74edb70802b"),
    (2, {"round_limit": 25, "window_seconds": 30}, ["heuristic", "random"],
     "f4ba2ea40f742e27d7197a487bea1460a6f6c1a2a1ed3269d94df71ad4071ca3"),
    (4, {}, "random", "98c67656edd1cbd0a8ee5ba24e6b946c1cb8376cd5d8fbebac840c23d6beb6d7"),
    (4, {"round_limit": 60}, "heuristic", "829b799bd9dc4b0f42fc06c0791d2d31f0909ca831534201f7dfc034ccdba38e"),
    (5, {"round_limit": 25}, "random", "66fccd83d77978105ee8094674aa485d0205893d9def80df21f7fa7b6f80c987"),
    (8, {"round_limit": 20}, "random", "c5d94d254fa30763bb865ab9011798680cf4fc412c6898c5efae8fdef4359a86"),
]


@pytest.mark.parametrize("i", range(len(GAMES)))
def test_it_plays_a_fixed_seed_game_exactly_as_before(i):
    n, options, bot, digest = GAMES[i]
    assert fingerprint(Kind("kinapa"), n, options, f"golden-kinapa-{i}", bot=bot) == digest
