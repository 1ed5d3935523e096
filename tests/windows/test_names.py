"""Players are named in results, summaries and move labels, never "seat 2", "Player 1" or a colour alone."""

import re

import pytest

from games.engine import clone, fill_seats
from games.registry import kinds
from games.rng import Rng

NAMES = ["mara", "theo", "ines", "olek", "rui", "sol", "ty", "uma"]
COLOURS = "red|blue|green|yellow|purple|orange|white|black"
ANONYMOUS = re.compile(rf"\b(player|seat) \d|\{{seat|\bthe ({COLOURS}) player\b|^({COLOURS}) (wins|resigned|share)", re.IGNORECASE)


def play(kind, n, seed):
    """A random game to its end; yields each (state, seat to act) on the way."""
    rules = kind.rules
    state = {}
    for e in rules.setup(n, {}, Rng(seed, 0)):
        state = rules.evolve(state, e)
    version = 1
    for _ in range(5000):
        if rules.result(state) is not None:
            return state
        seat = sorted(rules.to_act(state))[0]
        yield state, seat
        action = kind.bots.random_bot(clone(state), seat, Rng(seed, f"bot{version}"))
        for e in rules.decide(state, seat, action, Rng(seed, version)):
            state = rules.evolve(state, e)
            version += 1
    raise AssertionError("the game did not end")


@pytest.mark.parametrize("slug", list(kinds()))
def test_it_names_the_players_in_labels_and_results_of_every_game(slug):
    kind = kinds()[slug]
    n = 4 if kind.rules.MIN_PLAYERS <= 4 <= kind.rules.MAX_PLAYERS else kind.rules.MIN_PLAYERS
    names = NAMES[:n]
    for seed in ("a", "b", "c"):
        game = play(kind, n, seed)
        while True:
            try:
                state, seat = next(game)
            except StopIteration as end:
                state = end.value
                break
            for item in kind.rules.legal_actions(state, seat):
                label = fill_seats(item["label"], names)
                assert not ANONYMOUS.search(label), (slug, label)
        summary = fill_seats(kind.rules.result(state)["summary"], names)
        assert not ANONYMOUS.search(summary), (slug, summary)
        winners = kind.rules.result(state)["winners"]
        if len(winners) == 1:
            assert names[winners[0]] in summary, (slug, summary)
