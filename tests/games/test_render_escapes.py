"""Player names are user input: no game's board drawing may let them through unescaped."""

import pytest

from games.engine import clone
from games.registry import kinds
from games.rng import Rng

EVIL = '<script>alert("x")</script>'


@pytest.mark.parametrize("slug", list(kinds()))
def test_it_escapes_player_names_in_every_board(slug):
    kind = kinds()[slug]
    rules = kind.rules
    n = rules.MIN_PLAYERS
    names = [f"{EVIL}{i}" for i in range(n)]
    state = {}
    for e in rules.setup(n, {k: p["default"] for k, p in rules.OPTIONS_SCHEMA["properties"].items()}, Rng("escape", 0)):
        state = rules.evolve(state, e)
    for step in range(30):
        for seat in [None, *range(n)]:
            page = kind.render(rules.view(state, seat), seat, names)
            assert "<script>" not in page, f"{slug}: a name went into the page unescaped"
        acting = sorted(rules.to_act(state))
        if rules.result(state) is not None or not acting:
            break
        seat = acting[0]
        action = kind.bots.random_bot(clone(state), seat, Rng("escape", f"bot{step}"))
        for e in rules.decide(state, seat, action, Rng("escape", step + 1)):
            state = rules.evolve(state, e)
