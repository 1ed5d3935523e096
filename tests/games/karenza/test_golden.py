"""Fixed-seed games give exactly what they gave before the engine was made faster (issue 18).

The digests were recorded with the engine as it was before the speed work: a change that alters
a stored event, a view, a legal action, a refusal or a replayed state changes a digest.
"""

import pytest

from games.registry import Kind
from tests.games.golden import fingerprint

GAMES = [
    (2, {}, "random", "cbbd267a2ea4fa427003fc3913842d73d845ccc257a65677d15ba69d9dc51f27"),
    (2, {}, "heuristic", "61e5c9a1fa2f59e58f454b0cc53fa90dcf3ab458d0cee6fd5a705dec4b6830c9"),
    (2, {}, ["random", "heuristic"], "f2001d1770a92abbcdd675c54c144f2a95d4631007e59678290df1732837a08e"),
    (2, {"characters": ["random", "random"]}, ["heuristic", "random"],
     "e9e7adacb578f1b25963917cedf31c16a05d54e3bf3f12d38aba7902f96a0c20"),
]


@pytest.mark.parametrize("i", range(len(GAMES)))
def test_it_plays_a_fixed_seed_game_exactly_as_before(i):
    n, options, bot, digest = GAMES[i]
    assert fingerprint(Kind("karenza"), n, options, f"golden-karenza-{i}", bot=bot) == digest
