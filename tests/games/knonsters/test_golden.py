"""Golden games: fixed seeds still record the same events and give every seat the same views.

The hashes were recorded before the engine was made faster (issue 18); a change here means a
rule, the event format or what a seat receives changed, which a speed-up must never do.
"""

import pytest

from games.registry import Kind
from tests.games.fingerprint import fingerprint

KIND = Kind("knonsters")

# (players, options, bots, seed, {events, final state, what every seat received})
GOLDEN = [
    (2, {}, "random", "golden-knonsters-0-0",
     {"events": "13ec55f78db2b582", "state": "bff874927489531d", "seen": "d1883a49fa37a242"}),
    (2, {}, "random", "golden-knonsters-0-1",
     {"events": "d7dd8792742762e7", "state": "0df30d6aadeed9c3", "seen": "213a3f2ae1737c64"}),
    (2, {}, "random", "golden-knonsters-0-2",
     {"events": "35231e8a7ed7a98c", "state": "1963188e07c683e5", "seen": "34f4d1366af9574e"}),
    (2, {}, "random", "golden-knonsters-0-3",
     {"events": "e54fb0e35ed1eb1f", "state": "fe58e9a928296482", "seen": "e2ead7ab47c339f9"}),
    (2, {}, "random", "golden-knonsters-0-4",
     {"events": "a1bff5fdf8ff871c", "state": "055dedf459a7716f", "seen": "2daecc3c2df3f0a3"}),
    (3, {"win_bet": True, "superpowers": True}, "random", "golden-knonsters-1-0",
     {"events": "66250230a1eab107", "state": "6ae99a5d4c6e6584", "seen": "2f8d99665262ed00"}),
    (3, {"win_bet": True, "superpowers": True}, "random", "golden-knonsters-1-1",
     {"events": "9b99d8be37fbac82", "state": "34ab792b360528ee", "seen": "35f3efc0a5684857"}),
    (3, {"win_bet": True, "superpowers": True}, "random", "golden-knonsters-1-2",
     {"events": "7cebe673f026942b", "state": "ed33e7052bce0d93", "seen": "509717637e23cc5e"}),
    (3, {"win_bet": True, "superpowers": True}, "random", "golden-knonsters-1-3",
     {"events": "fced9d0fb1b66ce8", "state": "4ab54bdf8396b89e", "seen": "27a2a52f091c039d"}),
    (3, {"win_bet": True, "superpowers": True}, "random", "golden-knonsters-1-4",
     {"events": "0f66740e8f19c1fe", "state": "0392795af53682dc", "seen": "bf0a92f9840a36f3"}),
    (4, {"superpowers": True}, "heuristic", "golden-knonsters-2-0",
     {"events": "f0b0ccd169d6888b", "state": "1124128c55db4e70", "seen": "b43f494a30226b97"}),
    (4, {"superpowers": True}, "heuristic", "golden-knonsters-2-1",
     {"events": "547eb45f7d1e7dfc", "state": "6e8b07a3fb9aa3f3", "seen": "31f3c7e35816b44e"}),
    (4, {"superpowers": True}, "heuristic", "golden-knonsters-2-2",
     {"events": "006ac01613e040e4", "state": "37f9600bf8a25577", "seen": "3f3744609a72737b"}),
    (4, {"superpowers": True}, "heuristic", "golden-knonsters-2-3",
     {"events": "f90ee1381759ddff", "state": "0a79d3f738ab55c4", "seen": "3a0c8f5b3056aac9"}),
    (4, {"superpowers": True}, "heuristic", "golden-knonsters-2-4",
     {"events": "27487aebeed6e398", "state": "29f6b642ba517fcb", "seen": "66e876c4ecbeec5c"}),
    (3, {"win_bet": True}, ["heuristic", "random", "heuristic"], "golden-knonsters-3-0",
     {"events": "7947f7dc4955bfdd", "state": "bca2739739b84f7f", "seen": "3750ffa62e4ceaf9"}),
    (3, {"win_bet": True}, ["heuristic", "random", "heuristic"], "golden-knonsters-3-1",
     {"events": "ee791b21977997bb", "state": "c46c76830e69919c", "seen": "fcbe97d7c623ff0e"}),
    (3, {"win_bet": True}, ["heuristic", "random", "heuristic"], "golden-knonsters-3-2",
     {"events": "14d321ace75aa697", "state": "26133ac7e0ab62f1", "seen": "f97fa7f7aea715f1"}),
    (3, {"win_bet": True}, ["heuristic", "random", "heuristic"], "golden-knonsters-3-3",
     {"events": "ce415127c1a31e7d", "state": "7d6b1e3bafeb7219", "seen": "fea5490a668c7720"}),
    (3, {"win_bet": True}, ["heuristic", "random", "heuristic"], "golden-knonsters-3-4",
     {"events": "d86acb7ac67fe868", "state": "a461252645760276", "seen": "a1937763ed0673db"}),
]


@pytest.mark.parametrize(("n", "options", "bot", "seed", "expected"), GOLDEN, ids=[g[3] for g in GOLDEN])
def test_it_replays_old_knonsters_games_exactly_as_recorded(n, options, bot, seed, expected):
    assert fingerprint(KIND, n, options, seed, bot=bot) == expected
