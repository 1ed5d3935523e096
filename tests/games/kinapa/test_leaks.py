"""Hidden information: changing what a seat may not know changes nothing that seat receives.

The change is made consistently in the whole event stream (so in the state too, by replay):
two cards the seat has never legitimately seen swap places everywhere, two object cards never
turned over swap positions, a sealed answer still in the window flips.
"""

import json

from games.engine import canonical, replay
from games.kinapa import rules
from games.registry import get
from games.rng import Rng
from tests.games.harness import play, received

from .helpers import DEAL4, act, start

KIND = get("kinapa")


def _known(events, viewer):
    """Cards whose whereabouts the rules let ``viewer`` (None: spectator) see at some point."""
    known = set()
    for e in events:
        t, d = e["type"], e["data"]
        if t == "deal" and viewer is not None:
            known.update(d["hands"][viewer])
        elif t == "switch" and (d["seat"] == viewer or d.get("public")):
            known.update(d["hand"])
            known.update(d["laid"])
        elif t in ("take", "give"):
            other = d["from"] if t == "take" else d["to"]
            if d.get("public") or (viewer is not None and viewer in (d["emperor"], other)):
                known.add(d["card"])
        elif t == "demand":
            known.add(d["card"])
        elif t in ("exposed",):
            known.update(d["hand"])
        elif t in ("show_pair", "place"):
            known.update(d["cards"])
    return known


def _swap(events, a, b):
    text = json.dumps(events)
    text = text.replace(f'"{a}"', '"@@"').replace(f'"{b}"', f'"{a}"').replace('"@@"', f'"{b}"')
    return json.loads(text)


def _card_swap_checks(events, cut, viewer):
    prefix = events[:cut]
    state = replay(rules, prefix)
    if state.get("phase") in (None, "setup"):
        return 0
    n = state["n"]
    known = _known(prefix, viewer)
    pool = []
    for h, hand in enumerate(state["hands"]):
        if h == viewer:
            continue
        if h < n and state["foxes"][h] > 0:
            hand = [state["hidden"][h]] if state["hidden"][h] in hand else []  # only its face-down card
        pool += [(h, c) for c in hand if c not in known]
    checks = 0
    for i in range(len(pool)):
        for j in range(i + 1, len(pool)):
            if pool[i][0] == pool[j][0]:
                continue
            a, b = pool[i][1], pool[j][1]
            other = _swap(prefix, a, b)
            state2 = replay(rules, other)
            assert received(rules, state2, other, viewer) == received(rules, state, prefix, viewer), (
                f"seat {viewer} can tell {a} and {b} apart at event {cut}")
            checks += 1
            if checks >= 3:
                return checks
    return checks


def _object_swap_checks(events, cut, viewer):
    prefix = events[:cut]
    state = replay(rules, prefix)
    if state.get("phase") in (None, "setup"):
        return 0
    unseen = [p for p in range(len(state["objects"])) if not state["known"][p] and state["pairs"][p] is None]
    if len(unseen) < 2:
        return 0
    other = json.loads(json.dumps(prefix))
    objs = other[1]["data"]["objects"]
    p, q = unseen[0], unseen[-1]
    objs[p], objs[q] = objs[q], objs[p]
    state2 = replay(rules, other)
    assert received(rules, state2, other, viewer) == received(rules, state, prefix, viewer)
    return 1


def test_it_never_leaks_other_hands_random_cards_bot_decks_or_object_order():
    total = 0
    for n in (2, 4, 5, 8):
        for g in range(4):
            events, _ = play(KIND, n, {"round_limit": 25}, f"leak-{n}-{g}",
                             bot="heuristic" if g % 2 else "random", check_every=97, max_steps=2000)
            cuts = sorted({3 + (len(events) * k) // 7 for k in range(7)})
            for cut in cuts:
                for viewer in list(range(n)) + [None]:
                    total += _card_swap_checks(events, cut, viewer)
                    total += _object_swap_checks(events, cut, viewer)
    assert total > 200


def test_it_the_randomly_taken_card_changes_nothing_for_the_others():
    state, evs = start(DEAL4, emperor=0)
    state, evs, _ = act(state, evs, 0, {"type": "announce", "number": 4})
    state, evs, _ = act(state, evs, 1, {"type": "answer", "raise": True})
    state, evs, _ = act(state, evs, 2, {"type": "answer", "raise": False})
    state, evs, _ = act(state, evs, 3, {"type": "answer", "raise": False})
    state, evs, new = act(state, evs, 0, {"type": "take", "from": 2}, seed="pick")
    taken = new[0]["data"]["card"]
    # the same take, but another of C's cards came out
    alt = next(c for c in DEAL4[2] if c != taken)
    evs2 = evs[:-1] + [{"type": "take", "data": dict(new[0]["data"], card=alt)}]
    state2 = replay(rules, evs2)
    for seat in (1, 3, None):
        assert received(rules, state2, evs2, seat) == received(rules, state, evs, seat)
    for seat in (0, 2):
        assert received(rules, state2, evs2, seat) != received(rules, state, evs, seat)
    # and after the card given back
    give = {"type": "give", "card": "A7"}
    s1, e1, _ = act(state, evs, 0, give)
    s2, e2, _ = act(state2, evs2, 0, give)
    for seat in (1, 3, None):
        assert received(rules, s1, e1, seat) == received(rules, s2, e2, seat)


def test_it_sealed_answers_stay_secret_until_everyone_has_answered():
    state, evs = start(DEAL4, emperor=0)
    state, evs, _ = act(state, evs, 0, {"type": "announce", "number": 4})
    s1, e1, _ = act(state, evs, 1, {"type": "answer", "raise": True})
    s2, e2, _ = act(state, evs, 1, {"type": "answer", "raise": False})
    for seat in (0, 2, 3, None):
        assert received(rules, s1, e1, seat) == received(rules, s2, e2, seat)
    assert received(rules, s1, e1, 1) != received(rules, s2, e2, 1)


def test_it_a_punished_hand_is_public_but_its_exchanged_card_is_not():
    state, evs = start(DEAL4, emperor=0)
    state, evs, _ = act(state, evs, 0, {"type": "announce", "number": 7})
    for p, r in ((1, True), (2, True), (3, False)):
        state, evs, _ = act(state, evs, p, {"type": "answer", "raise": r})
    s1, e1, _ = act(state, evs, 0, {"type": "give", "card": "A3"})
    s2, e2, _ = act(state, evs, 0, {"type": "give", "card": "A2"})
    for seat in (2, 3, None):
        assert received(rules, s1, e1, seat) == received(rules, s2, e2, seat)
        assert rules.view(s1, seat)["players"][1]["public"] == ["A4", "S4", "S5"]
    # while C's hand (not punished) is not shown to anyone else
    for seat in (0, 1, 3, None):
        assert rules.view(s1, seat)["players"][2]["public"] is None


def test_it_spectators_and_players_never_see_the_deal_or_the_seed():
    events = rules.setup(5, {}, Rng("secret-seed-xyz", 0))
    state = replay(rules, events)
    for seat in (None, 0, 1, 2, 3, 4):
        text = received(rules, state, events, seat)
        assert "secret-seed-xyz" not in text
        others = [c for p in range(5) if p != seat for c in state["hands"][p]]
        data = json.loads(text)
        shown = json.dumps(data["view"]) + json.dumps(data["log"])
        for c in others:
            assert f'"{c}"' not in shown
        assert '"objects": [' not in json.dumps(data["log"])
    assert canonical(rules.view(state, None)["hand"]) == "null"
