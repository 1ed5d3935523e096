"""Thousands of bot games through the shared harness: no exception, always ends, replay == live."""

from games.registry import get
from tests.games.harness import play

KIND = get("kinapa")
LIMITS = [10, 25, 60, 200]
WINDOWS = [3, 30, 600]


def _games(n, count, salt, check_every=23, limits=LIMITS, defaults_every=7):
    ends = {}
    for i in range(count):
        limit = limits[i % len(limits)]
        options = {"round_limit": limit, "window_seconds": WINDOWS[i % len(WINDOWS)]}
        if i % defaults_every == 0:
            options = {}  # the defaults
            limit = 200
        if i % 3 == 0:
            bot = "heuristic"
        elif i % 3 == 1:
            bot = "random"
        else:
            bot = ["heuristic" if (s + i) % 2 else "random" for s in range(n)]
        resign_at = (i * 7) % 40 if i % 11 == 0 else None
        events, state = play(KIND, n, options, f"{salt}-{n}-{i}", bot=bot, check_every=check_every,
                             max_steps=limit * (n + 8) + 100, resign_at=resign_at)
        result = KIND.rules.result(state)
        assert result is not None and sorted(result["ranks"])[0] == 1 and result["winners"]
        ends[state["end"]["reason"]] = ends.get(state["end"]["reason"], 0) + 1
    return ends


def test_it_plays_700_two_player_games():
    ends = _games(2, 700, "two")
    assert ends.get("win", 0) > 300


def test_it_plays_700_four_player_games():
    ends = _games(4, 700, "four")
    assert ends.get("win", 0) > 250


def test_it_plays_400_five_and_six_player_games():
    _games(5, 250, "five", limits=[10, 25, 60])
    _games(6, 150, "six", limits=[10, 25, 60], defaults_every=10)


def test_it_plays_200_seven_and_eight_player_games():
    _games(7, 100, "seven", check_every=31, limits=[10, 20, 40], defaults_every=12)
    _games(8, 100, "eight", check_every=31, limits=[10, 20, 40], defaults_every=12)
