"""Golden games: fixed seeds still record the same events and give every seat the same views.

The hashes were recorded before the engine was made faster (issue 18); a change here means a
rule, the event format or what a seat receives changed, which a speed-up must never do.
"""

import pytest

from games.registry import Kind
from tests.games.fingerprint import fingerprint

KIND = Kind("karenza")

# (players, options, bots, seed, {events, final state, what every seat received})
GOLDEN = [
    (2, {}, "random", "golden-karenza-0-0",
     {"events": "bfc6f930e7d5666a", "state": "c9a297ca7bcf79ee", "seen": "8f6d69a43523bfad"}),
    (2, {}, "random", "golden-karenza-0-1",
     {"events": "30ba1f2914cbc411", "state": "37222297a53dcc49", "seen": "1429d31712213661"}),
    (2, {}, "random", "golden-karenza-0-2",
     {"events": "20bcf94df2a2c726", "state": "48946ea08b709f51", "seen": "d327aee4e55680b4"}),
    (2, {}, "random", "golden-karenza-0-3",
     {"events": "2cb81126bab98754", "state": "543e93cea6f943ac", "seen": "d1a00e68f43d67f2"}),
    (2, {}, "random", "golden-karenza-0-4",
     {"events": "625f8eb19d7b3acd", "state": "6432e2b9e0e15366", "seen": "807dd7ca62966094"}),
    (2, {}, "heuristic", "golden-karenza-1-0",
     {"events": "76c3383dd62e85a1", "state": "4febd059897772d5", "seen": "12da148626a7d94a"}),
    (2, {}, "heuristic", "golden-karenza-1-1",
     {"events": "937fea255cbbbecb", "state": "bf03ab7e9aa99602", "seen": "fd9a818e11d04a51"}),
    (2, {}, "heuristic", "golden-karenza-1-2",
     {"events": "47ec0829bdfd8464", "state": "7ff13fd4d5813eac", "seen": "2366de8dc1fec255"}),
    (2, {}, "heuristic", "golden-karenza-1-3",
     {"events": "7693b68bfa7c5d5d", "state": "6d83127a250c6f18", "seen": "1367ce7172889171"}),
    (2, {}, "heuristic", "golden-karenza-1-4",
     {"events": "963a26d60b5f4817", "state": "80e612185b600b06", "seen": "75e22534daec7eef"}),
    (2, {}, ["random", "heuristic"], "golden-karenza-2-0",
     {"events": "6046b68bbc2bb98a", "state": "dcb3d37dbe2aa454", "seen": "f3a9a4056968b46d"}),
    (2, {}, ["random", "heuristic"], "golden-karenza-2-1",
     {"events": "ecd146d697c9d328", "state": "70bfe0ab93983565", "seen": "53e62613787c65f9"}),
    (2, {}, ["random", "heuristic"], "golden-karenza-2-2",
     {"events": "3132eb6701dd0b7c", "state": "f26363c885de5d06", "seen": "79db87de9d3fdd91"}),
    (2, {}, ["random", "heuristic"], "golden-karenza-2-3",
     {"events": "a10010f3d39ee8c2", "state": "ee7533614eed8125", "seen": "9564a3a78256f1de"}),
    (2, {}, ["random", "heuristic"], "golden-karenza-2-4",
     {"events": "5a7df536ff2010e2", "state": "4095f979506fac3b", "seen": "5941a4134a96e766"}),
    (2, {}, ["heuristic", "random"], "golden-karenza-3-0",
     {"events": "42e8ed1bd8e8b2ae", "state": "bb9623b1e0683eb1", "seen": "9bb161027fa72187"}),
    (2, {}, ["heuristic", "random"], "golden-karenza-3-1",
     {"events": "f178187bd4348081", "state": "3842c8a2eebad567", "seen": "078f1c154dfe7ae8"}),
    (2, {}, ["heuristic", "random"], "golden-karenza-3-2",
     {"events": "857848ad296110ac", "state": "ec29b0f7befd319d", "seen": "3ee7b41ab41c2223"}),
    (2, {}, ["heuristic", "random"], "golden-karenza-3-3",
     {"events": "7bb824e86dc86cc4", "state": "ea00226a192417c9", "seen": "f4a439e5f59da720"}),
    (2, {}, ["heuristic", "random"], "golden-karenza-3-4",
     {"events": "9f476d2f2b4e6a1e", "state": "14f28c8d359bdc2a", "seen": "c97b170e30068ba8"}),
]


@pytest.mark.parametrize(("n", "options", "bot", "seed", "expected"), GOLDEN, ids=[g[3] for g in GOLDEN])
def test_it_replays_old_karenza_games_exactly_as_recorded(n, options, bot, seed, expected):
    assert fingerprint(KIND, n, options, seed, bot=bot) == expected
