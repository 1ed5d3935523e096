"""The Superpowers variant: the four powers of the appendix, once per game each."""

import pytest

from games.engine import IllegalAction
from games.knonsters import rules as R
from tests.games.knonsters.helpers import act, moves_of, race

SP = {"superpowers": True}
# seat 0 has all four Knonsters between its favourites over the tests below
HAND = ["Rithle20", "rank2", "rank3", "rank4", "Celya+7", "Elaari+5", "Aristas+5", "Rithle+7"]


def start(favs, pos, podium=(), hand=None, options=SP):
    return race(options=options, favs=[favs, ["Celya", "Elaari"] if "Celya" not in favs else ["Rithle", "Aristas"]],
                hands=[hand or list(HAND), ["Rithle+5"] * 6], pos=pos, podium=podium, pile=["rank2"] * 5)


def power(state, seat, k, card):
    return act(state, seat, {"type": "power", "knonster": k, "card": card})


def notations(state, seat=0):
    return [a["notation"] for a in R.legal_actions(state, seat)]


def test_it_assigns_the_powers_in_the_order_of_the_appendix():
    assert R.POWERS == {"Rithle": "back_then_forward", "Aristas": "follow", "Celya": "double", "Elaari": "reverse"}


def test_it_offers_no_power_without_the_variant():
    st = start(["Celya", "Rithle"], {"Rithle": 10}, options={})
    assert not [n for n in notations(st) if n.startswith("power")]
    with pytest.raises(IllegalAction, match="without superpowers"):
        power(st, 0, "Celya", "Celya+7")


def test_it_lets_rithle_move_back_5_then_play_its_20_card_then_forward_5():
    st = start(["Rithle", "Aristas"], {"Rithle": 20, "Celya": 40})
    assert "power Rithle Rithle20" in notations(st)
    evs, st2 = power(st, 0, "Rithle", "Rithle20")
    steps = [(m["from"], m["to"]) for m in moves_of(evs)]
    assert steps == [(20, 15), (15, 35), (35, 40)]  # back 5, up to 20 (cap 38), forward 5
    assert st2["powers_used"] == ["Rithle"] and st2["revealed"][0] == ["Rithle"]
    assert R.view(st2, 1)["revealed"][0] == ["Rithle"]
    assert evs[0]["data"]["power"] == "Rithle"
    assert "revealed Rithle" in R.describe(R.redact(evs[0], 1), ["A", "B"])


def test_it_lets_rithle_play_the_card_of_its_rank_after_moving_back():
    # Rithle 22 is rank 2 before; after 5 back it is at 17: rank 3 (Aristas 20)
    st = start(["Rithle", "Aristas"], {"Rithle": 22, "Aristas": 20, "Celya": 40, "Elaari": 0})
    legal = notations(st)
    assert "power Rithle rank3" in legal and "power Rithle rank2" not in legal
    evs, st2 = power(st, 0, "Rithle", "rank3")
    assert [(m["from"], m["to"]) for m in moves_of(evs)] == [(22, 17), (17, 29), (29, 34)]


def test_it_refuses_rithle_near_the_start_or_finished():
    st = start(["Rithle", "Aristas"], {"Rithle": 4, "Celya": 40})
    assert not [n for n in notations(st) if n.startswith("power Rithle")]
    with pytest.raises(IllegalAction, match="cannot be used"):
        power(st, 0, "Rithle", "Rithle20")
    st = start(["Rithle", "Aristas"], {"Celya": 40}, podium=["Rithle"])
    assert not [n for n in notations(st) if n.startswith("power Rithle")]


def test_it_lets_aristas_follow_a_knonster_within_5_steps():
    st = start(["Aristas", "Rithle"], {"Aristas": 10, "Celya": 14, "Elaari": 30})
    legal = notations(st)
    assert "power Aristas Celya+7" in legal
    assert "power Aristas Elaari+5" not in legal  # Elaari is 20 away
    assert "power Aristas Aristas+5" not in legal  # it must be another Knonster
    evs, st2 = power(st, 0, "Aristas", "Celya+7")
    assert [(m["knonster"], m["from"], m["to"]) for m in moves_of(evs)] == [("Celya", 14, 21), ("Aristas", 10, 17)]


def test_it_lets_aristas_follow_a_rank_card_and_forfeits_steps_past_the_finish():
    st = start(["Aristas", "Rithle"], {"Aristas": 55, "Celya": 58, "Elaari": 30, "Rithle": 0})
    evs, st2 = power(st, 0, "Aristas", "Celya+7")
    # Celya needs 3 steps to cross: the 4 others are forfeited, Aristas follows 3
    assert [(m["knonster"], m["from"], m["to"]) for m in moves_of(evs)] == [("Celya", 58, 61), ("Aristas", 55, 58)]
    assert st2["podium"] == ["Celya"]
    st = start(["Aristas", "Rithle"], {"Aristas": 10, "Celya": 12, "Elaari": 30, "Rithle": 20})
    assert "power Aristas rank3" in notations(st)  # rank 3 is Celya
    evs, _ = power(st, 0, "Aristas", "rank3")
    assert [(m["knonster"], m["to"]) for m in moves_of(evs)] == [("Celya", 24), ("Aristas", 22)]


def test_it_lets_celya_double_a_plus_card():
    st = start(["Celya", "Rithle"], {"Rithle": 10})
    legal = notations(st)
    assert "power Celya Rithle+7" in legal and "power Celya Celya+7" in legal
    assert "power Celya Rithle20" not in legal
    evs, st2 = power(st, 0, "Celya", "Rithle+7")
    assert st2["pos"]["Rithle"] == 24


def test_it_lets_elaari_play_another_knonsters_plus_card_backwards():
    st = start(["Elaari", "Rithle"], {"Celya": 20, "Aristas": 3, "Rithle": 0, "Elaari": 5})
    legal = notations(st)
    assert "power Elaari Celya+7" in legal
    assert "power Elaari Aristas+5" in legal
    assert "power Elaari Elaari+5" not in legal  # a different Knonster
    assert "power Elaari Rithle+7" not in legal  # Rithle is at the start
    _, st2 = power(st, 0, "Elaari", "Celya+7")
    assert st2["pos"]["Celya"] == 13
    _, st3 = power(st, 0, "Elaari", "Aristas+5")
    assert st3["pos"]["Aristas"] == 0  # no further back than the start


def test_it_spends_a_power_for_every_player():
    st = race(options=SP, favs=[["Celya", "Rithle"], ["Celya", "Elaari"]],
              hands=[["Rithle+7"] * 3 + ["rank2"] * 3, ["Rithle+5"] * 3 + ["rank2"] * 3], pile=["rank4"] * 4)
    assert [n for n in notations(st, 1) if n.startswith("power Celya")] == []  # not seat 1's turn
    _, st2 = power(st, 0, "Celya", "Rithle+7")
    assert st2["turn"] == 1
    assert not [n for n in notations(st2, 1) if n.startswith("power Celya")]
    assert [n for n in notations(st2, 1) if n.startswith("power Elaari")]
    with pytest.raises(IllegalAction, match="already been used"):
        power(st2, 1, "Celya", "Rithle+5")


def test_it_refuses_the_power_of_a_knonster_that_is_not_a_favourite():
    st = start(["Celya", "Rithle"], {"Rithle": 10})
    with pytest.raises(IllegalAction, match="your favourites"):
        power(st, 0, "Elaari", "Rithle+7")


def test_it_ends_at_once_when_the_followed_knonster_is_third():
    st = start(["Aristas", "Rithle"], {"Aristas": 56, "Celya": 58}, podium=["Rithle", "Elaari"])
    evs, st2 = power(st, 0, "Aristas", "Celya+7")
    assert [(m["knonster"], m["to"]) for m in moves_of(evs)] == [("Celya", 61)]
    assert evs[-1]["type"] == "ended" and st2["podium"] == ["Rithle", "Elaari", "Celya"]
    assert st2["powers_used"] == ["Aristas"]


def test_it_counts_a_tie_as_undecided_while_a_hidden_power_could_break_it():
    favs = [["Rithle", "Aristas"], ["Rithle", "Aristas"], ["Celya", "Elaari"]]
    st = race(n=3, options=SP, favs=favs, podium=["Rithle", "Aristas"])
    assert not R.is_decided(st)  # seats 0 and 1 tie at 36; a revealed star could break the tie
    st = race(n=3, favs=favs, podium=["Rithle", "Aristas"])
    assert R.is_decided(st)  # without superpowers the tie is final
    st = race(n=3, options=SP, favs=favs, podium=["Rithle", "Aristas"])
    st["powers_used"] = list(R.KNONSTERS)
    assert R.is_decided(st)


def test_it_counts_a_tie_as_undecided_while_a_finished_celyas_power_could_break_it():
    # Celya's power doubles the +5/+7 card of any unfinished Knonster: Celya herself may
    # have finished. Seats 0 and 1 tie at 36; seat 0 can still reveal Celya and lose the
    # tie-break, so the ranking is not decided yet.
    favs = [["Rithle", "Celya"], ["Rithle", "Celya"], ["Aristas", "Elaari"]]
    st = race(n=3, options=SP, favs=favs, podium=["Celya", "Rithle"], pos={"Aristas": 30, "Elaari": 20},
              hands=[["Aristas+5", "Elaari+5", "rank2", "rank3", "rank4"]] * 3, pile=["rank2"] * 5)
    st["powers_used"] = ["Aristas", "Elaari"]
    st["revealed"][2] = ["Aristas", "Elaari"]
    assert R.player_ranks(st)[:2] == [1, 1]
    assert "power Celya Aristas+5" in notations(st)
    assert not R.is_decided(st)
    _, st2 = power(st, 0, "Celya", "Aristas+5")
    assert R.player_ranks(st2)[:2] == [2, 1]  # the reveal did change the ranking
    # the same for Elaari's power (another Knonster's card backwards) after Elaari finished
    favs = [["Rithle", "Elaari"], ["Rithle", "Elaari"], ["Aristas", "Celya"]]
    st = race(n=3, options=SP, favs=favs, podium=["Elaari", "Rithle"], pos={"Aristas": 30, "Celya": 20},
              hands=[["Aristas+5", "Celya+5", "rank2", "rank3", "rank4"]] * 3, pile=["rank2"] * 5)
    st["powers_used"] = ["Aristas", "Celya"]
    assert "power Elaari Aristas+5" in notations(st)
    assert not R.is_decided(st)
    # Rithle's and Aristas's powers need their own Knonster still racing
    favs = [["Rithle", "Aristas"], ["Rithle", "Aristas"], ["Celya", "Elaari"]]
    st = race(n=3, options=SP, favs=favs, podium=["Rithle", "Aristas"])
    st["powers_used"] = ["Celya", "Elaari"]
    assert R.is_decided(st)
