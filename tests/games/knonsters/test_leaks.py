"""Hidden information: another seat's hand, favourites, bet and the draw pile.

Changing them consistently in the state and the events must change nothing that
this seat or a spectator receives (view, legal moves, redacted log, error reasons).
"""

from itertools import permutations

import pytest

from games.engine import IllegalAction, canonical, clone
from games.knonsters import bots
from games.knonsters import rules as R
from games.rng import Rng
from tests.games.harness import received

ALL = {"win_bet": True, "superpowers": True}
BAD_ACTIONS = [
    {"type": "play", "card": "Rithle+7"}, {"type": "discard", "card": "rank2"},
    {"type": "power", "knonster": "Celya", "card": "Celya+7"}, {"type": "power", "knonster": "Elaari", "card": "rank3"},
    {"type": "favourites", "knonsters": ["Rithle", "Celya"], "bet": "Rithle"}, {"type": "auto", "accept": True},
]


def run_until(seed, n, options, plays, stop_in_choice=False):
    """Random bots play until ``plays`` cards were played (None if it ended or an offer came first)."""
    events = R.setup(n, options, Rng(seed, 0))
    state = R.evolve({}, events[0])
    step = 0
    while True:
        if stop_in_choice and state["phase"] == "choose" and sum(f is not None for f in state["favs"]) == n - 1:
            return events, state
        if not stop_in_choice and sum(e["type"] == "played" for e in events) >= plays:
            return events, state
        if state["phase"] == "over" or state["offer"]:
            return None
        acting = R.to_act(state)
        seat = sorted(acting)[0]
        action = bots.random_bot(clone(state), seat, Rng(seed, f"b{step}"))
        new = R.decide(state, seat, action, Rng(seed, len(events)))
        for e in new:
            state = R.evolve(state, e)
        events += new
        step += 1


def errors(state, seat):
    out = []
    for action in BAD_ACTIONS:
        try:
            R.decide(state, seat, action, Rng("e", 1))
            out.append("accepted")
        except IllegalAction as exc:
            out.append(exc.reason)
    return out


def everything(state, events, seat):
    return received(R, state, events, seat) + canonical(errors(state, seat) if seat is not None else [])


def swap_hand_card(state, events, other):
    """Give ``other`` a pile card instead of one it holds (and never played)."""
    state, events = clone(state), clone(events)
    played = {e["data"]["card"] for e in events if e["type"] == "played" and e["data"]["seat"] == other}
    deal_at = max(i for i, e in enumerate(events) if e["type"] in ("setup", "restarted"))
    for c1 in sorted(set(state["hands"][other]) - played):
        for c2 in sorted(set(state["pile"]) - {c1}):
            sources = [events[deal_at]["data"]["hands"][other]] + [
                [e["data"]["card"]] for e in events[deal_at:] if e["type"] == "drew" and e["data"]["seat"] == other]
            for _i, e in enumerate(events[deal_at:], deal_at):
                if e["type"] == "drew" and e["data"]["seat"] == other and e["data"]["card"] == c1:
                    e["data"]["card"] = c2
                    break
            else:
                hand = events[deal_at]["data"]["hands"][other]
                hand[hand.index(c1)] = c2
                hand.sort()
            assert sources
            state["hands"][other][state["hands"][other].index(c1)] = c2
            state["hands"][other].sort()
            state["pile"][state["pile"].index(c2)] = c1
            state["pile"].sort()
            return state, events
    return None


def swap_favourites(state, events, other):
    state, events = clone(state), clone(events)
    old = state["favs"][other]
    keep = state["revealed"][other]
    for pair in permutations(R.KNONSTERS, 2):
        if sorted(pair) != sorted(old) and set(keep) <= set(pair):
            pair = list(pair)
            bet = pair[0] if state["options"]["win_bet"] else None
            if not state["options"]["win_bet"]:
                pair = sorted(pair, key=R.KNONSTERS.index)
            chosen = [e for e in events if e["type"] == "chosen" and e["data"]["seat"] == other][-1]
            chosen["data"]["knonsters"] = pair
            chosen["data"]["bet"] = bet
            state["favs"][other] = pair
            state["bets"][other] = bet
            return state, events
    return None


def shuffle_pile(state, events):
    state = clone(state)
    state["pile"] = list(reversed(state["pile"]))
    return state, clone(events)


@pytest.mark.parametrize("n", [2, 3, 4])
def test_it_hides_other_hands_favourites_and_the_pile_mid_game(n):
    checked = 0
    for i in range(40):
        for options in (ALL, {"win_bet": False, "superpowers": True}):
            got = run_until(f"leak{n}-{i}", n, options, plays=3 + i % 9)
            if got is None:
                continue
            events, state = got
            seat = state["turn"]
            other = (seat + 1) % n
            before = {s: everything(state, events, s) for s in (seat, None)}
            for change in (swap_hand_card(state, events, other), swap_favourites(state, events, other),
                           shuffle_pile(state, events)):
                if change is None:
                    continue
                st2, ev2 = change
                assert canonical(st2) != canonical(state) or change[0]["pile"] != state["pile"]
                for s in (seat, None):
                    assert everything(st2, ev2, s) == before[s]
                checked += 1
    assert checked > 60


def test_it_hides_a_choice_until_everyone_has_chosen():
    for i in range(20):
        events, state = run_until(f"choice{i}", 3, ALL, plays=0, stop_in_choice=True)
        chosen = [s for s in range(3) if state["favs"][s] is not None]
        waiting = [s for s in range(3) if state["favs"][s] is None][0]
        other = chosen[0]
        before = {s: everything(state, events, s) for s in (waiting, None)}
        st2, ev2 = swap_favourites(state, events, other)
        for s in (waiting, None):
            assert everything(st2, ev2, s) == before[s]
        assert R.legal_actions(state, waiting) == R.legal_actions(st2, waiting)


def test_it_redacts_other_seats_secrets_in_events():
    events, state = run_until("redact", 3, ALL, plays=12)
    for e in events:
        if e["type"] in ("chosen", "drew"):
            owner = e["data"]["seat"]
            for s in (None, (owner + 1) % 3):
                assert R.redact(e, s) == {"type": e["type"], "data": {"seat": owner}}
        if e["type"] in ("setup", "restarted"):
            red = R.redact(e, 0)
            assert "hands" not in red["data"] and red["data"]["hand"] == e["data"]["hands"][0]
            assert "hand" not in R.redact(e, None)["data"]
    view = R.view(state, None)
    assert "hand" not in view and "favourites" not in view and "pile" not in view
    assert "seed" not in canonical(view)


def test_it_reveals_all_favourites_at_the_end():
    events, state = run_until("end", 2, ALL, plays=0)
    while state["phase"] != "over":
        seat = sorted(R.to_act(state))[0]
        new = R.decide(state, seat, bots.heuristic_bot(clone(state), seat, Rng("x", len(events))), Rng("e", len(events)))
        for e in new:
            state = R.evolve(state, e)
        events += new
    assert events[-1]["type"] == "ended"
    assert R.redact(events[-1], None)["data"]["favourites"] == state["favs"]
    assert R.view(state, None)["all_favourites"] == state["favs"]
