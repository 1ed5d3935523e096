"""Thousands of whole bot games through the shared harness, over every character pairing."""

import itertools

from games.karenza import rules
from games.registry import Kind
from tests.games.harness import play

KIND = Kind("karenza")
CHOICES = ["michi", "eka", "random"]
PAIRINGS = [list(p) for p in itertools.product(CHOICES, CHOICES)]  # 9 option combinations
BOTS = ["random", "heuristic", ["random", "heuristic"], ["heuristic", "random"]]


def _games(start, count, check_every):
    seen_pairs, ends = set(), set()
    for i in range(start, start + count):
        options = {"characters": PAIRINGS[i % len(PAIRINGS)]}
        bot = BOTS[(i // len(PAIRINGS)) % len(BOTS)]
        events, state = play(KIND, 2, options, f"karenza-{i}", bot=bot, check_every=check_every)
        res = rules.result(state)
        assert res is not None
        assert sorted(res["ranks"]) in ([1, 1], [1, 2])
        assert res["scores"] == [p["score"] for p in state["players"]]
        seen_pairs.add(tuple(state["characters"]))
        ends.add(state["finished"]["reason"])
        # conservation: every card of each deck is somewhere
        for p in state["players"]:
            cards = rules.deck_of(p) + p["hand"] + rules.discard_of(p)
            for entry in p["sequence"]:
                cards += [entry["card"]] + entry["addons"]
            assert sorted(cards) == sorted(rules.deck_cards(p["character"]))
    return seen_pairs, ends


def test_it_plays_1000_games_with_contract_checks():
    pairs, ends = _games(0, 1000, check_every=23)
    assert pairs == {("michi", "michi"), ("michi", "eka"), ("eka", "michi"), ("eka", "eka")}
    assert len(ends) >= 2


def test_it_plays_1000_more_games():
    pairs, _ = _games(1000, 1000, check_every=60)
    assert len(pairs) == 4


def test_it_plays_games_that_end_by_resignation():
    for i in range(30):
        events, state = play(KIND, 2, {"characters": PAIRINGS[i % 9]}, f"resign-{i}", resign_at=i * 3)
        res = rules.result(state)
        assert res is not None
        if state["finished"]["reason"] == "resign":
            loser = state["finished"]["resigned"]
            assert res["winners"] == [1 - loser] and res["ranks"][loser] == 2
