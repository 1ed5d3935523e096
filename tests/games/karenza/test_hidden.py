"""Leak tests: changing the other seat's hidden cards changes nothing this seat or a spectator receives."""

import copy

from games.engine import canonical, replay
from games.karenza import rules
from games.registry import Kind
from tests.games.harness import play, received

KIND = Kind("karenza")


def _snapshots(n_games=6):
    """(events prefix, state) at several points of several bot games."""
    out = []
    for i in range(n_games):
        chars = [["michi", "eka"], ["eka", "eka"], ["michi", "michi"]][i % 3]
        events, _ = play(KIND, 2, {"characters": chars}, f"leak-{i}", bot=["heuristic", "random"])
        for frac in (0.2, 0.45, 0.7, 0.9):
            prefix = events[: max(12, int(len(events) * frac))]
            out.append((prefix, replay(rules, prefix)))
    return out


def _deck_event(events, seat):
    return next(e for e in events if e["type"] == "deck" and e["data"]["seat"] == seat)


def _reorder_deck(events, state, seat):
    """Reverse the undrawn part of ``seat``'s deck, in the events and the state alike."""
    events, state = copy.deepcopy(events), copy.deepcopy(state)
    remaining = rules.deck_of(state["players"][seat])
    if len(set(remaining)) < 2:
        return None
    d = _deck_event(events, seat)["data"]
    drawn = len(d["cards"]) - len(remaining)
    assert d["cards"][drawn:] == remaining
    d["cards"][drawn:] = list(reversed(remaining))
    state["players"][seat]["deck"] = " ".join(reversed(remaining))
    return events, state


def _swap_hand_card(events, state, seat):
    """Swap one card of ``seat``'s hand with a different card still in their deck."""
    events, state = copy.deepcopy(events), copy.deepcopy(state)
    p = state["players"][seat]
    deck = rules.deck_of(p)
    drews = [e for e in events if e["type"] == "drew" and e["data"]["seat"] == seat]
    drawn = [c for e in drews for c in e["data"]["cards"]]
    for x in sorted(set(p["hand"])):
        if any(e["data"].get("seat") == seat and (e["data"].get("card") == x or x in e["data"].get("addons", []))
               for e in events):
            continue  # some copy of x left the hand: swapping could contradict a later event
        ys = [y for y in deck if y != x and y not in drawn]  # a card whose copies never left the deck
        if not ys:
            continue
        y = ys[0]
        # the deck event: the first drawn x and the first y still in the deck trade places
        d = _deck_event(events, seat)["data"]
        i = drawn.index(x)
        j = len(drawn) + deck.index(y)
        d["cards"][i], d["cards"][j] = d["cards"][j], d["cards"][i]
        k = 0
        for e in drews:
            cards = e["data"]["cards"]
            if k <= i < k + len(cards):
                cards[i - k] = y
                break
            k += len(cards)
        p["hand"][p["hand"].index(x)] = y
        deck[deck.index(y)] = x
        p["deck"] = " ".join(deck)
        return events, state
    return None


def test_it_hides_the_other_hand_from_the_seat_and_spectators():
    checked = 0
    for events, state in _snapshots():
        for seat in (0, 1):
            other = 1 - seat
            changed = _swap_hand_card(events, state, other)
            if changed is None:
                continue
            ev2, st2 = changed
            assert canonical(replay(rules, ev2)) == canonical(st2), "the change must be consistent"
            assert received(rules, state, events, seat) == received(rules, st2, ev2, seat)
            assert received(rules, state, events, None) == received(rules, st2, ev2, None)
            # the owner does see the difference (the test changes something real)
            assert received(rules, state, events, other) != received(rules, st2, ev2, other)
            checked += 1
    assert checked >= 20


def test_it_hides_the_deck_order_from_everybody_including_its_owner():
    checked = 0
    for events, state in _snapshots():
        for seat in (0, 1):
            changed = _reorder_deck(events, state, seat)
            if changed is None:
                continue
            ev2, st2 = changed
            assert canonical(replay(rules, ev2)) == canonical(st2)
            assert canonical(st2) != canonical(state)
            for who in (0, 1, None):
                assert received(rules, state, events, who) == received(rules, st2, ev2, who)
            checked += 1
    assert checked >= 20


def test_it_shows_counts_and_sequences_but_not_contents():
    events, _ = play(KIND, 2, {}, "counts", bot="heuristic")
    state = replay(rules, events[:60])
    for seat in (0, 1, None):
        v = rules.view(state, seat)
        for s, pv in enumerate(v["players"]):
            real = state["players"][s]
            assert pv["hand_count"] == len(real["hand"]) and pv["deck_count"] == len(rules.deck_of(real))
            assert "hand" not in pv and "deck" not in pv
            assert pv["sequence"] == real["sequence"]
        if seat is None:
            assert "hand" not in v
        else:
            assert v["hand"] == state["players"][seat]["hand"]
    for e in events:
        if e["type"] == "deck":
            for who in (0, 1, None):
                assert "cards" not in rules.redact(e, who)["data"]
        if e["type"] == "drew":
            owner = e["data"]["seat"]
            assert "cards" in rules.redact(e, owner)["data"]
            assert "cards" not in rules.redact(e, 1 - owner)["data"]
            assert "cards" not in rules.redact(e, None)["data"]


def test_it_gives_reasons_that_do_not_reveal_hidden_cards():
    events, _ = play(KIND, 2, {}, "reasons", bot="random")
    state = replay(rules, events[:40])
    waiting = 1 - state["turn"]
    import pytest

    from games.engine import IllegalAction

    for code in rules.deck_of(state["players"][waiting]) + state["players"][waiting]["hand"]:
        with pytest.raises(IllegalAction) as exc:
            rules.decide(state, waiting, {"type": "attack", "card": code, "addons": []}, None)
        assert exc.value.reason == "It is not your turn."
