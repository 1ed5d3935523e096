"""Kinapa: the rulebook's rules and examples as scenario tests."""

import json

import pytest

from games.engine import IllegalAction, RESIGN, canonical, replay
from games.kinapa import rules
from games.rng import Rng

from .helpers import DEAL4, act, answer_all, start, two_player, types

A, B, C, D = 0, 1, 2, 3


# ----------------------------------------------------------------- players and setup


def test_it_refuses_three_players_with_a_clear_message():
    with pytest.raises(IllegalAction) as err:
        rules.check_players(3, {})
    assert "three players" in err.value.reason
    for bad in (0, 1, 9):
        with pytest.raises(IllegalAction):
            rules.check_players(bad, {})
    for good in (2, 4, 5, 6, 7, 8):
        rules.check_players(good, {})


def test_it_refuses_unknown_or_out_of_range_options():
    with pytest.raises(IllegalAction):
        rules.check_players(4, {"window_seconds": 1})
    with pytest.raises(IllegalAction):
        rules.check_players(4, {"colour": "red"})


def test_it_prepares_cards_1_to_2n_four_each_and_the_cat_holder_is_first_emperor():
    for n in range(4, 9):
        for seed in range(5):
            state = replay(rules, rules.setup(n, {}, Rng(f"setup{seed}", 0)))
            hands = state["hands"]
            assert len(hands) == n and all(len(h) == 4 for h in hands)
            cards = sorted(c for h in hands for c in h)
            assert cards == sorted(f"{k}{i}" for i in range(1, 2 * n + 1) for k in "AS")
            assert sorted(state["objects"]) == list(range(n))          # objects 1-2 .. (2n-1)-2n
            assert not any(state["known"])                             # face down
            emp = state["emperor"]
            assert "A1" in hands[emp]                                  # the Maneki-Neko
            assert state["sheep"] == [p == emp for p in range(n)]      # the first Emperor takes a Sheep
            assert rules.to_act(state) == {emp: {"kind": "turn", "default": None, "seconds": None}}


def test_it_example_four_players_play_with_cards_1_to_8():
    state = replay(rules, rules.setup(4, {}, Rng("four", 0)))
    assert state["numbers"] == 8
    assert [a["notation"] for a in rules.legal_actions(state, state["emperor"])] == [f"kinapa {k}" for k in range(1, 9)]


# ----------------------------------------------------------------- the window


def test_it_opens_a_secret_window_for_every_other_player_with_do_nothing_as_default():
    state, evs = start(DEAL4, emperor=A, options={"window_seconds": 12})
    state, evs, _ = act(state, evs, A, {"type": "announce", "number": 7})
    acting = rules.to_act(state)
    assert sorted(acting) == [B, C, D]
    for p in (B, C, D):
        assert acting[p] == {"kind": "window", "default": {"type": "answer", "raise": False}, "seconds": 12}
        assert [a["notation"] for a in rules.legal_actions(state, p)] == ["raise", "nothing"]
    assert rules.legal_actions(state, A) == []
    state, evs, new = act(state, evs, B, {"type": "answer", "raise": True})
    # nobody else learns B's choice before everyone has answered
    assert rules.redact(new[0], C) == {"type": "answer", "data": {"seat": B}}
    assert rules.redact(new[0], None) == {"type": "answer", "data": {"seat": B}}
    assert rules.view(state, C)["my_answer"] is None
    assert rules.view(state, B)["my_answer"] is True
    with pytest.raises(IllegalAction):
        act(state, evs, B, {"type": "answer", "raise": False})  # answered already
    state, evs, _ = act(state, evs, C, {"type": "answer", "raise": True})
    state, evs, new = act(state, evs, D, {"type": "answer", "raise": False})
    reveal = next(e for e in new if e["type"] == "reveal")
    assert reveal["data"]["raised"] == [B, C] and reveal["data"]["silent"] == [D]


# ----------------------------------------------------------------- the exchange


def test_it_two_silent_players_the_emperor_takes_at_random_and_gives_back_another_card():
    state, evs = start(DEAL4, emperor=A)
    state, evs, _ = act(state, evs, A, {"type": "announce", "number": 4})
    state, evs, new = answer_all(state, evs, raises={D})
    assert "choose_target" in types(new)
    assert [a["notation"] for a in rules.legal_actions(state, A)] == ["take 2", "take 3"]
    state, evs, new = act(state, evs, A, {"type": "take", "from": C})
    take = new[0]
    assert take["type"] == "take" and take["data"]["card"] in DEAL4[C]
    got = take["data"]["card"]
    assert got in state["hands"][A]
    gives = [a["action"]["card"] for a in rules.legal_actions(state, A)]
    assert got not in gives and sorted(gives) == sorted(DEAL4[A])     # never the card just received
    with pytest.raises(IllegalAction):
        act(state, evs, A, {"type": "give", "card": got})
    state, evs, _ = act(state, evs, A, {"type": "give", "card": "A7"})
    assert "A7" in state["hands"][C] and len(state["hands"][C]) == 4
    assert state["phase"] == "flip"


def test_it_the_random_card_is_seen_by_the_two_players_involved_only():
    state, evs = start(DEAL4, emperor=A)
    state, evs, _ = act(state, evs, A, {"type": "announce", "number": 4})
    state, evs, _ = answer_all(state, evs, raises=set())
    state, evs, new = act(state, evs, A, {"type": "take", "from": C})
    take = new[0]
    assert "card" in rules.redact(take, A)["data"] and "card" in rules.redact(take, C)["data"]
    for other in (B, D, None):
        assert "card" not in rules.redact(take, other)["data"]
        assert rules.view(state, other)["taken"] is None
    assert rules.view(state, C)["taken"] == take["data"]["card"]
    state, evs, new = act(state, evs, A, {"type": "give", "card": "A7"})
    for other in (B, D, None):
        assert "card" not in rules.redact(new[0], other)["data"]
    assert rules.redact(new[0], C)["data"]["card"] == "A7"


def test_it_one_silent_player_hands_over_the_announced_card():
    state, evs = start(DEAL4, emperor=A)
    state, evs, _ = act(state, evs, A, {"type": "announce", "number": 7})
    state, evs, new = answer_all(state, evs, raises={C, D})
    demand = next(e for e in new if e["type"] == "demand")
    assert demand["data"] == {"emperor": A, "from": B, "card": "S7", "number": 7, "liar": False}
    assert rules.redact(demand, D) == demand                          # handed over in the open
    assert state["foxes"] == [0, 0, 0, 0]
    assert [a["action"]["card"] for a in rules.legal_actions(state, A)] == ["A2", "S2", "A3", "A7"]  # not S7, just received


def test_it_rulebook_lying_example_b_raised_while_holding_the_7():
    # A asks for 7; B and C raise their hands, only D does nothing; B holds the 7: "Liar!"
    state, evs = start(DEAL4, emperor=A)
    state, evs, _ = act(state, evs, A, {"type": "announce", "number": 7})
    state, evs, new = answer_all(state, evs, raises={B, C})
    assert types(new)[-3:] == ["reveal", "demand", "exposed"]
    demand = new[-2]["data"]
    assert demand["from"] == B and demand["card"] == "S7" and demand["liar"] is True
    assert state["foxes"][B] == 2                                     # the two Fox cards
    assert new[-1]["data"]["hand"] == ["A4", "S4", "S5"]              # B's cards laid face up
    state, evs, new = act(state, evs, A, {"type": "give", "card": "A3"})
    # the card received in exchange can remain hidden
    assert "card" not in rules.redact(new[0], C)["data"]
    for seat in (C, D, None):
        info = rules.view(state, seat)["players"][B]
        assert info["public"] == ["A4", "S4", "S5"] and info["hidden"] == 1
    assert rules.view(state, B)["hand"] == ["A3", "A4", "S4", "S5"]
    # A finishes the turn: turns an object over (no pair) ...
    state, evs, new = act(state, evs, A, {"type": "flip", "pos": 2})
    assert types(new)[:2] == ["flip", "hide"]
    # ... and B, who has no Sheep, has priority to be the next Emperor
    assert rules.next_candidates(state) == [B] or state["emperor"] == B
    assert state["emperor"] == B and state["sheep"][B]


def test_it_a_punished_player_cannot_raise_a_hand_and_is_counted_as_silent():
    state, evs = start(DEAL4, emperor=A)
    state, evs, _ = act(state, evs, A, {"type": "announce", "number": 7})
    state, evs, _ = answer_all(state, evs, raises={B, C})
    state, evs, _ = act(state, evs, A, {"type": "give", "card": "A3"})
    state, evs, _ = act(state, evs, A, {"type": "flip", "pos": 2})
    assert state["emperor"] == B
    # B announces; punished B is Emperor now. Next round with another Emperor: B cannot raise.
    state, evs, _ = act(state, evs, B, {"type": "announce", "number": 2})
    state, evs, new = answer_all(state, evs, raises={C, D})
    state, evs, _ = act(state, evs, B, {"type": "give", "card": "A4"}) if state["phase"] == "give" else (state, evs, [])
    state, evs, _ = act(state, evs, B, {"type": "flip", "pos": 3})
    if state["phase"] == "next":
        state, evs, _ = act(state, evs, B, {"type": "next", "seat": C})
    assert state["emperor"] in (C, D)
    emp = state["emperor"]
    state, evs, _ = act(state, evs, emp, {"type": "announce", "number": 5})
    assert B not in state["waiting"]
    assert rules.legal_actions(state, B) == []
    with pytest.raises(IllegalAction) as err:
        rules.decide(state, B, {"type": "answer", "raise": True}, Rng("x", 0))
    assert "cannot raise" in err.value.reason


def test_it_fox_cards_go_back_one_at_each_change_of_emperor_after_the_punished_round():
    state, evs = start(DEAL4, emperor=A)
    state["foxes"][B], state["fox_wait"][B] = 2, True
    from games.engine import event
    # the change at the end of the liar's own round does not count
    state = rules.evolve(state, event("emperor", seat=C, prev=A, reason="chosen"))
    assert state["foxes"][B] == 2
    state = rules.evolve(state, event("emperor", seat=C, prev=C, reason="chosen"))   # no change: nothing
    assert state["foxes"][B] == 2
    state = rules.evolve(state, event("emperor", seat=D, prev=C, reason="chosen"))
    assert state["foxes"][B] == 1
    state = rules.evolve(state, event("emperor", seat=A, prev=D, reason="chosen"))
    assert state["foxes"][B] == 0
    assert rules.view(state, C)["players"][B]["public"] is None      # hand hidden again


def test_it_special_case_emperor_holds_the_pair_and_everybody_raises_no_exchange():
    state, evs = start(DEAL4, emperor=A)
    state, evs, _ = act(state, evs, A, {"type": "announce", "number": 2})
    state, evs, new = answer_all(state, evs, raises={B, C, D})
    assert types(new)[-3:] == ["reveal", "show_pair", "no_exchange"]
    assert new[-2]["data"]["cards"] == ["A2", "S2"]
    assert state["hands"][A] == DEAL4[A] and state["phase"] == "flip"


def test_it_special_case_one_player_did_not_raise_the_emperor_must_take_from_them():
    state, evs = start(DEAL4, emperor=A)
    state, evs, _ = act(state, evs, A, {"type": "announce", "number": 2})
    state, evs, new = answer_all(state, evs, raises={B, C})
    assert types(new)[-3:] == ["reveal", "show_pair", "take"]
    assert new[-1]["data"]["from"] == D and new[-1]["data"]["card"] in DEAL4[D]
    assert state["phase"] == "give"


def test_it_special_case_two_silent_players_the_emperor_designates_one():
    state, evs = start(DEAL4, emperor=A)
    state, evs, _ = act(state, evs, A, {"type": "announce", "number": 2})
    state, evs, new = answer_all(state, evs, raises={B})
    assert types(new)[-2:] == ["reveal", "show_pair"]
    assert [a["notation"] for a in rules.legal_actions(state, A)] == ["take 3", "take 4"]


# ----------------------------------------------------------------- end of the turn


def _to_flip(hands, objects, emperor=A):
    """Announce a pair the Emperor holds; everybody raises: no exchange, straight to the end of turn."""
    state, evs = start(hands, objects=objects, emperor=emperor)
    nums = [rules.num(c) for c in hands[emperor]]
    pair = next(x for x in nums if nums.count(x) == 2)
    state, evs, _ = act(state, evs, emperor, {"type": "announce", "number": pair})
    state, evs, _ = answer_all(state, evs, raises={p for p in range(len(hands)) if p != emperor})
    assert state["phase"] == "flip"
    return state, evs


def test_it_example_pair_of_5_on_object_5_6_then_a_new_object_must_be_revealed():
    hands = [["A5", "S5", "A3", "S2"], ["A1", "A2", "S3", "A4"], ["S1", "S4", "A6", "S6"], ["A7", "S7", "A8", "S8"]]
    state, evs = _to_flip(hands, objects=[2, 3, 0, 1])      # position 1 hides object 5-6
    state, evs, new = act(state, evs, A, {"type": "flip", "pos": 0})
    assert types(new) == ["flip", "place"]
    assert new[1]["data"]["number"] == 5
    assert state["pairs"][0] == {"seat": A, "number": 5} and state["placed"][A] == 1
    assert state["phase"] == "flip"                                   # must reveal a new object card
    # object 7-8: no pair, turned face down again in the same place (now remembered by all)
    state, evs, new = act(state, evs, A, {"type": "flip", "pos": 1})
    assert types(new)[:2] == ["flip", "hide"]
    v = rules.view(state, None)
    assert v["objects"][1]["object"] == 3 and v["objects"][1]["pair"] is None
    assert v["objects"][2]["object"] is None                          # never seen: unknown


def test_it_the_second_pair_wins_the_game():
    hands = [["A5", "S5", "A3", "S3"], ["A1", "A2", "S4", "A4"], ["S1", "S2", "A6", "S6"], ["A7", "S7", "A8", "S8"]]
    state, evs = _to_flip(hands, objects=[2, 1, 0, 3])
    state, evs, new = act(state, evs, A, {"type": "flip", "pos": 0})
    assert types(new) == ["flip", "place"]
    state, evs, new = act(state, evs, A, {"type": "flip", "pos": 1})
    assert types(new) == ["flip", "place", "end"]
    res = rules.result(state)
    assert res["winners"] == [A] and res["ranks"][A] == 1 and res["scores"][A] == 2
    assert rules.to_act(state) == {} and rules.legal_actions(state, A) == []


def test_it_never_places_a_pair_on_an_object_that_already_holds_one():
    hands = [["A5", "S5", "A6", "S6"], ["A1", "A2", "S4", "A4"], ["S1", "S2", "A3", "S3"], ["A7", "S7", "A8", "S8"]]
    state, evs = _to_flip(hands, objects=[2, 1, 0, 3])
    state, evs, new = act(state, evs, A, {"type": "flip", "pos": 0})
    assert new[1]["data"]["number"] == 5                  # one pair only on 5-6
    assert state["hands"][A] == ["A6", "S6"]
    assert "turn 1" not in [a["notation"] for a in rules.legal_actions(state, A)]


def test_it_all_objects_taken_without_a_winner_ends_the_game_safety_rule():
    hands = [["A7", "S7", "A2", "S2"], ["A1", "S1", "A4", "S4"], ["A3", "S3", "A6", "S6"], ["A5", "S5", "A8", "S8"]]
    state, evs = start(hands, objects=[0, 1, 2, 3], emperor=A)
    for pos, seat in ((0, B), (1, C), (2, D)):
        state["pairs"][pos] = {"seat": seat, "number": 2 * pos + 1}
        state["placed"][seat] = 1
    state, evs, _ = act(state, evs, A, {"type": "announce", "number": 2})
    state, evs, _ = answer_all(state, evs, raises={B, C, D})
    state, evs, new = act(state, evs, A, {"type": "flip", "pos": 3})
    assert types(new) == ["flip", "place", "end"]
    assert new[-1]["data"]["reason"] == "objects"
    res = rules.result(state)
    assert res["winners"] == [A, B, C, D] and res["ranks"] == [1, 1, 1, 1]


def test_it_round_limit_ends_the_game_ranked_by_pairs():
    state, evs = start(DEAL4, emperor=A, options={"round_limit": 10})
    state["round"] = 10
    state["placed"] = [0, 1, 1, 0]
    state, evs, _ = act(state, evs, A, {"type": "announce", "number": 8})
    state, evs, _ = answer_all(state, evs, raises=set())
    state, evs, _ = act(state, evs, A, {"type": "take", "from": B})
    state, evs, _ = act(state, evs, A, {"type": "give", "card": rules.legal_actions(state, A)[0]["action"]["card"]})
    state, evs, new = act(state, evs, A, {"type": "flip", "pos": 3})
    assert new[-1]["type"] == "end" and new[-1]["data"]["reason"] == "rounds"
    res = rules.result(state)
    assert res["winners"] == [B, C] and res["ranks"] == [3, 1, 1, 3]


# ----------------------------------------------------------------- next Emperor and Sheep


def test_it_nobody_raised_the_emperor_stays():
    state, evs = start(DEAL4, emperor=A)
    state, evs, _ = act(state, evs, A, {"type": "announce", "number": 4})
    state, evs, _ = answer_all(state, evs, raises=set())
    state, evs, _ = act(state, evs, A, {"type": "take", "from": B})
    state, evs, _ = act(state, evs, A, rules.legal_actions(state, A)[0]["action"])
    state, evs, _ = act(state, evs, A, {"type": "flip", "pos": 3})
    assert state["emperor"] == A and state["round"] == 2 and state["phase"] == "announce"


def test_it_next_emperor_is_chosen_among_raisers_without_a_sheep_first():
    state, evs = start(DEAL4, emperor=A)
    state["sheep"][B] = True
    state, evs, _ = act(state, evs, A, {"type": "announce", "number": 8})
    state, evs, _ = answer_all(state, evs, raises={B, D})
    # C did nothing and holds S8: the card is handed over; B and D raised, B has a Sheep
    state, evs, _ = act(state, evs, A, {"type": "give", "card": "A2"})
    state, evs, new = act(state, evs, A, {"type": "flip", "pos": 3})
    assert state["emperor"] == D and state["sheep"][D]


def test_it_the_emperor_chooses_when_several_raisers_have_no_sheep():
    state, evs = start(DEAL4, emperor=A)
    state, evs, _ = act(state, evs, A, {"type": "announce", "number": 8})
    state, evs, _ = answer_all(state, evs, raises={B, D})
    state, evs, _ = act(state, evs, A, {"type": "give", "card": "A2"})
    state, evs, _ = act(state, evs, A, {"type": "flip", "pos": 3})
    assert state["phase"] == "next"
    assert [a["notation"] for a in rules.legal_actions(state, A)] == ["emperor 2", "emperor 4"]
    assert rules.to_act(state) == {A: {"kind": "turn", "default": None, "seconds": None}}
    state, evs, _ = act(state, evs, A, {"type": "next", "seat": B})
    assert state["emperor"] == B and state["sheep"] == [True, True, False, False]


def test_it_sheep_go_back_when_everyone_has_one_except_the_last_given():
    state, evs = start(DEAL4, emperor=A)
    state["sheep"] = [True, True, True, False]
    state, evs, _ = act(state, evs, A, {"type": "announce", "number": 8})
    state, evs, _ = answer_all(state, evs, raises={B, D})
    state, evs, _ = act(state, evs, A, {"type": "give", "card": "A2"})
    state, evs, new = act(state, evs, A, {"type": "flip", "pos": 3})
    assert state["emperor"] == D                            # D alone has no Sheep: no choice
    assert state["sheep"] == [False, False, False, True]
    emp = next(e for e in new if e["type"] == "emperor")
    assert emp["data"]["sheep"] and emp["data"]["sheep_reset"]
    assert "go back to the centre" in rules.describe(emp, ["A", "B", "C", "D"])


# ----------------------------------------------------------------- resign


def test_it_resign_in_four_players_removes_the_cards_and_the_game_goes_on():
    state, evs = start(DEAL4, emperor=A)
    state, evs, _ = act(state, evs, A, {"type": "announce", "number": 7})
    state, evs, _ = act(state, evs, B, RESIGN)
    assert state["hands"][B] == [] and not state["active"][B]
    assert B not in state["waiting"] and rules.result(state) is None
    state, evs, new = answer_all(state, evs, raises={C, D})
    assert new[-1]["type"] == "no_exchange"                 # the 7 left the game with B


def test_it_resign_of_the_emperor_passes_the_emperor_card():
    state, evs = start(DEAL4, emperor=A)
    state, evs, new = act(state, evs, A, RESIGN)
    assert state["emperor"] == B and state["phase"] == "announce"


def test_it_last_player_standing_wins_and_resigners_rank_by_order():
    state, evs = start(DEAL4, emperor=A)
    for seat in (C, A, D):
        state, evs, _ = act(state, evs, seat, RESIGN)
    res = rules.result(state)
    assert res["winners"] == [B] and res["ranks"] == [3, 1, 4, 2]
    with pytest.raises(IllegalAction):
        act(state, evs, B, RESIGN)


# ----------------------------------------------------------------- two players


def test_it_two_players_deal_a_hand_and_a_bot_deck_each():
    for seed in range(20):
        state = replay(rules, rules.setup(2, {}, Rng(f"two{seed}", 0)))
        assert state["two"] and state["numbers"] == 8 and len(state["hands"]) == 4
        assert all(len(h) == 4 for h in state["hands"])
        assert sorted(state["objects"]) == [0, 1, 2, 3]
        assert "A1" in state["hands"][state["emperor"]]


def test_it_two_players_switch_when_the_cat_lies_in_a_bot():
    from games.engine import event
    seen = set()
    for seed in range(40):
        evs = rules.setup(2, {}, Rng(f"cat{seed}", 0))
        switched = [e for e in evs if e["type"] == "switch"]
        seen.add(len(switched))
        if switched:
            deal = evs[1]["data"]["hands"]
            assert any("A1" in deal[h] for h in (2, 3))
            state = replay(rules, evs)
            assert state["hands"][0] == deal[2] and state["hands"][2] == deal[0]
            # the other player does not see the new hand
            assert "hand" not in rules.redact(switched[0], 1)["data"]
            assert rules.redact(switched[0], 0)["data"]["hand"] == deal[2]
    assert seen == {0, 2}


def test_it_two_players_opponent_raises_the_bot_hands_over_the_card():
    state, evs = two_player([["A1", "S1", "A2", "A3"], ["S2", "A4", "S4", "S5"]],
                            [["S3", "A5", "A6", "S6"], ["A7", "S7", "A8", "S8"]])
    state, evs, _ = act(state, evs, 0, {"type": "announce", "number": 7})
    assert list(rules.to_act(state)) == [1]
    state, evs, new = act(state, evs, 1, {"type": "answer", "raise": True})
    demand = next(e for e in new if e["type"] == "demand")
    assert demand["data"]["from"] == 3 and demand["data"]["liar"] is False   # player 2's BOT


def test_it_two_players_opponent_lies_and_is_exposed():
    state, evs = two_player([["A1", "S1", "A2", "A3"], ["S2", "A7", "S4", "S5"]],
                            [["S3", "A5", "A6", "S6"], ["A4", "S7", "A8", "S8"]])
    state, evs, _ = act(state, evs, 0, {"type": "announce", "number": 2})
    state, evs, new = act(state, evs, 1, {"type": "answer", "raise": True})
    demand = next(e for e in new if e["type"] == "demand")
    assert demand["data"]["from"] == 1 and demand["data"]["liar"] is True
    assert state["foxes"][1] == 2


def test_it_two_players_opponent_does_nothing_the_emperor_picks_hand_or_bot():
    state, evs = two_player([["A1", "S1", "A2", "A3"], ["S2", "A4", "S4", "S5"]],
                            [["S3", "A5", "A6", "S6"], ["A7", "S7", "A8", "S8"]])
    state, evs, _ = act(state, evs, 0, {"type": "announce", "number": 7})
    state, evs, _ = act(state, evs, 1, {"type": "answer", "raise": False})
    assert [a["notation"] for a in rules.legal_actions(state, 0)] == ["take 2", "take bot 2"]
    state, evs, new = act(state, evs, 0, {"type": "take", "from": 3})
    assert "card" not in rules.redact(new[0], 1)["data"]         # nobody looks at a BOT deck
    assert "card" in rules.redact(new[0], 0)["data"]
    state, evs, new = act(state, evs, 0, {"type": "give", "card": "A2"})
    assert "card" not in rules.redact(new[0], 1)["data"]
    assert "A2" in state["hands"][3]


def test_it_two_players_switch_lays_down_the_hand_and_passes_the_emperor():
    state, evs = two_player([["A1", "S1", "A2", "A3"], ["S2", "A4", "S4", "S5"]],
                            [["S3", "A5", "A6", "S6"], ["A7", "S7", "A8", "S8"]])
    assert "switch" in [a["notation"] for a in rules.legal_actions(state, 0)]
    state, evs, new = act(state, evs, 0, {"type": "switch"})
    assert state["hands"][0] == ["S3", "A5", "A6", "S6"] and state["hands"][2] == ["A1", "S1", "A2", "A3"]
    assert "hand" not in rules.redact(new[0], 1)["data"]
    state, evs, new = act(state, evs, 0, {"type": "flip", "pos": 0})   # object 1-2: no pair now
    assert state["emperor"] == 1


def test_it_two_players_resign_the_other_wins():
    state, evs = two_player([["A1", "S1", "A2", "A3"], ["S2", "A4", "S4", "S5"]],
                            [["S3", "A5", "A6", "S6"], ["A7", "S7", "A8", "S8"]])
    state, evs, _ = act(state, evs, 1, RESIGN)
    assert rules.result(state)["winners"] == [0]


# ----------------------------------------------------------------- refusals


def test_it_refuses_moves_out_of_turn_and_nonsense_without_revealing_anything():
    state, evs = start(DEAL4, emperor=A)
    for bad in ({"type": "announce", "number": 99}, {"type": "flip", "pos": 0}, {"type": "announce"}, "x"):
        with pytest.raises(IllegalAction):
            rules.decide(state, A, bad, Rng("x", 0))
    with pytest.raises(IllegalAction) as err:
        rules.decide(state, B, {"type": "announce", "number": 3}, Rng("x", 0))
    assert "Emperor" in err.value.reason
    with pytest.raises(IllegalAction):
        rules.decide(state, None, {"type": "announce", "number": 3}, Rng("x", 0))


# ----------------------------------------------------------------- more edge cases


def test_it_the_window_default_is_doing_nothing():
    state, evs = start(DEAL4, emperor=A)
    state, evs, _ = act(state, evs, A, {"type": "announce", "number": 4})
    for p, wait in sorted(rules.to_act(state).items()):
        state, evs, new = act(state, evs, p, wait["default"])
    reveal = next(e for e in new if e["type"] == "reveal")
    assert reveal["data"]["raised"] == [] and reveal["data"]["silent"] == [B, C, D]


def test_it_resign_of_the_player_taken_from_lets_the_emperor_keep_the_card():
    state, evs = start(DEAL4, emperor=A)
    state, evs, _ = act(state, evs, A, {"type": "announce", "number": 4})
    state, evs, _ = answer_all(state, evs, raises=set())
    state, evs, new = act(state, evs, A, {"type": "take", "from": C})
    got = new[0]["data"]["card"]
    state, evs, _ = act(state, evs, C, RESIGN)
    assert got in state["hands"][A] and len(state["hands"][A]) == 5
    assert state["phase"] == "flip" and rules.to_act(state) == {A: {"kind": "turn", "default": None, "seconds": None}}


def test_it_resign_leaving_one_silent_player_makes_the_take_automatic():
    state, evs = start(DEAL4, emperor=A)
    state, evs, _ = act(state, evs, A, {"type": "announce", "number": 4})
    state, evs, _ = answer_all(state, evs, raises={D})
    assert state["phase"] == "target"
    state, evs, new = act(state, evs, B, RESIGN)
    assert types(new) == ["resign", "take"] and new[1]["data"]["from"] == C


def test_it_a_new_liar_takes_both_foxes_from_an_earlier_one():
    state, evs = start(DEAL4, emperor=A)
    state["foxes"][C], state["fox_wait"][C] = 1, False
    state, evs, _ = act(state, evs, A, {"type": "announce", "number": 7})
    assert C not in state["waiting"]
    state, evs, _ = answer_all(state, evs, raises={B, D})
    # C (punished, silent) does not hold a 7; B raised and holds it: exposed
    assert state["foxes"] == [0, 2, 0, 0] and state["liar"] == B


def test_it_two_players_a_punished_opponent_is_not_asked():
    state, evs = two_player([["A1", "S1", "A2", "A3"], ["S2", "A7", "S4", "S5"]],
                            [["S3", "A5", "A6", "S6"], ["A4", "S7", "A8", "S8"]])
    state["foxes"][1] = 2
    state, evs, new = act(state, evs, 0, {"type": "announce", "number": 4})
    assert types(new) == ["announce", "reveal", "choose_target"]
    assert [a["notation"] for a in rules.legal_actions(state, 0)] == ["take 2", "take bot 2"]


def _six_player_game_where_the_emperor_resigns_mid_exchange_twice():
    """X (seat 1) puts a pair down, then two Emperors take a card from X and resign before giving back."""
    hands = [["A1", "S1", "A2", "S2"], ["A3", "S3", "A4", "A9"], ["S4", "A5", "S5", "A6"],
             ["S6", "A7", "S7", "A8"], ["S8", "S9", "A10", "S10"], ["A11", "S11", "A12", "S12"]]
    X = 1
    state, evs = start(hands, emperor=X)
    state, evs, _ = act(state, evs, X, {"type": "announce", "number": 3})
    state, evs, _ = answer_all(state, evs, raises={0, 2, 3, 4, 5})
    state, evs, _ = act(state, evs, X, {"type": "flip", "pos": 1})      # 3-4: the pair of 3 goes down
    state, evs, _ = act(state, evs, X, {"type": "flip", "pos": 0})      # 1-2: face down again
    state, evs, _ = act(state, evs, X, {"type": "next", "seat": 2})
    assert state["placed"][X] == 1 and state["hands"][X] == ["A4", "A9"]
    for emp in (2, 3):
        state, evs, _ = act(state, evs, emp, {"type": "announce", "number": 12})
        state, evs, _ = answer_all(state, evs, raises={p for p in range(6) if p not in (0, X)})
        state, evs, new = act(state, evs, emp, {"type": "take", "from": X})
        taken = new[0]["data"]["card"]
        state, evs, new = act(state, evs, emp, RESIGN)
        assert taken in state["hands"][X]
    return state, evs, X


def test_it_the_emperor_resigning_mid_exchange_gives_the_taken_card_back():
    state, evs, X = _six_player_game_where_the_emperor_resigns_mid_exchange_twice()
    # X lost nothing to the two Emperors who left (before: X's hand shrank to nothing) ...
    assert sorted(state["hands"][X]) == ["A4", "A9"]
    # ... so when X later becomes Emperor and takes a card, there is always one to give back
    state, evs, _ = act(state, evs, 4, {"type": "announce", "number": 12})
    state, evs, _ = answer_all(state, evs, raises={X})
    state, evs, _ = act(state, evs, 4, {"type": "take", "from": 5})
    give = next(a for a in rules.legal_actions(state, 4) if a["action"]["type"] == "give")
    state, evs, _ = act(state, evs, 4, give["action"])
    state, evs, _ = act(state, evs, 4, rules.legal_actions(state, 4)[0]["action"])
    assert state["emperor"] == X
    state, evs, _ = act(state, evs, X, {"type": "announce", "number": 12})
    state, evs, _ = answer_all(state, evs, raises=set())
    state, evs, _ = act(state, evs, X, {"type": "take", "from": 0})
    assert rules.to_act(state) == {X: {"kind": "turn", "default": None, "seconds": None}}
    assert any(a["action"]["type"] == "give" for a in rules.legal_actions(state, X))
    assert canonical(replay(rules, evs)) == canonical(state)


def test_it_a_face_down_card_taken_from_a_punished_player_goes_back_face_down_if_the_emperor_leaves():
    state, evs = start(DEAL4, emperor=A)
    state["sheep"][B] = True                                             # so C, not B, is the next Emperor
    state, evs, _ = act(state, evs, A, {"type": "announce", "number": 7})
    state, evs, _ = answer_all(state, evs, raises={B, C})               # B lied: B holds S7
    state, evs, _ = act(state, evs, A, {"type": "give", "card": "A3"})   # A3 lies face down with B
    state, evs, _ = act(state, evs, A, {"type": "flip", "pos": 2})
    assert state["emperor"] == C and state["foxes"][B] == 2 and state["hidden"][B] == "A3"
    state, evs, _ = act(state, evs, C, {"type": "announce", "number": 8})
    state, evs, _ = answer_all(state, evs, raises=set())
    hidden = state["hidden"][B]
    assert hidden is not None
    before = {seat: rules.view(state, seat)["players"][B]["public"] for seat in (A, D, None)}
    for i in range(200):    # a seed whose random draw is B's face-down card
        s2, e2, new = act(state, evs, C, {"type": "take", "from": B}, seed=f"draw-{i}")
        if new[0]["data"]["card"] == hidden:
            break
    assert new[0]["data"]["public"] is False
    s2, e2, new = act(s2, e2, C, RESIGN)
    assert hidden in s2["hands"][B] and s2["hidden"][B] == hidden and s2["foxes"][B] == 1
    for seat in (A, D, None):
        assert rules.view(s2, seat)["players"][B]["public"] == before[seat]
        assert hidden not in json.dumps([rules.redact(e, seat) for e in new])


# ----------------------------------------------------------------- issue 13: two players, second pass


TWO_HANDS = [["A1", "S1", "A2", "A3"], ["S2", "A7", "S4", "S5"]]
TWO_BOTS = [["S3", "A5", "A6", "S6"], ["A4", "S7", "A8", "S8"]]


def _finish_turn(state, evs, emp):
    """The Emperor turns over face-down objects until the turn moves on (no pair goes down here)."""
    while state["emperor"] == emp and state["phase"] == "flip":
        pos = next(p for p in range(len(state["pairs"])) if state["pairs"][p] is None)
        state, evs, _ = act(state, evs, emp, {"type": "flip", "pos": pos})
    return state, evs


def test_it_two_players_a_liar_is_punished_for_two_rounds_even_when_the_emperor_stays():
    # Round 1: bob (seat 1) raises a hand for the 2 he holds: Liar!
    state, evs = two_player(TWO_HANDS, TWO_BOTS, objects=[3, 2, 1, 0])
    state, evs, _ = act(state, evs, 0, {"type": "announce", "number": 2})
    state, evs, _ = act(state, evs, 1, {"type": "answer", "raise": True})
    assert state["foxes"][1] == 2 and state["liar"] == 1
    state, evs, _ = act(state, evs, 0, {"type": "give", "card": "A3"})
    state, evs = _finish_turn(state, evs, 0)
    assert state["round"] == 2 and state["emperor"] == 1 and state["foxes"][1] == 2
    # Round 2: bob is the Emperor; alice raises, so alice is the Emperor again
    state, evs, _ = act(state, evs, 1, {"type": "announce", "number": 8})
    state, evs, _ = act(state, evs, 0, {"type": "answer", "raise": True})
    state, evs = _finish_turn(state, evs, 1)
    assert state["round"] == 3 and state["emperor"] == 0 and state["foxes"][1] == 1
    # Round 3: bob is not asked, his BOT never raises: nobody raised and alice stays the Emperor
    state, evs, new = act(state, evs, 0, {"type": "announce", "number": 6})
    assert "window" not in [k["kind"] for k in rules.to_act(state).values()]
    state, evs, _ = act(state, evs, 0, {"type": "take", "from": 3})
    state, evs, _ = act(state, evs, 0, {"type": "give", "card": next(iter(state["hands"][0]))
                                          if state["taken"] != state["hands"][0][0] else state["hands"][0][1]})
    state, evs = _finish_turn(state, evs, 0)
    assert state["round"] == 4 and state["emperor"] == 0
    # two turns of penalty are over: bob's hand is hidden and he answers again
    assert state["foxes"][1] == 0 and rules.view(state, 0)["players"][1]["public"] is None
    state, evs, _ = act(state, evs, 0, {"type": "announce", "number": 5})
    assert rules.to_act(state) == {1: {"kind": "window", "default": {"type": "answer", "raise": False},
                                       "seconds": state["options"]["window_seconds"]}}


def test_it_two_player_streams_recorded_before_fox_rounds_replay_as_they_were():
    state, evs = two_player(TWO_HANDS, TWO_BOTS)
    old = [dict(evs[0], data={k: v for k, v in evs[0]["data"].items() if k != "fox_rounds"})] + evs[1:]
    from games.engine import event
    state = replay(rules, old)
    state["foxes"][1], state["fox_wait"][1] = 2, False
    state = rules.evolve(state, event("round", round=2, emperor=0))
    assert state["foxes"][1] == 2                   # the old rule: only a change of Emperor counts
    state = rules.evolve(state, event("emperor", seat=1, prev=0, reason="chosen"))
    assert state["foxes"][1] == 1


def test_it_two_players_a_second_pair_with_cards_still_in_hand_does_not_win():
    # objects in order: position p holds object p (1-2, 3-4, 5-6, 7-8)
    state, evs = two_player([["A1", "S1", "A2", "A3"], ["S2", "A4", "S4", "S3"]],
                            [["A5", "S5", "A6", "A7"], ["S6", "S7", "A8", "S8"]])
    state, evs, _ = act(state, evs, 0, {"type": "switch"})          # alice takes up A5 S5 A6 A7
    state, evs, new = act(state, evs, 0, {"type": "flip", "pos": 2})
    assert state["placed"][0] == 1 and state["hands"][0] == ["A6", "A7"]
    state, evs = _finish_turn(state, evs, 0)
    assert state["emperor"] == 1
    state, evs, _ = act(state, evs, 1, {"type": "switch"})
    state, evs = _finish_turn(state, evs, 1)
    state, evs, _ = act(state, evs, 0, {"type": "switch"})          # back to A1 S1 A2 A3
    state, evs, new = act(state, evs, 0, {"type": "flip", "pos": 0})
    assert state["placed"][0] == 2 and state["hands"][0] == ["A2", "A3"]
    assert rules.result(state) is None and state["phase"] == "flip"   # two cards left: play on


def test_it_two_players_an_empty_hand_wins():
    state, evs = two_player([["A1", "S1", "A3", "S3"], ["S2", "A4", "S4", "A2"]],
                            [["A5", "S5", "A6", "A7"], ["S6", "S7", "A8", "S8"]])
    state, evs, _ = act(state, evs, 0, {"type": "announce", "number": 5})
    state, evs, _ = act(state, evs, 1, {"type": "answer", "raise": True})   # both 5s lie in alice's BOT
    state, evs, _ = act(state, evs, 0, {"type": "flip", "pos": 0})
    assert rules.result(state) is None
    state, evs, _ = act(state, evs, 0, {"type": "flip", "pos": 1})
    res = rules.result(state)
    assert state["hands"][0] == [] and res["winners"] == [0]
    assert res["summary"] == "{seat0} got rid of their hand and wins."
    assert rules.describe(evs[-1], ["alice", "bob"]) == "alice has got rid of their hand and wins!"


def test_it_a_number_already_put_down_can_still_be_announced():
    state, evs = start(DEAL4, emperor=C)                    # C holds the pair of 6
    state, evs, _ = act(state, evs, C, {"type": "announce", "number": 6})
    state, evs, _ = answer_all(state, evs, raises={A, B, D})
    state, evs, _ = act(state, evs, C, {"type": "flip", "pos": 2})      # object 5-6
    assert state["pairs"][2] == {"seat": C, "number": 6}
    state, evs = _finish_turn(state, evs, C)
    state, evs, _ = act(state, evs, C, {"type": "next", "seat": B})
    emp = B
    assert "kinapa 6" in [a["notation"] for a in rules.legal_actions(state, emp)]
    state, evs, _ = act(state, evs, emp, {"type": "announce", "number": 6})
    others = {p for p in range(4) if p != emp}
    state, evs, new = answer_all(state, evs, raises=others)
    assert new[-1]["type"] == "no_exchange" and new[-1]["data"]["reason"] == "nobody"


def test_it_sheep_go_back_at_once_when_the_only_player_without_one_resigns():
    state, evs = start(DEAL4, emperor=A)
    state["sheep"] = [True, True, True, False]
    state, evs, new = act(state, evs, D, RESIGN)
    assert state["sheep"] == [True, False, False, False]     # all but the last given (the Emperor's)
    assert new[0]["data"]["sheep_reset"] is True
    assert "go back to the centre" in rules.describe(new[0], ["alice", "bob", "charlie", "dan"])
    assert canonical(replay(rules, evs)) == canonical(state)


def test_it_two_player_heuristic_bot_switches_when_its_hand_is_stuck():
    from games.kinapa import bots
    # bob holds A6 and S6 but the pair of 5 already lies on object 5-6: two dead cards
    state, evs = two_player([["A1", "S1", "A2", "A3"], ["S2", "A6", "S6", "A4"]],
                            [["S3", "A5", "S5", "S4"], ["A7", "S7", "A8", "S8"]])
    state["pairs"][2] = {"seat": 0, "number": 5}
    state["known"][2] = True
    state["emperor"] = 1
    picks = {canonical(bots.heuristic_bot(state, 1, Rng("b", i))) for i in range(20)}
    assert picks == {canonical({"type": "switch"})}
    # alice holds the pair of 1 she can still put down: she never switches
    state["emperor"] = 0
    picks = [bots.heuristic_bot(state, 0, Rng("a", i)) for i in range(20)]
    assert all(p["type"] == "announce" for p in picks)
