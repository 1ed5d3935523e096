"""Golden games: fixed seeds still record the same events and give every seat the same views.

The hashes were recorded before the engine was made faster (issue 18); a change here means a
rule, the event format or what a seat receives changed, which a speed-up must never do.
"""

import pytest

from games.registry import Kind
from tests.games.fingerprint import fingerprint

KIND = Kind("kenta")

# (players, options, bots, seed, {events, final state, what every seat received})
GOLDEN = [
    (2, {}, "random", "golden-kenta-0-0",
     {"events": "abe1661174a63ed5", "state": "ece71b8fe11c7184", "seen": "f9a1b60e7d4a35c1"}),
    (2, {}, "random", "golden-kenta-0-1",
     {"events": "2e6ebc5a55dcd4b1", "state": "d3be9cddf45fadd2", "seen": "253376390bb35171"}),
    (2, {}, "random", "golden-kenta-0-2",
     {"events": "23873529faaa823e", "state": "9255f65c95fbf8a3", "seen": "218779eaea943e53"}),
    (2, {}, "random", "golden-kenta-0-3",
     {"events": "62b363668a8ce10a", "state": "1fd8d05751718f75", "seen": "b74fe7c292dfbc53"}),
    (2, {}, "random", "golden-kenta-0-4",
     {"events": "87cfd3a9d2541368", "state": "488c8376defb6185", "seen": "6057dd971a105860"}),
    (3, {"vote_seconds": 3600, "reaction_seconds": 45}, "random", "golden-kenta-1-0",
     {"events": "75025eb9c5de4fe7", "state": "62f869553189a570", "seen": "425c2e287c68a293"}),
    (3, {"vote_seconds": 3600, "reaction_seconds": 45}, "random", "golden-kenta-1-1",
     {"events": "30d2ef3ab40281f0", "state": "069092a3c5af9739", "seen": "5a669cd60088edd7"}),
    (3, {"vote_seconds": 3600, "reaction_seconds": 45}, "random", "golden-kenta-1-2",
     {"events": "cc4ff6edb5c061f6", "state": "b4239038985b8600", "seen": "7ede8819a04efcd2"}),
    (3, {"vote_seconds": 3600, "reaction_seconds": 45}, "random", "golden-kenta-1-3",
     {"events": "ae2d6cb853d10275", "state": "542bc1784997f789", "seen": "91e93649b53dbec4"}),
    (3, {"vote_seconds": 3600, "reaction_seconds": 45}, "random", "golden-kenta-1-4",
     {"events": "191132aedc5bd213", "state": "fc490b3bd0c36a31", "seen": "a6d21f971bb97b35"}),
    (5, {}, "heuristic", "golden-kenta-2-0",
     {"events": "e7de82da12868ca1", "state": "846cc6099ff23075", "seen": "8d9c3ecf65fc4356"}),
    (5, {}, "heuristic", "golden-kenta-2-1",
     {"events": "d26d7ea3df4d8bc4", "state": "ac7d8297aa52ab44", "seen": "9e8f510ef21ec6aa"}),
    (5, {}, "heuristic", "golden-kenta-2-2",
     {"events": "0452f81ee93d0b4f", "state": "97c01f9fb734a875", "seen": "28895c761f8f1e64"}),
    (5, {}, "heuristic", "golden-kenta-2-3",
     {"events": "737f4a0f9d3c8db2", "state": "2837b01a2f208319", "seen": "a60f253480b09c6f"}),
    (5, {}, "heuristic", "golden-kenta-2-4",
     {"events": "41e4b64371bdd7eb", "state": "3852a10c7760e1d4", "seen": "ac5fbad2f246cfc1"}),
    (4, {}, ["random", "heuristic", "random", "heuristic"], "golden-kenta-3-0",
     {"events": "31b73829f5120cca", "state": "8e7209aad13c296a", "seen": "768a3455df3596e9"}),
    (4, {}, ["random", "heuristic", "random", "heuristic"], "golden-kenta-3-1",
     {"events": "675c5be898464d49", "state": "273fc0d201b24797", "seen": "a792769745b68855"}),
    (4, {}, ["random", "heuristic", "random", "heuristic"], "golden-kenta-3-2",
     {"events": "2a50971732200917", "state": "bd28c8dd12c678d7", "seen": "f11cb1e9d938cfed"}),
    (4, {}, ["random", "heuristic", "random", "heuristic"], "golden-kenta-3-3",
     {"events": "8b8ddef7d4dce29b", "state": "a498c4cf907de13c", "seen": "1877ccd937ce39ad"}),
    (4, {}, ["random", "heuristic", "random", "heuristic"], "golden-kenta-3-4",
     {"events": "8e3d512bcbf033e2", "state": "9c9fb63ae74863b4", "seen": "c9bb64650c861376"}),
]


@pytest.mark.parametrize(("n", "options", "bot", "seed", "expected"), GOLDEN, ids=[g[3] for g in GOLDEN])
def test_it_replays_old_kenta_games_exactly_as_recorded(n, options, bot, seed, expected):
    assert fingerprint(KIND, n, options, seed, bot=bot) == expected
