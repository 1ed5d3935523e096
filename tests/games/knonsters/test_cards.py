"""Every card of the appendix, ranks, the finish line and discards."""

import pytest

from games.engine import IllegalAction
from games.knonsters import rules as R
from tests.games.knonsters.helpers import act, moves_of, play, race

HAND = ["Celya+7", "Celya+5", "Celya20", "Celyax3", "rank4", "rank3", "rank2"]


def start(pos, podium=(), hand=None, **kw):
    hands = [hand or list(HAND), ["Rithle+5", "Rithle+7", "Aristas+5", "Aristas+7", "Elaari+5", "Elaari+7"]]
    return race(hands=hands, pos=pos, podium=podium, pile=["rank2"] * 3, **kw)


def test_it_moves_seven_and_five_steps():
    st = start({"Celya": 10})
    evs, st2 = play(st, 0, "Celya+7")
    assert st2["pos"]["Celya"] == 17
    assert moves_of(evs) == [{"knonster": "Celya", "from": 10, "to": 17, "place": None}]
    evs, st3 = play(st2, 1, "Elaari+5")
    assert st3["pos"]["Elaari"] == 5


def test_it_moves_at_most_20_and_stops_2_behind_rank_1():
    st = start({"Rithle": 50, "Celya": 10})
    _, st2 = play(st, 0, "Celya20")
    assert st2["pos"]["Celya"] == 30  # 20 steps, still far behind
    st = start({"Rithle": 20, "Celya": 10})
    _, st2 = play(st, 0, "Celya20")
    assert st2["pos"]["Celya"] == 18  # 2 behind Rithle at 20
    st = start({"Rithle": 20, "Aristas": 20, "Celya": 10})
    _, st2 = play(st, 0, "Celya20")
    assert st2["pos"]["Celya"] == 18  # several Knonsters with rank 1


def test_it_discards_the_20_card_of_the_leader_or_when_already_2_behind():
    st = start({"Celya": 30, "Rithle": 20})
    legal = [a["notation"] for a in R.legal_actions(st, 0)]
    assert "discard Celya20" in legal and "play Celya20" not in legal
    evs, st2 = act(st, 0, {"type": "discard", "card": "Celya20"})
    assert evs[0]["data"]["discarded"] and st2["pos"]["Celya"] == 30
    assert "Celya20" not in st2["hands"][0]
    st = start({"Celya": 18, "Rithle": 20})
    assert "discard Celya20" in [a["notation"] for a in R.legal_actions(st, 0)]


def test_it_stops_20_card_two_behind_a_finished_leader():
    st = start({"Celya": 45, "Aristas": 30}, podium=["Rithle"])
    _, st2 = play(st, 0, "Celya20")
    assert st2["pos"]["Celya"] == R.GOAL - 2 and st2["podium"] == ["Rithle"]


def test_it_triples_the_lead_as_in_the_rulebook_example():
    # "Celya is 5 steps ahead of the Knonster with rank 2. The Knonster is moved
    # 10 steps forward, and now is 15 steps ahead of the Knonster with rank 2."
    st = start({"Celya": 25, "Rithle": 20, "Aristas": 12, "Elaari": 3})
    evs, st2 = play(st, 0, "Celyax3")
    assert moves_of(evs) == [{"knonster": "Celya", "from": 25, "to": 35, "place": None}]
    assert st2["pos"]["Celya"] - st2["pos"]["Rithle"] == 15


def test_it_has_no_triple_effect_unless_alone_at_rank_1():
    st = start({"Celya": 20, "Rithle": 20})
    assert "discard Celyax3" in [a["notation"] for a in R.legal_actions(st, 0)]
    st = start({"Celya": 19, "Rithle": 20})
    assert "discard Celyax3" in [a["notation"] for a in R.legal_actions(st, 0)]
    st = start({}, podium=["Rithle"])  # a finished Knonster is in front
    assert "discard Celyax3" in [a["notation"] for a in R.legal_actions(st, 0)]


def test_it_moves_rank_4_by_14():
    st = start({"Rithle": 30, "Aristas": 20, "Celya": 10, "Elaari": 5})
    _, st2 = play(st, 0, "rank4")
    assert st2["pos"]["Elaari"] == 19


def test_it_moves_rank_3_by_12_but_at_most_1_ahead_of_rank_1():
    st = start({"Rithle": 40, "Aristas": 30, "Celya": 10, "Elaari": 5})
    _, st2 = play(st, 0, "rank3")
    assert st2["pos"]["Celya"] == 22
    st = start({"Rithle": 40, "Aristas": 38, "Celya": 35, "Elaari": 5})
    _, st2 = play(st, 0, "rank3")
    assert st2["pos"]["Celya"] == 41  # capped 1 ahead of Rithle


def test_it_moves_rank_2_by_9():
    st = start({"Rithle": 40, "Aristas": 30, "Celya": 10, "Elaari": 5})
    _, st2 = play(st, 0, "rank2")
    assert st2["pos"]["Aristas"] == 39


def test_it_counts_ranks_with_ties_and_finished_knonsters():
    assert R.ranks({"Rithle": 10, "Aristas": 10, "Celya": 5, "Elaari": 0}, []) == {
        "Rithle": 1, "Aristas": 1, "Celya": 3, "Elaari": 4}
    assert R.ranks({"Rithle": 61, "Aristas": 10, "Celya": 50, "Elaari": 50}, ["Rithle"]) == {
        "Rithle": 1, "Aristas": 4, "Celya": 2, "Elaari": 2}
    assert R.ranks({k: 0 for k in R.KNONSTERS}, []) == {k: 1 for k in R.KNONSTERS}


def test_it_moves_nobody_when_the_rank_is_not_unique():
    st = start({"Rithle": 10, "Aristas": 10, "Celya": 5, "Elaari": 0})
    legal = [a["notation"] for a in R.legal_actions(st, 0)]
    assert "discard rank2" in legal  # ranks 1, 1, 3, 4: nobody has rank 2
    assert "play rank3" in legal and "play rank4" in legal
    st = start({"Rithle": 10, "Aristas": 5, "Celya": 5, "Elaari": 5})
    legal = [a["notation"] for a in R.legal_actions(st, 0)]
    assert {"discard rank2", "discard rank3", "discard rank4"} <= set(legal)
    with pytest.raises(IllegalAction):
        play(st, 0, "rank2")


def test_it_moves_nobody_with_rank_2_when_rank_2_has_finished():
    st = start({"Celya": 40, "Elaari": 30}, podium=["Rithle", "Aristas"])
    assert "discard rank2" in [a["notation"] for a in R.legal_actions(st, 0)]


def test_it_refuses_discarding_a_card_that_has_an_effect():
    st = start({})
    with pytest.raises(IllegalAction) as exc:
        act(st, 0, {"type": "discard", "card": "Celya+7"})
    assert "must play" in exc.value.reason


def test_it_puts_a_knonster_crossing_after_60_on_the_podium():
    st = start({"Celya": 53, "Elaari": 50})
    _, st2 = play(st, 0, "Celya+7")
    assert st2["pos"]["Celya"] == 60 and st2["podium"] == []  # on 60, not across yet
    st = start({"Celya": 54, "Elaari": 50})
    evs, st2 = play(st, 0, "Celya+7")
    assert st2["podium"] == ["Celya"] and moves_of(evs)[0]["place"] == 1
    assert st2["pos"]["Celya"] == R.GOAL
    # Celya first decides the game for these favourites: the offer window opens
    assert R.to_act(st2) == {1: {"kind": "window", "default": R.AUTO_NO, "seconds": None}}


def test_it_discards_the_cards_of_a_finished_knonster():
    st = start({"Elaari": 50}, podium=["Celya"])
    assert "discard Celya+5" in [a["notation"] for a in R.legal_actions(st, 0)]


def test_it_gives_the_best_free_podium_place():
    st = start({"Celya": 58, "Elaari": 50}, podium=["Rithle"])
    evs, st2 = play(st, 0, "Celya+5")
    assert st2["podium"] == ["Rithle", "Celya"] and moves_of(evs)[0]["place"] == 2


def test_it_lists_one_move_per_distinct_card():
    st = start({}, hand=["Celya+7", "Celya+7", "rank2"])
    notations = [a["notation"] for a in R.legal_actions(st, 0)]
    assert len(notations) == len(set(notations)) == 2


def test_it_refuses_a_card_not_in_hand_and_out_of_turn():
    st = start({})
    with pytest.raises(IllegalAction, match="do not have"):
        play(st, 0, "Rithle+7")
    with pytest.raises(IllegalAction, match="not your turn"):
        play(st, 1, "Rithle+7")
