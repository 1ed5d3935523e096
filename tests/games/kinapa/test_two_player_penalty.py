"""Kinapa 2 players: "penalised for two turns" means two turns (issue 13), over many bot games."""

import pytest

from games.engine import clone
from games.kinapa import bots, rules
from games.rng import Rng

pytestmark = pytest.mark.engine


def _longest_penalty_lockout(seed, bot):
    """The most rounds in a row a player held the Foxes and had no legal action at all."""
    events = rules.setup(2, {}, Rng(seed, 0))
    state = {}
    for e in events:
        state = rules.evolve(state, e)
    run, worst = [0, 0], 0
    could_act = [p in rules.to_act(state) for p in range(2)]
    foxes_at_start, round_no = list(state["foxes"]), state["round"]
    for step in range(20_000):
        if rules.result(state) is not None:
            break
        acting = rules.to_act(state)
        seat = sorted(acting)[step % len(acting)]
        action = bot(clone(state), seat, Rng(seed, f"bot:{step}"))
        for e in rules.decide(state, seat, action, Rng(seed, len(events))):
            state = rules.evolve(state, e)
            events.append(e)
        for p in rules.to_act(state):
            could_act[p] = could_act[p] or bool(rules.legal_actions(state, p))
        if state["round"] != round_no or rules.result(state) is not None:
            for p in range(2):
                run[p] = run[p] + 1 if foxes_at_start[p] and not could_act[p] else 0
                worst = max(worst, run[p])
            could_act = [p in rules.to_act(state) for p in range(2)]
            foxes_at_start, round_no = list(state["foxes"]), state["round"]
    return worst


@pytest.mark.parametrize("bot", [bots.random_bot, bots.heuristic_bot], ids=["random", "heuristic"])
def test_it_no_player_goes_more_than_two_turns_without_a_move_because_of_a_penalty(bot):
    worst = max(_longest_penalty_lockout(f"pen-{i}", bot) for i in range(120))
    assert worst <= 2
