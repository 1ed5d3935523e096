"""Setup, the favourites choice, restarts, the draw, the end, scoring, the offer, resign."""

from collections import Counter

import pytest

from games.engine import IllegalAction, event, replay
from games.knonsters import rules as R
from games.rng import Rng
from tests.games.knonsters.helpers import act, play, race


def fresh(n, **options):
    opts = {"win_bet": False, "superpowers": False}
    opts.update(options)
    return replay(R, R.setup(n, opts, Rng("setup", 0)))


def choose(state, seat, a, b, bet=None, seed="c"):
    action = {"type": "favourites", "knonsters": [a, b]}
    if bet:
        action["bet"] = bet
    return act(state, seat, action, seed)


def test_it_has_76_cards_in_the_box_and_identical_cards_for_each_knonster():
    deck = Counter(R.DECK["deck"])
    assert sum(deck.values()) + 4 * 4 == 76
    for suffix in ("+7", "+5", "20", "x3"):
        assert len({deck[k + suffix] for k in R.KNONSTERS}) == 1
    assert deck["rank4"] == deck["rank3"] == deck["rank2"] == 4


@pytest.mark.parametrize("n,size", [(2, 16), (3, 14), (4, 12)])
def test_it_deals_16_14_12_cards_and_keeps_the_rest_as_draw_pile(n, size):
    st = fresh(n)
    assert [len(h) for h in st["hands"]] == [size] * n
    assert len(st["pile"]) == 60 - n * size
    assert Counter(st["pile"]) + sum((Counter(h) for h in st["hands"]), Counter()) == Counter(R.DECK["deck"])
    assert st["phase"] == "choose"
    assert R.to_act(st) == {s: {"kind": "choice", "default": None, "seconds": None} for s in range(n)}


def test_it_refuses_bad_player_counts_and_options():
    for n in (1, 5):
        with pytest.raises(IllegalAction):
            R.check_players(n, {})
    with pytest.raises(IllegalAction, match="Unknown option"):
        R.check_players(2, {"turbo": True})
    with pytest.raises(IllegalAction):
        R.check_players(2, {"win_bet": "yes"})
    schema = R.OPTIONS_SCHEMA
    assert schema["additionalProperties"] is False
    for prop in schema["properties"].values():
        assert {"default", "title", "description"} <= set(prop)


def test_it_offers_six_pairs_or_twelve_with_the_win_bet():
    assert len(R.legal_actions(fresh(2), 0)) == 6
    legal = R.legal_actions(fresh(2, win_bet=True), 0)
    assert len(legal) == 12
    assert "favourites Rithle Aristas bet Rithle" in [a["notation"] for a in legal]


def test_it_keeps_favourites_secret_until_the_end():
    st = fresh(3)
    evs, st = choose(st, 0, "Celya", "Rithle")
    assert evs == [event("chosen", seat=0, knonsters=["Rithle", "Celya"], bet=None)]
    assert R.redact(evs[0], 1) == {"type": "chosen", "data": {"seat": 0}}
    assert R.redact(evs[0], None) == {"type": "chosen", "data": {"seat": 0}}
    assert R.redact(evs[0], 0) == evs[0]
    assert "favourites" not in R.view(st, 1) or R.view(st, 1)["favourites"] is None
    assert R.view(st, 1)["chosen"] == [True, False, False]
    assert R.view(st, 0)["favourites"] == ["Rithle", "Celya"]
    assert "all_favourites" not in R.view(st, None)
    assert 0 not in R.to_act(st) and set(R.to_act(st)) == {1, 2}
    with pytest.raises(IllegalAction, match="already chosen"):
        choose(st, 0, "Aristas", "Elaari")
    assert R.legal_actions(st, 0) == []


def test_it_starts_the_race_when_everyone_has_chosen():
    st = fresh(2)
    _, st = choose(st, 0, "Rithle", "Aristas")
    evs, st = choose(st, 1, "Rithle", "Celya")
    assert [e["type"] for e in evs] == ["chosen", "race_started"]
    assert st["phase"] == "race" and R.to_act(st) == {st["first"]: {"kind": "turn", "default": None, "seconds": None}}


def test_it_restarts_with_a_new_deal_when_all_chose_the_same_favourites():
    st = fresh(3)
    old_hands = st["hands"]
    _, st = choose(st, 0, "Rithle", "Aristas")
    _, st = choose(st, 1, "Aristas", "Rithle")
    evs, st = choose(st, 2, "Rithle", "Aristas")
    assert [e["type"] for e in evs] == ["chosen", "restarted"]
    assert "same favourites" in evs[1]["data"]["reason"]
    assert st["phase"] == "choose" and st["deal_no"] == 2 and st["favs"] == [None] * 3
    assert st["hands"] != old_hands and [len(h) for h in st["hands"]] == [14] * 3
    assert "restarts" in R.describe(R.redact(evs[1], 0), ["A", "B", "C"])
    assert "hands" not in R.redact(evs[1], 1)["data"]


def test_it_restarts_with_the_win_bet_only_if_all_bet_on_the_same_knonster():
    st = fresh(2, win_bet=True)
    _, st = choose(st, 0, "Rithle", "Aristas", bet="Rithle")
    evs, st2 = choose(st, 1, "Rithle", "Aristas", bet="Aristas")
    assert evs[-1]["type"] == "race_started"
    evs, st2 = choose(st, 1, "Aristas", "Rithle", bet="Rithle")
    assert evs[-1]["type"] == "restarted"


def test_it_draws_one_card_at_the_end_of_the_turn_below_5_cards():
    pile = ["rank2", "rank3"]
    st = race(hands=[["Celya+7", "Celya+5", "rank2", "rank3", "rank4"], ["Rithle+5"] * 3], pile=pile)
    evs, st2 = play(st, 0, "Celya+7")
    assert [e["type"] for e in evs] == ["played", "drew"]
    assert len(st2["hands"][0]) == 5 and len(st2["pile"]) == 1
    assert R.redact(evs[1], 1) == {"type": "drew", "data": {"seat": 0}}
    assert R.redact(evs[1], 0)["data"]["card"] in pile
    st = race(hands=[["Celya+7", "Celya+5", "rank2", "rank3", "rank4", "rank4"], ["Rithle+5"] * 3], pile=pile)
    evs, st2 = play(st, 0, "Celya+7")
    assert [e["type"] for e in evs] == ["played"] and len(st2["hands"][0]) == 5


def test_it_passes_the_turn_clockwise():
    st = race(n=3, turn=2, hands=[["Celya+7"] * 3 + ["rank2"] * 3] * 3, pile=["rank3"])
    _, st2 = play(st, 2, "Celya+7")
    assert st2["turn"] == 0


def test_it_ends_when_the_third_knonster_crosses_the_finish_line():
    st = race(n=3, pos={"Celya": 58, "Elaari": 40}, podium=["Rithle", "Aristas"], pile=["rank2"],
              hands=[["Celya+5"] * 3 + ["rank2"] * 3] * 3)
    evs, st2 = play(st, 0, "Celya+5")
    assert [e["type"] for e in evs] == ["played", "ended"]
    assert evs[1]["data"]["reason"] == "third"
    res = R.result(st2)
    # FAVS: 0 Rithle+Aristas, 1 Celya+Elaari, 2 Rithle+Celya; Rithle 48 split by 0 and 2, Aristas 24, Celya 12 split by 1 and 2
    assert res["scores"] == [24 + 24, 6, 24 + 6]
    assert res["winners"] == [0] and res["ranks"] == [1, 3, 2]
    assert R.to_act(st2) == {} and R.legal_actions(st2, 0) == []
    assert R.view(st2, None)["all_favourites"] == [list(f) for f in st2["favs"]]
    with pytest.raises(IllegalAction, match="over"):
        play(st2, 1, "Celya+5")


def test_it_ends_when_the_draw_pile_is_empty_and_scores_only_finished_knonsters():
    st = race(pos={"Celya": 30, "Elaari": 20}, podium=["Rithle"], pile=[],
              hands=[["Celya+5", "rank2", "rank3", "rank4", "rank4"], ["Rithle+5"] * 5])
    evs, st2 = play(st, 0, "Celya+5")
    assert [e["type"] for e in evs] == ["played", "ended"]
    assert evs[1]["data"]["reason"] == "pile"
    assert R.result(st2)["scores"] == [48, 0]


def test_it_shares_points_evenly_and_adds_the_win_bet():
    st = race(n=4, options={"win_bet": True},
              favs=[["Rithle", "Aristas"], ["Rithle", "Celya"], ["Rithle", "Elaari"], ["Aristas", "Rithle"]],
              bets=["Rithle", "Celya", "Elaari", "Aristas"], podium=["Rithle", "Aristas", "Celya"])
    # Rithle 48 / 4 = 12 each; Aristas 24 / 2; Celya 12 / 1; bet on Rithle +15
    assert R.scores(st) == [12 + 12 + 15, 12 + 12, 12, 12 + 12]
    assert R.player_ranks(st) == [1, 2, 4, 2]


def test_it_gives_several_winners_on_a_tie():
    st = race(n=2, favs=[["Rithle", "Celya"], ["Aristas", "Elaari"]],
              pos={"Celya": 60, "Elaari": 60}, podium=["Rithle", "Aristas"], pile=["rank2"],
              hands=[["Celya+5"] * 3 + ["rank4"] * 3, ["Elaari+5"] * 3])
    # Rithle 48 + Celya 12 = 60 vs Aristas 24 + Elaari 12 = 36; but if Elaari were third...
    evs, st2 = play(st, 0, "Celya+5")
    assert R.result(st2)["winners"] == [0]
    st = race(n=2, favs=[["Rithle", "Elaari"], ["Aristas", "Celya"]], podium=["Rithle", "Aristas"],
              pos={"Celya": 0, "Elaari": 0})
    st["podium"] = ["Aristas", "Rithle", "Celya"]  # 24 vs 48 + 12
    assert R.scores(st) == [24, 60]
    st = race(n=3, favs=[["Rithle", "Aristas"], ["Rithle", "Aristas"], ["Celya", "Elaari"]])
    st["podium"] = ["Rithle", "Aristas", "Celya"]
    assert R.scores(st) == [36, 36, 12]
    assert R.player_ranks(st) == [1, 1, 3]


def test_it_breaks_ties_by_hidden_star_cards_with_superpowers():
    st = race(n=3, options={"superpowers": True},
              favs=[["Rithle", "Aristas"], ["Rithle", "Aristas"], ["Celya", "Elaari"]])
    st["podium"] = ["Rithle", "Aristas", "Celya"]
    st["revealed"][0] = ["Rithle"]
    assert R.player_ranks(st) == [2, 1, 3]
    st["options"]["superpowers"] = False
    assert R.player_ranks(st) == [1, 1, 3]


def test_it_offers_to_finish_automatically_once_the_ranking_is_decided():
    st = race(pos={"Rithle": 58}, pile=["rank2"] * 6,
              hands=[["Rithle+5", "rank2", "rank3", "rank4", "rank4"], ["Celya+5", "Celya+7", "rank2", "rank3", "rank4"]])
    evs, st2 = play(st, 0, "Rithle+5")
    # Rithle first: seat 0 has 48, seat 1 can reach at most 24 + 12
    assert [e["type"] for e in evs] == ["played", "drew", "offered"]
    assert evs[-1]["data"]["queue"] == [0, 1]  # the winner first
    assert R.to_act(st2) == {0: {"kind": "window", "default": {"type": "auto", "accept": False}, "seconds": None}}
    assert [a["notation"] for a in R.legal_actions(st2, 0)] == ["auto yes", "auto no"]
    assert R.legal_actions(st2, 1) == []
    with pytest.raises(IllegalAction):
        play(st2, 1, "Celya+5")
    evs, st3 = act(st2, 0, {"type": "auto", "accept": False})
    assert R.to_act(st3) == {1: {"kind": "window", "default": {"type": "auto", "accept": False}, "seconds": None}}
    # seat 1 accepts: its turn comes now, the system plays a random card for it
    evs, st4 = act(st3, 1, {"type": "auto", "accept": True})
    assert evs[0]["type"] == "answered"
    played = [e for e in evs if e["type"] == "played"]
    assert len(played) == 1 and played[0]["data"]["seat"] == 1 and played[0]["data"]["auto"]
    assert R.to_act(st4) == {0: {"kind": "turn", "default": None, "seconds": None}}
    assert st4["auto"] == [False, True]
    # seat 0 plays: the system answers at once for seat 1
    card = st4["hands"][0][0]
    item = [a for a in R.legal_actions(st4, 0) if a["action"].get("card") == card][0]
    evs, st5 = act(st4, 0, item["action"])
    seats = [e["data"]["seat"] for e in evs if e["type"] == "played"]
    assert seats[:2] == [0, 1] or st5["phase"] == "over"
    assert "automatic" in R.describe(played[0], ["A", "B"])


def test_it_finishes_the_whole_game_when_everyone_accepts():
    st = race(pos={"Rithle": 58}, pile=R.DECK["deck"][:20],
              hands=[["Rithle+5", "rank2", "rank3", "rank4", "rank4"], ["Celya+5", "Celya+7", "rank2", "rank3", "rank4"]])
    _, st = play(st, 0, "Rithle+5")
    _, st = act(st, 0, {"type": "auto", "accept": True})
    evs, st = act(st, 1, {"type": "auto", "accept": True})
    assert st["phase"] == "over" and evs[-1]["type"] == "ended"
    assert R.result(st)["winners"] == [0]


def test_it_ends_a_two_player_game_when_one_resigns():
    st = race()
    evs, st2 = act(st, 1, {"type": "resign"})
    assert [e["type"] for e in evs] == ["resigned", "ended"]
    assert R.result(st2)["winners"] == [0] and R.result(st2)["ranks"] == [1, 2]
    st = fresh(2)
    evs, st2 = act(st, 0, {"type": "resign"})
    assert R.result(st2)["winners"] == [1]


def test_it_skips_the_turns_of_a_resigned_player_who_takes_the_last_rank():
    st = race(n=3, hands=[["Celya+7"] * 3 + ["rank2"] * 3] * 3, pile=["rank3"])
    evs, st2 = act(st, 0, {"type": "resign"})
    assert [e["type"] for e in evs] == ["resigned"] and st2["turn"] == 1
    _, st3 = play(st2, 1, "Celya+7")
    _, st4 = play(st3, 2, "Celya+7")
    assert st4["turn"] == 1
    st4["podium"] = ["Rithle", "Aristas", "Celya"]  # seat 0's favourites finished first and second
    st4["phase"] = "over"
    assert R.player_ranks(st4)[0] == 3
    with pytest.raises(IllegalAction, match="left"):
        play(st2, 0, "Celya+7")


def test_it_starts_the_race_when_a_resigning_player_was_the_last_to_choose():
    st = fresh(3)
    _, st = choose(st, 0, "Rithle", "Aristas")
    _, st = choose(st, 1, "Celya", "Aristas")
    evs, st = act(st, 2, {"type": "resign"})
    assert [e["type"] for e in evs] == ["resigned", "race_started"]
    assert st["turn"] != 2


def test_it_describes_every_event_it_emits():
    names = ["Ann", "Bob"]
    st = race(pos={"Rithle": 58}, pile=["rank2"] * 6,
              hands=[["Rithle+5", "rank2", "rank3", "rank4", "rank4"], ["Celya+5", "Celya+7", "rank2", "rank3", "rank4"]])
    evs, st2 = play(st, 0, "Rithle+5")
    evs += act(st2, 0, {"type": "auto", "accept": False})[0]
    evs += R.setup(2, {}, Rng("x", 0)) + [event("chosen", seat=0, knonsters=["Rithle", "Celya"], bet=None),
                                            event("race_started", first=0), event("resigned", seat=1, next=None)]
    end = race(n=3, pos={"Celya": 58}, podium=["Rithle", "Aristas"], pile=["rank2"],
               hands=[["Celya+5"] * 3 + ["rank2"] * 3] * 3)
    evs += play(end, 0, "Celya+5")[0]
    for e in evs:
        for seat in (0, 1, None):
            red = R.redact(e, seat)
            text = R.describe(red, names + ["Cy"])
            assert isinstance(text, str) and text and "{" not in text


def test_it_accepts_the_two_favourites_in_any_order():
    st = fresh(2)
    evs, _ = choose(st, 0, "Elaari", "Rithle")
    assert evs[0]["data"]["knonsters"] == ["Rithle", "Elaari"]
    st = fresh(2, win_bet=True)
    evs, _ = choose(st, 0, "Elaari", "Rithle", bet="Rithle")
    assert evs[0]["data"]["knonsters"] == ["Rithle", "Elaari"] and evs[0]["data"]["bet"] == "Rithle"
    with pytest.raises(IllegalAction, match="bet"):
        choose(st, 0, "Elaari", "Rithle", bet="Celya")
    with pytest.raises(IllegalAction):
        choose(st, 0, "Elaari", "Elaari", bet="Elaari")


def test_it_is_decided_only_when_no_ending_changes_the_ranking():
    st = race(favs=[["Rithle", "Aristas"], ["Celya", "Elaari"]])
    assert not R.is_decided(st)
    st["podium"] = ["Rithle"]
    assert R.is_decided(st)  # 48 (+ up to 36) against at most 36
    st["podium"] = ["Celya"]
    assert R.is_decided(st)  # the same the other way round
    st = race(n=3, favs=[["Rithle", "Aristas"], ["Celya", "Elaari"], ["Rithle", "Celya"]], podium=["Rithle"])
    assert not R.is_decided(st)


def test_it_plays_for_several_automatic_players_in_a_row():
    st = race(n=3, pos={"Rithle": 40}, podium=["Aristas"], pile=R.DECK["deck"][:30],
              hands=[["Rithle+5", "rank2", "rank3", "rank4", "rank4"], ["Celya+5", "Celya+7", "rank2", "rank3", "rank4"],
                     ["Elaari+5", "Elaari+7", "rank2", "rank3", "rank4"]])
    st["auto"] = [False, True, True]
    evs, st2 = play(st, 0, "Rithle+5")
    assert [e["data"]["seat"] for e in evs if e["type"] == "played"][:3] == [0, 1, 2] or st2["phase"] == "over"
    assert st2["phase"] == "over" or R.to_act(st2) == {0: {"kind": "turn", "default": None, "seconds": None}}
