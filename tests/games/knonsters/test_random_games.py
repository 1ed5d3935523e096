"""Thousands of whole bot games through the shared harness (contract checks included)."""

from itertools import product

import pytest

from games.engine import canonical, replay
from games.knonsters import rules as R
from games.registry import Kind
from tests.games.harness import play

KIND = Kind("knonsters")
OPTIONS = [{"win_bet": wb, "superpowers": sp} for wb, sp in product([False, True], [False, True])]
BOTS = ["random", "heuristic", ["random", "heuristic", "random", "heuristic"], ["heuristic", "random", "heuristic", "random"]]
GAMES_PER_COUNT = 700  # x 3 player counts = 2,100 games


def _check_end(state, events, n):
    res = R.result(state)
    assert res is not None
    assert len(res["ranks"]) == len(res["scores"]) == n
    assert res["winners"] and all(res["ranks"][w] == 1 for w in res["winners"])
    assert len(state["podium"]) == 3 if state["ended"]["reason"] == "third" else len(state["podium"]) < 3
    assert sorted(set(state["podium"])) == sorted(state["podium"])
    assert res["scores"] == R.scores(state)
    for e in events:
        assert canonical(e) == canonical(e)  # JSON-serialisable
    return res


@pytest.mark.parametrize("n", [2, 3, 4])
def test_it_plays_hundreds_of_random_games(n):
    stats = {"third": 0, "pile": 0, "resign": 0, "restarted": 0, "offered": 0, "power": 0, "auto": 0}
    for i in range(GAMES_PER_COUNT):
        options = OPTIONS[i % 4]
        bot = BOTS[(i // 4) % 4]
        if isinstance(bot, list):
            bot = bot[:n]
        resign_at = 15 + i % 40 if i % 23 == 0 else None
        events, state = play(KIND, n, options, f"k{n}-{i}", bot=bot, check_every=31, resign_at=resign_at)
        _check_end(state, events, n)
        stats[state["ended"]["reason"]] += 1
        types = [e["type"] for e in events]
        stats["resign"] += "resigned" in types
        stats["restarted"] += "restarted" in types
        stats["offered"] += "offered" in types
        stats["power"] += any(e["type"] == "played" and e["data"]["power"] for e in events)
        if i % 50 == 0:
            assert canonical(replay(R, events)) == canonical(state)
    assert stats["third"] > GAMES_PER_COUNT // 2
    assert stats["restarted"] and stats["offered"] and stats["power"] and stats["resign"]


def test_it_lets_the_system_finish_games_for_players_who_accept():
    """Bots that always accept the offer: the rest of the game is played automatically."""
    from games.rng import Rng

    auto_games = 0
    for i in range(60):
        n = 2 + i % 3
        events = R.setup(n, OPTIONS[i % 4], Rng(f"a{i}", 0))
        state = replay(R, events)
        for step in range(2000):
            if R.result(state):
                break
            acting = R.to_act(state)
            seat = sorted(acting)[0]
            legal = R.legal_actions(state, seat)
            if acting[seat]["kind"] == "window":
                action = R.AUTO_YES
            else:
                action = Rng(f"a{i}", f"b{step}").choice(legal)["action"]
            new = R.decide(state, seat, action, Rng(f"a{i}", len(events)))
            for e in new:
                state = R.evolve(state, e)
            events += new
        assert R.result(state)
        assert canonical(replay(R, events)) == canonical(state)
        auto_games += any(e["type"] == "played" and e["data"]["auto"] for e in events)
    assert auto_games > 10
