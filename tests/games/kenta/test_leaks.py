"""Changing another seat's hidden data changes nothing this seat (or a spectator) receives."""

import copy

from games.engine import canonical, replay
from games.kenta import rules as R
from games.registry import Kind
from games.rng import Rng
from tests.games.harness import received

from .helpers import act, at_cards, game


def _midgame_states(n, seed, every=37):
    """(events, state) pairs along a bot game, before the race ends."""
    kind = Kind("kenta")
    events = R.setup(n, {}, Rng(seed, 0))
    state = replay(R, events)
    out = []
    step = 0
    while not state["race_over"] and step < 400:
        acting = R.to_act(state)
        seat = sorted(acting)[step % len(acting)]
        action = kind.bots.random_bot(copy.deepcopy(state), seat, Rng(seed, f"b{step}"))
        new = R.decide(state, seat, action, Rng(seed, len(events)))
        for e in new:
            state = R.evolve(state, e)
        events = events + new
        if step % every == 0 and not state["race_over"]:
            out.append((list(events), copy.deepcopy(state)))
        step += 1
    return out


OTHER_CARDS = ["stop", "gift", "shove", "trip", "lucky-charm"]


def _perturb(events, state, victim):
    """Swap the victim's hidden data: hand, objective, sealed ballot, and the pile's order."""
    s = copy.deepcopy(state)
    evs = copy.deepcopy(events)
    used = set(s["objectives"])
    spare = [k for k in R.OBJECTIVE_ORDER if k not in used]
    if spare:
        s["objectives"][victim] = spare[0]
    else:
        other = (victim + 1) % s["n"]
        s["objectives"][victim], s["objectives"][other] = s["objectives"][other], s["objectives"][victim]
    s["hands"][victim] = [OTHER_CARDS[(i + len(s["hands"][victim])) % 5] for i in range(len(s["hands"][victim]))]
    s["pile"] = " ".join(reversed(R.cards_of(s["pile"])))
    if s["vote"] is not None and s["vote"]["ballots"][victim] is not None and s["vote"]["kind"] == "line":
        s["vote"]["ballots"][victim] = "white" if s["vote"]["ballots"][victim] == "black" else "black"
    for e in evs:
        d = e["data"]
        if e["type"] == "setup":
            d["hands"][victim] = ["stop"]
            d["objectives"][victim] = s["objectives"][victim]
            d["pile"] = list(reversed(d["pile"]))
        elif e["type"] == "draw" and d["seat"] == victim and d["kept"]:
            d["card"] = "stop" if d["card"] != "stop" else "gift"
        elif e["type"] == "reshuffle":
            d["pile"] = list(reversed(d["pile"]))
        elif e["type"] == "vote" and d["seat"] == victim and d["marker"] in ("black", "white"):
            d["marker"] = "white" if d["marker"] == "black" else "black"
    return evs, s


def test_it_leaks_no_hand_objective_ballot_or_pile_order_to_other_seats_or_spectators():
    checked = 0
    for n in (2, 3, 5):
        for events, state in _midgame_states(n, f"leak-{n}"):
            for victim in range(n):
                evs2, s2 = _perturb(events, state, victim)
                for seat in [None] + [p for p in range(n) if p != victim]:
                    assert received(R, state, events, seat) == received(R, s2, evs2, seat), (n, victim, seat)
                    assert canonical(R.to_act(state)) == canonical(R.to_act(s2))
                    checked += 1
    assert checked > 100


def test_it_keeps_a_sealed_vote_sealed_until_all_markers_are_revealed():
    s = at_cards(game(3))
    s, _ = act(s, 0, {"type": "end"}, _Dice([2, 2]))
    s_black, evs_b = act(s, 0, {"type": "vote", "marker": "black"})
    s_white, evs_w = act(s, 0, {"type": "vote", "marker": "white"})
    for seat in (None, 1, 2):
        assert R.redact(evs_b[0], seat) == R.redact(evs_w[0], seat)
        assert canonical(R.view(s_black, seat)) == canonical(R.view(s_white, seat))
        assert R.legal_actions(s_black, seat) == R.legal_actions(s_white, seat)
    assert R.view(s_black, 0)["you"]["ballot"] == "black"


def test_it_does_not_tell_the_others_that_a_voters_time_ran_out_before_the_reveal():
    s = at_cards(game(3))
    s, _ = act(s, 0, {"type": "end"}, _Dice([2, 2]))
    s_black, evs_b = act(s, 0, {"type": "vote", "marker": "black"})
    s_none, evs_n = act(s, 0, R.to_act(s)[0]["default"])
    assert evs_n[0]["data"]["timeout"] is True
    for seat in (None, 1, 2):
        assert R.redact(evs_b[0], seat) == R.redact(evs_n[0], seat)
        assert R.describe(R.redact(evs_n[0], seat), ["alice", "bob", "charlie"]) == "alice voted in secret."
        assert canonical(R.view(s_black, seat)) == canonical(R.view(s_none, seat))


def test_it_never_reveals_who_holds_a_stop():
    base = dict(hands=[["sprint"], ["stop", "dash"], ["dash", "trip"], ["step", "dash"]], disc="white")
    s_holder = at_cards(game(4, **base))
    s_holder, evs_h = act(s_holder, 0, {"type": "play", "card": "sprint"})
    alt = dict(base, hands=[["sprint"], ["trip", "dash"], ["stop", "dash"], ["step", "dash"]])
    s_other = at_cards(game(4, **alt))
    s_other, evs_o = act(s_other, 0, {"type": "play", "card": "sprint"})
    assert R.to_act(s_holder) == R.to_act(s_other)
    assert sorted(R.to_act(s_holder)) == [1, 2, 3]
    for seat in (None, 0, 3):
        assert canonical(R.view(s_holder, seat)) == canonical(R.view(s_other, seat))
        assert R.legal_actions(s_holder, seat) == R.legal_actions(s_other, seat)
        assert [R.redact(e, seat) for e in evs_h] == [R.redact(e, seat) for e in evs_o]
    # Passing looks the same whether or not you hold a STOP.
    p_h, e_h = act(s_holder, 1, {"type": "pass"})
    p_o, e_o = act(s_other, 1, {"type": "pass"})
    for seat in (None, 0, 3):
        assert [R.redact(e, seat) for e in e_h] == [R.redact(e, seat) for e in e_o]
        assert canonical(R.view(p_h, seat)) == canonical(R.view(p_o, seat))


def test_it_shows_a_spectator_no_hand_no_objective_and_no_pile():
    events = R.setup(4, {}, Rng("spectate", 0))
    state = replay(R, events)
    v = R.view(state, None)
    assert v["you"] is None and "hands" not in v and "pile" not in v and "objectives" not in v
    red = R.redact(events[0], None)["data"]
    assert red["hands"] == [None] * 4 and red["objectives"] == [None] * 4 and "pile" not in red
    red0 = R.redact(events[0], 0)["data"]
    assert red0["hands"][0] == events[0]["data"]["hands"][0] and red0["hands"][1] is None
    assert "seed" not in canonical(v)


class _Dice:
    def __init__(self, dice):
        self.dice = list(dice)

    def choice(self, seq):
        if self.dice and list(seq) == R.FACES:
            return self.dice.pop(0)
        return list(seq)[0]

    def shuffled(self, seq):
        return list(seq)

    def randbelow(self, n):
        return 0
