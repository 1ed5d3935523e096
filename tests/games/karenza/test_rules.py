"""Scenario tests: each rule of the rulebook, on tables built by hand."""

import pytest

from games.engine import IllegalAction, replay
from games.karenza import rules
from games.rng import Rng

from .helpers import Game

MIRROR_M = ("michi", "michi")


# ----------------------------------------------------------------- set-up


def test_it_deals_seven_cards_from_two_shuffled_32_card_decks():
    events = rules.setup(2, {"characters": ["michi", "eka"]}, Rng("seed", 0))
    state = replay(rules, events)
    for seat, ch in enumerate(["michi", "eka"]):
        p = state["players"][seat]
        assert p["character"] == ch
        assert len(p["hand"]) == 7 and len(rules.deck_of(p)) == 25
        assert sorted(p["hand"] + rules.deck_of(p)) == sorted(rules.deck_cards(ch))
        assert rules.discard_of(p) == [] and p["sequence"] == []
    assert state["turn"] == state["first"]
    assert rules.to_act(state) == {state["first"]: {"kind": "turn", "default": {"type": "draw"}, "seconds": None}}


def test_it_tosses_a_coin_for_the_opener_and_shuffles():
    firsts, orders = set(), set()
    for i in range(30):
        state = replay(rules, rules.setup(2, {}, Rng(f"coin{i}", 0)))
        firsts.add(state["first"])
        orders.add(tuple(state["players"][0]["hand"]))
    assert firsts == {0, 1}
    assert len(orders) > 20


def test_it_picks_random_characters_and_allows_mirrors():
    seen = set()
    for i in range(40):
        state = replay(rules, rules.setup(2, {"characters": ["random", "random"]}, Rng(f"c{i}", 0)))
        seen.add(tuple(state["characters"]))
    assert seen == {("michi", "michi"), ("michi", "eka"), ("eka", "michi"), ("eka", "eka")}
    state = replay(rules, rules.setup(2, {"characters": ["eka", "eka"]}, Rng("m", 0)))
    assert state["characters"] == ["eka", "eka"]


def test_it_needs_exactly_two_players_and_valid_options():
    for n in (1, 3):
        with pytest.raises(IllegalAction):
            rules.check_players(n, {})
    with pytest.raises(IllegalAction):
        rules.check_players(2, {"characters": ["michi"]})
    with pytest.raises(IllegalAction):
        rules.check_players(2, {"characters": ["michi", "zorro"]})
    with pytest.raises(IllegalAction):
        rules.check_players(2, {"colour": "red"})
    rules.check_players(2, {})
    schema = rules.OPTIONS_SCHEMA
    assert schema["additionalProperties"] is False
    for prop in schema["properties"].values():
        assert {"default", "title", "description"} <= set(prop)


def test_the_options_schema_is_valid_json_schema():
    jsonschema = pytest.importorskip("jsonschema")
    jsonschema.Draft202012Validator.check_schema(rules.OPTIONS_SCHEMA)
    jsonschema.validate({"characters": ["michi", "random"]}, rules.OPTIONS_SCHEMA)


# ----------------------------------------------------------------- the chain rule


def test_it_lets_the_first_technique_start_anywhere_then_enforces_the_chain():
    g = Game(["swallow", "viper", "crescent"], ["root", "boulder", "gate"])
    assert {"attack swallow", "attack viper", "attack crescent"} <= set(g.notations(0))
    g.do(0, "attack swallow")  # TL->TR
    g.do(1, "defend root")  # Eka's first technique: any start
    # Michi's chain ends at TR: neither viper (BR..) nor crescent (TL..) connects
    assert "attack viper" not in g.notations(0) and "attack crescent" not in g.notations(0)
    with pytest.raises(IllegalAction, match="top-right corner"):
        g.do(0, {"type": "attack", "card": "viper", "addons": []})


def test_it_applies_the_chain_rule_to_your_own_cards_only():
    g = Game(["swallow", "return-wing"], ["cleaver", "boulder", "iron-bar"])
    g.do(0, "attack swallow")  # Michi TL->TR
    # Eka's first card may start anywhere, even though Michi's chain ends at TR
    assert "defend boulder" in g.notations(1) and "defend iron-bar" in g.notations(1)
    g.do(1, "defend iron-bar")  # BL->BR, power 2 = 2: no extra turn
    g.do(0, "attack return-wing")  # TR->TL connects with swallow
    # Eka's next defence must start at BR (iron-bar's end): boulder BR->TR is fine
    assert g.notations(1) == ["defend boulder", "pass", "resign"]


def test_it_lets_abilities_ignore_the_chain_but_not_the_techniques_around_them():
    g = Game(["swallow", "flurry", "crescent", "return-wing"], ["root", "riposte"], chars=("michi", "eka"))
    g.do(0, "attack swallow")  # ends TR
    g.do(1, "defend root")  # 2 = 2: Michi plays next
    assert "attack flurry" in g.notations(0)  # ability: any trajectory
    new = g.do(0, "attack flurry")
    assert new[0]["data"]["start"] is None and rules.chain_end(g.p[0]) == "TR"
    g.do(1, "defend riposte")  # ability, regardless of trajectory; 2 = 2: Michi plays next
    # after the ability, the next technique must connect with swallow (ends TR): return-wing, not crescent
    assert "attack return-wing" in g.notations(0)
    assert "attack crescent" not in g.notations(0)


# ----------------------------------------------------------------- draw


def test_it_draws_one_card_and_discards_down_to_seven():
    hand = ["swallow", "swallow", "viper", "crescent", "bamboo", "willow", "petal"]
    g = Game(hand, ["root"], deck0=["echo", "low-sweep"])
    new = g.do(0, "draw")
    assert g.types(new) == ["drew"]  # no turn yet: a discard is owed
    assert len(g.p[0]["hand"]) == 8 and g.p[0]["hand"][-1] == "echo"
    assert all(n.startswith("discard ") or n == "resign" for n in g.notations(0))
    with pytest.raises(IllegalAction, match="discard one"):
        g.do(0, {"type": "pass"})
    g.do(0, "discard viper")
    assert len(g.p[0]["hand"]) == 7 and rules.discard_of(g.p[0]) == ["viper"]
    assert g.state["turn"] == 1


def test_it_forbids_drawing_while_in_sequence():
    g = Game(["swallow", "return-wing"], ["root", "rockslide"])
    g.do(0, "attack swallow")
    g.do(1, "defend root")
    assert "draw" not in g.notations(0)  # Michi's and Eka's cards are on the table
    with pytest.raises(IllegalAction, match="in sequence"):
        g.do(0, {"type": "draw"})


def test_it_passes_the_turn_after_a_draw_below_eight():
    g = Game(["swallow"], ["root"])
    new = g.do(0, "draw")
    assert g.types(new) == ["drew", "turn"] and g.state["turn"] == 1


# ----------------------------------------------------------------- attack / defend


def test_it_forbids_attacking_under_attack_and_defending_when_not():
    g = Game(["swallow", "bamboo"], ["rockslide", "root", "upheaval"])
    assert not any(n.startswith("defend") for n in g.notations(0))
    with pytest.raises(IllegalAction, match="only defend"):
        g.do(0, {"type": "defend", "card": "bamboo", "addons": []})
    g.do(0, "attack swallow")
    assert not any(n.startswith("attack") for n in g.notations(1))
    assert "draw" not in g.notations(1)
    with pytest.raises(IllegalAction, match="under attack"):
        g.do(1, {"type": "attack", "card": "rockslide", "addons": []})


def test_it_gives_an_extra_turn_for_a_stronger_defence_only():
    g = Game(["swallow", "return-wing"], ["boulder", "root", "gate"])
    g.do(0, "attack swallow")  # power 2
    new = g.do(1, "defend boulder")  # power 3 > 2
    assert new[0]["data"]["extra_turn"] is True
    assert g.state["turn"] == 1 and g.state["attack"] is None  # no longer under attack
    g = Game(["swallow", "return-wing"], ["boulder", "root", "gate"])
    g.do(0, "attack swallow")
    new = g.do(1, "defend root")  # power 2 = 2
    assert new[0]["data"]["extra_turn"] is False and g.state["turn"] == 0


def test_it_lets_a_weaker_defence_block_too():
    g = Game(["viper", "crescent"], ["root", "iron-bar"])
    g.do(0, "attack viper")  # power 4
    g.do(1, "defend root")  # power 2 still blocks; Michi plays next
    assert g.state["attack"] is None and g.state["turn"] == 0
    g.do(0, "pass")
    assert [pl["score"] for pl in g.p] == [0, 0]


def test_it_ends_the_sequence_when_a_player_not_under_attack_passes():
    g = Game(["swallow", "return-wing"], ["root", "iron-bar"])
    g.do(0, "attack swallow")
    g.do(1, "defend root")
    new = g.do(0, "pass")
    assert g.types(new) == ["passed", "sequence_ended", "turn"]
    assert g.p[0]["sequence"] == [] and g.p[1]["sequence"] == []
    assert rules.discard_of(g.p[0]) == ["swallow"] and rules.discard_of(g.p[1]) == ["root"]
    assert g.state["turn"] == 1  # the player who did not pass
    assert "draw" in g.notations(1)


def test_it_scores_a_clean_strike_refills_and_gives_the_turn_to_the_victim():
    g = Game(["swallow", "return-wing", "viper"], ["rockslide", "root", "boulder"],
             deck0=["low-sweep"] * 10, deck1=["rockslide"] * 10)
    g.do(0, "attack swallow")
    g.do(1, "defend root")  # 2 = 2, Michi again
    g.do(0, "attack return-wing")
    new = g.do(1, "pass")  # under attack: clean strike for Michi
    assert g.types(new) == ["passed", "scored", "sequence_ended", "drew", "drew", "turn"]
    assert g.p[0]["score"] == 2 and g.p[1]["score"] == 0
    assert len(g.p[0]["hand"]) == 7 and len(g.p[1]["hand"]) == 7
    assert g.p[0]["sequence"] == [] and sorted(rules.discard_of(g.p[0])) == ["return-wing", "swallow"]
    assert g.state["turn"] == 1  # the player who did not score


# ----------------------------------------------------------------- add-ons


def test_it_stacks_add_ons_and_applies_them_bottom_up():
    # Eka: Full Swing then Heavy Grip: (3*2)+2 = 8; Heavy Grip then Full Swing: (3+2)*2 = 10
    g = Game(["willow"], ["cleaver", "full-swing", "heavy-grip"], chars=("michi", "eka"), first=1)
    legal = g.notations(1)
    assert "attack cleaver + full-swing + heavy-grip" in legal
    assert "attack cleaver + heavy-grip + full-swing" in legal
    a = rules.card_power(g.state, 1, rules.CARDS["cleaver"], ["full-swing", "heavy-grip"], "attack")
    b = rules.card_power(g.state, 1, rules.CARDS["cleaver"], ["heavy-grip", "full-swing"], "attack")
    assert (a, b) == (8, 10)
    new = g.do(1, "attack cleaver + heavy-grip + full-swing")
    assert new[0]["data"]["power"] == 10
    entry = g.p[1]["sequence"][0]
    assert entry["addons"] == ["heavy-grip", "full-swing"] and entry["power"] == 10
    assert g.p[1]["hand"] == []
    g.do(0, "pass")
    assert g.p[1]["score"] == 10
    assert sorted(rules.discard_of(g.p[1])) == ["cleaver", "full-swing", "heavy-grip"]


def test_it_plays_add_ons_only_on_techniques_and_of_the_right_kind():
    g = Game(["willow"], ["crushing-blow", "heavy-grip", "iron-bar"], chars=("michi", "eka"), first=1)
    assert not any(n.startswith("attack crushing-blow +") for n in g.notations(1))
    with pytest.raises(IllegalAction, match="technique"):
        g.do(1, {"type": "attack", "card": "crushing-blow", "addons": ["heavy-grip"]})
    g2 = Game(["swallow"], ["iron-bar", "heavy-grip"], chars=("michi", "eka"))
    g2.do(0, "attack swallow")
    assert "defend iron-bar + heavy-grip" not in g2.notations(1)  # Heavy Grip: attack techniques only
    with pytest.raises(IllegalAction, match="attack technique"):
        g2.do(1, {"type": "defend", "card": "iron-bar", "addons": ["heavy-grip"]})


def test_it_refuses_add_ons_you_do_not_hold():
    g = Game(["swallow"], ["root"])
    with pytest.raises(IllegalAction, match="do not have"):
        g.do(0, {"type": "attack", "card": "swallow", "addons": ["quick-hands"]})


# ----------------------------------------------------------------- Michi's abilities


def test_it_implements_flurry_blocked_only_by_power_two_or_more():
    g = Game(["flurry"], ["sidestep", "willow", "bamboo"], chars=MIRROR_M)
    new = g.do(0, "attack flurry")
    assert new[0]["data"]["power"] == 2 and new[0]["data"]["start"] is None
    legal = g.notations(1)
    assert "defend bamboo" in legal and "defend willow" not in legal and "defend sidestep" not in legal
    with pytest.raises(IllegalAction, match="power 2 or more"):
        g.do(1, {"type": "defend", "card": "willow", "addons": []})


def test_it_implements_sidestep_always_earning_an_extra_turn():
    g = Game(["sidestep", "swallow"], ["avalanche", "rockslide"], chars=("michi", "eka"), first=1)
    g.do(1, "attack avalanche")  # power 4
    new = g.do(0, "defend sidestep")  # power 0, still an extra turn
    assert new[0]["data"]["power"] == 0 and new[0]["data"]["extra_turn"] is True
    assert g.state["turn"] == 0 and g.state["attack"] is None


def test_it_implements_quick_hands():
    g = Game(["swallow", "quick-hands", "quick-hands"], ["root"])
    assert "attack swallow + quick-hands + quick-hands" in g.notations(0)
    new = g.do(0, "attack swallow + quick-hands + quick-hands")
    assert new[0]["data"]["power"] == 4


def test_it_implements_echo_and_its_order_with_quick_hands():
    # Eka attacks with Avalanche (4); Michi defends with Willow (1) + Echo (=4) + Quick Hands (+1) = 5
    g = Game(["willow", "echo", "quick-hands"], ["avalanche"], chars=("michi", "eka"), first=1)
    g.do(1, "attack avalanche")
    assert rules.card_power(g.state, 0, rules.CARDS["willow"], ["quick-hands", "echo"], "defence") == 4
    new = g.do(0, "defend willow + echo + quick-hands")
    assert new[0]["data"]["power"] == 5 and new[0]["data"]["extra_turn"] is True
    # with the opponent's sequence empty, Echo gives 0
    g2 = Game(["viper", "echo"], ["root"])
    assert rules.card_power(g2.state, 0, rules.CARDS["viper"], ["echo"], "attack") == 0


def test_it_implements_free_flow():
    g = Game(["swallow", "viper", "free-flow", "petal"], ["root", "gate"])
    g.do(0, "attack swallow")  # ends TR
    g.do(1, "defend root")
    assert "attack viper" not in g.notations(0)
    assert "attack viper + free-flow" in g.notations(0)
    g.do(0, "attack viper + free-flow")  # BR->TL despite the chain; ends TL
    assert rules.chain_end(g.p[0]) == "TL"
    g.do(1, "defend gate")  # 4 = 4: Michi plays next
    assert "attack petal" not in g.notations(0)  # petal starts BR, chain is at TL


def test_it_implements_second_wind():
    g = Game(["swallow", "second-wind", "return-wing"], ["root", "rockslide"], deck0=["viper", "petal"])
    g.do(0, "attack swallow")
    g.do(1, "defend root")
    assert "trick second-wind" in g.notations(0)  # even while in sequence
    new = g.do(0, "trick second-wind")
    assert g.types(new) == ["played", "drew", "turn"]
    assert g.p[0]["hand"] == ["return-wing", "viper"] and rules.discard_of(g.p[0]) == ["second-wind"]
    assert g.state["turn"] == 1


def test_it_refuses_second_wind_in_the_last_hand():
    g = Game(["second-wind", "swallow"], ["root"], deck0=["viper"])
    g.do(0, "draw")  # the last card: last hand
    assert g.state["last_hand"]
    g.do(1, "pass")
    assert "trick second-wind" not in g.notations(0)
    with pytest.raises(IllegalAction, match="last hand"):
        g.do(0, {"type": "trick", "card": "second-wind"})


def test_it_implements_smoke_veil_for_the_opponents_next_turn_only():
    g = Game(["smoke-veil", "willow"], ["rockslide", "avalanche"], chars=("michi", "eka"))
    g.do(0, "trick smoke-veil")
    assert g.p[1]["current"] == {"no_attack": True}
    assert not any(n.startswith("attack") for n in g.notations(1))
    with pytest.raises(IllegalAction, match="cannot attack"):
        g.do(1, {"type": "attack", "card": "avalanche", "addons": []})
    g.do(1, "pass")
    g.do(0, "pass")
    assert "attack avalanche" in g.notations(1)  # the following turn is free again


# ----------------------------------------------------------------- Eka's abilities


def test_it_implements_crushing_blow_denying_every_extra_turn():
    g = Game(["gate", "sidestep"], ["crushing-blow"], chars=("eka", "michi"), first=1)
    g2 = Game(["sidestep"], ["crushing-blow"], chars=("michi", "eka"), first=1)
    g2.do(1, "attack crushing-blow")
    new = g2.do(0, "defend sidestep")  # Sidestep's extra turn is denied
    assert new[0]["data"]["extra_turn"] is False and g2.state["turn"] == 1
    g3 = Game(["gate"], ["crushing-blow"], chars=("eka", "eka"), first=1)
    g3.do(1, "attack crushing-blow")  # power 4
    g3.do(0, "defend gate")  # 4 = 4 anyway
    assert g3.state["turn"] == 1
    g4 = Game(["gate", "full-swing"], ["crushing-blow"], chars=("eka", "eka"), first=1)
    g4.do(1, "attack crushing-blow")
    new = g4.do(0, "defend gate + full-swing")  # power 8 > 4, still no extra turn
    assert new[0]["data"]["power"] == 8 and new[0]["data"]["extra_turn"] is False
    assert g4.state["turn"] == 1
    del g


def test_it_implements_riposte_bonus_on_the_next_attack():
    # weak Riposte (2 < 4): Michi plays, then Eka's next turn gets +2 on her attack
    g = Game(["viper", "return-wing"], ["riposte", "rockslide"], chars=("michi", "eka"))
    g.do(0, "attack viper")  # 4
    new = g.do(1, "defend riposte")
    assert new[0]["data"]["extra_turn"] is False and g.state["turn"] == 0
    assert g.p[1]["pending"] == {"attack_mod": 2}
    g.do(0, "pass")  # sequence ends; Eka's turn
    new = g.do(1, "attack rockslide")
    assert new[0]["data"]["power"] == 4  # 2 + 2
    g.do(0, "pass")  # clean strike; the bonus is used up
    assert g.p[1]["score"] == 4 and g.p[1]["current"] == {} and g.p[1]["pending"] == {}


def test_it_applies_riposte_in_the_extra_turn():
    g = Game(["intimidate", "riposte", "rockslide"], ["rockslide"], chars=("eka", "eka"))
    g.do(0, "trick intimidate")
    new = g.do(1, "attack rockslide")  # 2 - 2 = 0
    assert new[0]["data"]["power"] == 0
    new = g.do(0, "defend riposte")  # 2 > 0: extra turn, which is the defender's next turn
    assert new[0]["data"]["extra_turn"] is True and g.state["turn"] == 0
    assert rules.card_power(g.state, 0, rules.CARDS["rockslide"], [], "attack") == 4


def test_it_implements_heavy_grip_full_swing_and_anchor():
    g = Game(["willow"], ["upheaval", "anchor", "full-swing", "heavy-grip"], chars=("michi", "eka"), first=1)
    power = lambda addons: rules.card_power(g.state, 1, rules.CARDS["upheaval"], addons, "attack")  # noqa: E731
    assert power(["heavy-grip"]) == 4
    assert power(["full-swing"]) == 4
    assert power(["anchor"]) == 3
    assert power(["anchor", "full-swing"]) == 6
    assert power(["full-swing", "anchor"]) == 4  # 2*2 = 4, already at least 3
    g2 = Game(["willow"], ["iron-bar", "anchor"], chars=("michi", "eka"))
    assert rules.card_power(g2.state, 1, rules.CARDS["iron-bar"], ["anchor"], "defence") == 3


def test_it_implements_recall():
    g = Game(["swallow", "low-sweep"], ["cleaver", "recall", "root"], chars=("michi", "eka"), first=1)
    assert not any(n.startswith("trick recall") for n in g.notations(1))  # nothing to take back
    g.do(1, "attack cleaver")
    g.do(0, "pass")  # clean strike 3; Michi plays next
    g.do(0, "pass")
    assert "cleaver" in rules.discard_of(g.p[1])
    assert "trick recall cleaver" in g.notations(1)
    new = g.do(1, "trick recall cleaver")
    assert g.types(new) == ["played", "recalled", "turn"]
    assert "cleaver" in g.p[1]["hand"] and rules.discard_of(g.p[1]) == ["recall"]


def test_it_implements_intimidate_after_add_ons():
    g = Game(["intimidate", "root"], ["cleaver", "heavy-grip", "rockslide"], chars=("eka", "eka"))
    g.do(0, "trick intimidate")
    assert rules.card_power(g.state, 1, rules.CARDS["cleaver"], ["heavy-grip"], "attack") == 3  # 3+2-2
    assert rules.card_power(g.state, 1, rules.CARDS["rockslide"], [], "attack") == 0  # never below 0
    new = g.do(1, "attack cleaver + heavy-grip")
    assert new[0]["data"]["power"] == 3


# ----------------------------------------------------------------- trick timing


def test_it_plays_a_trick_as_the_only_action_and_not_under_attack():
    g = Game(["swallow"], ["smoke-veil", "root"], chars=("michi", "michi"))
    g.do(0, "attack swallow")
    assert not any(n.startswith("trick") for n in g.notations(1))
    with pytest.raises(IllegalAction, match="under attack"):
        g.do(1, {"type": "trick", "card": "smoke-veil"})


# ----------------------------------------------------------------- end of game


def test_it_declares_last_hand_on_the_last_card_and_stops_drawing():
    g = Game(["swallow"], ["root"], deck0=["viper"], deck1=["rockslide", "rockslide"])
    new = g.do(0, "draw")
    assert g.types(new) == ["drew", "last_hand", "turn"]
    assert g.state["last_hand"] and rules.deck_of(g.p[0]) == []
    assert "draw" not in g.notations(1)  # the other player cannot draw either
    with pytest.raises(IllegalAction, match="last hand"):
        g.do(1, {"type": "draw"})


def test_it_ends_the_last_hand_after_two_passes_in_a_row():
    g = Game(["swallow"], ["root"], deck0=["viper"])
    g.do(0, "draw")
    g.do(1, "pass")
    assert rules.result(g.state) is None
    new = g.do(0, "pass")
    assert g.types(new)[-1] == "ended"
    res = rules.result(g.state)
    assert res["winners"] == [0, 1] and res["ranks"] == [1, 1] and "draw" in res["summary"].lower()
    assert rules.to_act(g.state) == {} and rules.legal_actions(g.state, 0) == []


def test_it_does_not_count_passes_separated_by_a_play():
    g = Game(["swallow", "return-wing"], ["root", "rockslide"], deck0=["viper"])
    g.do(0, "draw")  # last hand
    g.do(1, "pass")
    g.do(0, "attack swallow")
    g.do(1, "defend root")
    g.do(0, "pass")  # ends the sequence, one pass
    assert rules.result(g.state) is None
    g.do(1, "pass")
    assert rules.result(g.state)["winners"] == [0, 1]


def test_it_ends_the_last_hand_on_a_clean_strike_and_the_score_decides():
    g = Game(["swallow", "viper"], ["root"], deck0=["low-sweep"], deck1=["rockslide"] * 5)
    g.do(0, "draw")  # last hand
    g.do(1, "pass")
    g.do(0, "attack viper")
    new = g.do(1, "pass")
    assert g.types(new) == ["passed", "scored", "sequence_ended", "ended"]
    res = rules.result(g.state)
    assert res["winners"] == [0] and res["ranks"] == [1, 2] and res["scores"] == [4, 0]


def test_it_declares_last_hand_when_a_refill_empties_a_deck():
    g = Game(["swallow", "viper"], ["root"], deck0=["low-sweep"] * 10, deck1=["rockslide"] * 3)
    g.do(0, "attack viper")
    new = g.do(1, "pass")  # clean strike; Eka needs 7 but has only 3 left
    assert g.types(new) == ["passed", "scored", "sequence_ended", "drew", "drew", "last_hand", "turn"]
    assert g.state["last_hand"] and rules.deck_of(g.p[1]) == [] and len(g.p[1]["hand"]) == 4
    assert len(g.p[0]["hand"]) == 7


def test_it_lets_either_player_resign_at_any_time():
    g = Game(["swallow"], ["root"])
    new = g.do(1, {"type": "resign"})  # not Eka's turn
    assert g.types(new) == ["resigned"]
    res = rules.result(g.state)
    assert res["winners"] == [0] and res["ranks"] == [1, 2] and "resigned" in res["summary"]
    with pytest.raises(IllegalAction, match="over"):
        g.do(0, {"type": "pass"})


# ----------------------------------------------------------------- contract details


def test_it_refuses_out_of_turn_and_nonsense_actions_kindly():
    g = Game(["swallow"], ["root"])
    with pytest.raises(IllegalAction, match="not your turn"):
        g.do(1, {"type": "pass"})
    for bad in ({}, {"type": "fly"}, "pass-me", {"type": "attack", "card": "nope"}):
        with pytest.raises(IllegalAction):
            g.do(0, bad if not isinstance(bad, str) else {"type": bad})


def test_it_keeps_notations_unique_and_accepted():
    g = Game(["swallow", "swallow", "quick-hands", "quick-hands", "echo", "free-flow", "flurry"], ["root"])
    legal = rules.legal_actions(g.state, 0)
    notations = [i["notation"] for i in legal]
    assert len(notations) == len(set(notations))
    for item in legal:
        rules.decide(g.state, 0, item["action"], Rng("x", 1))


def test_it_describes_every_event():
    names = ["Ann", "Bob"]
    g = Game(["swallow", "second-wind", "return-wing"], ["root", "rockslide"], deck0=["viper"])
    g.do(0, "attack swallow")
    g.do(1, "defend root")
    g.do(0, "trick second-wind")
    g.do(1, "pass")
    g.do(0, {"type": "resign"})
    kinds = set()
    for e in g.events:
        for seat in (0, 1, None):
            r = rules.redact(e, seat)
            line = rules.describe(r, names)
            assert isinstance(line, str) and line
            kinds.add(e["type"])
    assert {"started", "deck", "drew", "played", "passed", "sequence_ended", "last_hand", "turn",
            "resigned"} <= kinds
    line = rules.describe(rules.redact(g.events[-1], None), names)
    assert line == "Ann resigned."


def test_it_defaults_a_skipped_turn_to_draw_outside_a_sequence_and_pass_inside():
    g = Game(["swallow"] * 7, ["root"], deck0=["viper"] * 3)
    assert rules.to_act(g.state)[0]["default"] == {"type": "draw"}
    g.do(0, "draw")
    assert rules.to_act(g.state)[0]["default"] is None  # the discard is a real choice
    g.do(0, "discard viper")
    g.do(1, "pass")
    g.do(0, "attack swallow")
    assert rules.to_act(g.state)[1]["default"] == {"type": "pass"}


def test_it_ends_a_game_where_every_turn_is_skipped():
    state = replay(rules, rules.setup(2, {}, Rng("idle", 0)))
    for step in range(400):
        if rules.result(state):
            break
        seat, info = next(iter(rules.to_act(state).items()))
        action = info["default"] or {"type": "discard", "card": state["players"][seat]["hand"][-1]}
        for e in rules.decide(state, seat, action, Rng("idle", step + 1)):
            state = rules.evolve(state, e)
    assert rules.result(state) is not None


def test_it_refuses_a_move_whose_type_is_not_a_word():
    # a malformed API call must get a reason, not crash decide (a list or object is not hashable)
    g = Game(["swallow"], ["root"])
    for bad in ({"type": ["attack"]}, {"type": {"a": 1}}, {"type": 3}):
        with pytest.raises(IllegalAction, match="not a Karenza move"):
            g.do(0, bad)
