"""Each rule of the Kenta rulebook (and each of its examples) as a scenario."""

import pytest

from games.engine import IllegalAction, apply, event, replay
from games.kenta import rules as R
from games.rng import Rng

from .helpers import Script, act, at_cards, everyone_passes, game, notations, rolled, types

# ---------------------------------------------------------------------------------- preparation


def test_it_prepares_the_race_as_the_rulebook_says():
    firsts, discs = set(), set()
    for n in range(2, 6):
        for seed in range(12):
            evs = R.setup(n, {}, Rng(f"prep-{seed}", 0))
            setup = evs[0]["data"]
            s = replay(R, evs[:2])
            assert s["line"] == 25 and s["pos"] == [0] * n
            assert [len(h) for h in setup["hands"]] == [1] * n
            objs = setup["objectives"]
            assert len(set(objs)) == n
            allowed = {f"color-{c}" for c in R.COLORS[:n]} | {"last"} | ({"finish-line"} if n == 5 else set())
            assert set(objs) <= allowed
            assert len(setup["pile"]) == 48 - n
            firsts.add(setup["first"])
            discs.add(setup["disc"])
            assert evs[1] == event("turn", seat=setup["first"])
    assert firsts == {0, 1, 2, 3, 4} and discs == {"black", "white"}


def test_it_refuses_one_or_six_players_and_unknown_options():
    for n in (1, 6):
        with pytest.raises(IllegalAction):
            R.check_players(n, {})
    with pytest.raises(IllegalAction):
        R.check_players(3, {"speed": 2})
    with pytest.raises(IllegalAction):
        R.check_players(3, {"vote_seconds": 0})
    R.check_players(3, {"vote_seconds": 30, "reaction_seconds": 20})


def test_it_reads_the_twelve_sided_die_as_three_of_each_face():
    assert sorted(R.FACES) == [1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4]


# ------------------------------------------------------------------------------------ the turn


def test_it_lets_the_player_choose_a_die_and_shows_its_colour():
    s = rolled(game(3, disc="white"), 3, 1)
    assert R.to_act(s) == {0: {"kind": "turn", "default": None, "seconds": None}}
    assert notations(s, 0) == ["black", "white"]
    s2, evs = act(s, 0, {"type": "die", "color": "white"})
    assert s2["disc"] == "white" and s2["pos"][0] == 1 and s2["stage"] == "cards"
    s3, evs = act(s, 0, {"type": "die", "color": "black"})
    # Black III: 0 -> 3, a card square: draw.
    assert s3["disc"] == "black" and s3["pos"][0] == 3 and len(s3["hands"][0]) == 2


def test_it_draws_a_card_on_a_four():
    s = rolled(game(3), 4, 2)
    s, evs = act(s, 0, {"type": "die", "color": "black"})
    assert s["pos"][0] == 0 and s["hands"][0] == ["sprint", "dash"]
    assert "draw" in types(evs)


def test_it_flips_the_disc_on_doubles_and_votes_then_acts_once():
    s = at_cards(rolled(game(3, disc="black"), 3, 1))
    s, evs = act(s, 0, {"type": "end"}, Script(dice=[2, 2]))
    assert types(evs)[:3] == ["turn", "roll", "vote_open"]
    assert s["active"] == 1 and s["disc"] == "white"
    window = {"kind": "window", "default": R.NO_MARKER, "seconds": 60}
    assert R.to_act(s) == {0: window, 1: window, 2: window}
    assert notations(s, 2) == ["vote black", "vote white"]   # no abstaining: a marker of each colour
    s, _ = act(s, 0, {"type": "vote", "marker": "black"})
    s, _ = act(s, 1, {"type": "vote", "marker": "black"})
    s, evs = act(s, 2, {"type": "vote", "marker": "white"})
    reveal = [e for e in evs if e["type"] == "vote_reveal"][0]["data"]
    assert reveal["ballots"] == ["black", "black", "white"] and reveal["line"] == 26
    # The action of the dice is done once: II moves two squares (square 2 is black, inactive).
    assert s["line"] == 26 and s["pos"][1] == 2 and s["stage"] == "cards"


def test_it_uses_the_vote_seconds_option_and_counts_a_missing_vote_as_no_marker():
    s = at_cards(rolled(game(2, options={"vote_seconds": 15, "reaction_seconds": 20}), 3, 1))
    s, _ = act(s, 0, {"type": "end"}, Script(dice=[1, 1]))
    assert {v["seconds"] for v in R.to_act(s).values()} == {15}
    s, _ = act(s, 0, {"type": "vote", "marker": "white"})
    s, evs = act(s, 1, R.to_act(s)[1]["default"])
    assert s["line"] == 24


def test_it_plays_no_marker_only_when_the_time_runs_out_and_the_log_says_so():
    # alice votes black, bob lets his time run out, charlie votes white: the line moves 0
    s = at_cards(rolled(game(3), 3, 1))
    s, _ = act(s, 0, {"type": "end"}, Script(dice=[2, 2]))
    assert "abstain" not in notations(s, 1)
    s, _ = act(s, 0, {"type": "vote", "marker": "black"})
    s, evs = act(s, 1, R.to_act(s)[1]["default"])
    names = ["alice", "bob", "charlie"]
    assert R.describe(evs[0], names) == "bob's time to vote ran out: no marker."
    assert R.describe(R.redact(evs[0], 0), names) == "bob voted in secret."   # not shown before the reveal
    s, evs = act(s, 2, {"type": "vote", "marker": "white"})
    reveal = next(e for e in evs if e["type"] == "vote_reveal")
    assert reveal["data"]["delta"] == 0 and s["line"] == 25
    assert "bob: no marker (time ran out)" in R.describe(reveal, names)


def test_it_moves_the_line_by_one_for_every_marker():
    # every voter hides black or white, so two voters move the line by 2 or 0, never by 1
    for a, b, line in (("black", "black", 27), ("black", "white", 25), ("white", "white", 23)):
        s = at_cards(rolled(game(2), 3, 1))
        s, _ = act(s, 0, {"type": "end"}, Script(dice=[2, 2]))
        s, _ = act(s, 0, {"type": "vote", "marker": a})
        s, _ = act(s, 1, {"type": "vote", "marker": b})
        assert s["line"] == line


def test_it_passes_the_turn_counter_clockwise_to_the_next_seat():
    s = at_cards(rolled(game(3, first=2), 3, 1))
    s, evs = act(s, 2, {"type": "end"}, Script(dice=[3, 1]))
    assert s["active"] == 0
    s = at_cards(rolled(game(3, first=0), 3, 1))
    s, _ = act(s, 1, {"type": "resign"})
    s, _ = act(s, 0, {"type": "end"}, Script(dice=[3, 1]))
    assert s["active"] == 2


# -------------------------------------------------------------------------------------- squares


def test_it_pushes_a_pawn_on_an_active_square_and_draws_on_a_card_square_after_the_push():
    s = rolled(game(3, pos=[13, 0, 0], disc="black"), 1, 3)
    s, evs = act(s, 0, {"type": "die", "color": "white"})
    # 13 -> 16 (white, +2, active) -> 18 (card square): draw; 14 is a hot spot passed first.
    moves = [e["data"]["moves"][0] for e in evs if e["type"] == "move"]
    assert moves == [{"seat": 0, "from": 13, "to": 16}, {"seat": 0, "from": 16, "to": 18}]
    assert s["pos"][0] == 18 and len(s["hands"][0]) == 2
    assert s["points"][0] == 1


def test_it_ignores_inactive_squares_and_never_chains_arrows():
    s = rolled(game(3, pos=[1, 0, 0]), 3, 1)
    s, _ = act(s, 0, {"type": "die", "color": "black"})
    assert s["pos"][0] == 4  # white square, disc black: inactive
    s = rolled(game(3, pos=[3, 0, 0]), 3, 1)
    s, _ = act(s, 0, {"type": "die", "color": "black"})
    assert s["pos"][0] == 4  # 6 is black -2: pushed back to 4 (white, no second push)


def test_it_leaves_an_unmoved_pawn_alone_when_the_disc_flips():
    s = at_cards(game(3, hands=[["double-kenta"], ["sprint"], ["sprint"]], pos=[0, 2, 0], disc="white"))
    s, _ = act(s, 0, {"type": "play", "card": "double-kenta"})
    s, _ = everyone_passes(s)
    s, _ = act(s, 0, {"type": "kenta", "choice": "flip"})
    s, _ = act(s, 0, {"type": "kenta", "choice": "forward"})
    assert s["disc"] == "black" and s["pos"][1] == 2 and s["line"] == 26


# ------------------------------------------------------------------------------------ hot spots


def _sim(state):
    return R.Sim(state, Script())


def test_it_scores_hot_spots_one_three_then_two_for_the_last():
    s = game(5, pos=[6, 6, 6, 6, 6])
    sim = _sim(s)
    got = []
    for seat in range(5):
        R.do_move(sim, [(seat, 1)], "card")
        got.append([e["data"]["points"] for e in sim.events if e["type"] == "hot"][-1])
    assert got == [[1], [3], [0], [0], [2]]
    assert sim.state["points"] == [1, 3, 0, 0, 2]


def test_it_shares_points_on_simultaneous_arrival_and_gives_nothing_the_second_time():
    s = game(3, pos=[6, 6, 6])
    sim = _sim(s)
    R.do_move(sim, [(0, 1)], "card")
    R.do_move(sim, [(1, 1), (2, 1)], "card")
    assert sim.state["points"] == [1, 3, 3]
    R.do_move(sim, [(0, -1)], "card")
    R.do_move(sim, [(0, 1)], "card")
    assert sim.state["points"] == [1, 3, 3]
    s = game(2, pos=[6, 6])
    sim = _sim(s)
    R.do_move(sim, [(0, 1), (1, 1)], "card")
    assert sim.state["points"] == [1, 1]


def test_it_lets_the_active_player_move_the_line_when_stopping_on_a_hot_spot():
    s = rolled(game(3, pos=[5, 0, 0]), 2, 1)
    s, evs = act(s, 0, {"type": "die", "color": "black"})
    assert s["pos"][0] == 7 and "hot_stop" in types(evs)
    assert notations(s, 0) == ["line forward", "line back"]
    s, evs = act(s, 0, {"type": "line", "dir": "forward"})
    assert s["line"] == 26 and s["stage"] == "cards" and s["vote"] is None


def test_it_makes_every_player_on_a_hot_spot_vote_on_the_line():
    s = rolled(game(3, pos=[5, 14, 0]), 2, 1)
    s, _ = act(s, 0, {"type": "die", "color": "black"})
    s, evs = act(s, 0, {"type": "line", "dir": "back"})
    assert s["line"] == 24
    assert sorted(R.to_act(s)) == [0, 1] and s["vote"]["voters"] == [0, 1]
    s, _ = act(s, 0, {"type": "vote", "marker": "white"})
    s, _ = act(s, 1, {"type": "vote", "marker": "white"})
    assert s["line"] == 22 and s["stage"] == "cards"


# ---------------------------------------------------------------------------------- action cards


def test_it_allows_up_to_two_uses_by_action_or_discard_and_end_is_the_default():
    s = at_cards(game(3, hands=[["dash", "sprint", "sprint"], ["lucky-charm"], ["step"]], disc="white"))
    assert notations(s, 0) == ["play sprint", "play dash", "swap sprint", "swap dash", "end"]
    assert R.to_act(s)[0]["default"] == {"type": "end"}
    s, _ = act(s, 0, {"type": "play", "card": "sprint"})
    s, _ = everyone_passes(s)
    assert s["pos"][0] == 2 and s["uses"] == 1 and s["active"] == 0
    s, evs = act(s, 0, {"type": "swap", "card": "dash"}, Script(dice=[3, 1]))
    assert types(evs)[:3] == ["swap", "draw", "turn"] and s["active"] == 1
    assert "dash" in s["discard"]


def test_it_targets_ahead_when_black_behind_when_white_never_on_the_same_square():
    s = game(4, pos=[5, 8, 5, 2], disc="black")
    assert R.valid_targets(s, 0) == [1]
    s["disc"] = "white"
    assert R.valid_targets(s, 0) == [3]
    s = at_cards(game(3, hands=[["setback", "sprint"], ["sprint"], ["sprint"]], pos=[5, 5, 1]))
    assert "play setback" not in notations(s, 0) and "swap setback" in notations(s, 0)


def test_it_refuses_every_card_move_it_does_not_offer():
    # alice (seat 0) may play sprint, swap either card or end; nothing else, and bob nothing at all
    s = at_cards(game(3, hands=[["setback", "sprint", "stop"], ["sprint"], ["sprint"]], pos=[5, 5, 1]))
    offered = [a["action"] for a in R.legal_actions(s, 0)]
    tries = [{"type": t, "card": k} for t in ("play", "swap", "discard") for k in ("setback", "sprint", "stop", "dash")]
    tries += [{"type": "end"}, {"type": "end", "card": "sprint"}, {"type": "play", "card": "sprint", "x": 1},
              {"type": "play"}, {"type": "play", "card": None}, {"type": "pass"}]
    for action in tries:
        for seat in (0, 1):
            if seat == 0 and action in offered:
                R.decide(s, seat, action, Script())
                continue
            with pytest.raises(IllegalAction):
                R.decide(s, seat, action, Script())
    assert offered == [{"type": "play", "card": "sprint"}, {"type": "swap", "card": "stop"},
                       {"type": "swap", "card": "sprint"}, {"type": "swap", "card": "setback"}, {"type": "end"}]


def test_it_resolves_example_one_target_moves_two_then_i_move_one():
    s = at_cards(game(3, hands=[["shove"], ["sprint"], ["sprint"]], pos=[0, 15, 0]))
    s, _ = act(s, 0, {"type": "play", "card": "shove"})
    s, _ = everyone_passes(s)
    assert notations(s, 0) == ["target blue"]
    s, _ = act(s, 0, {"type": "target", "seat": 1})
    assert s["pos"] == [1, 17, 0] and "shove" in s["discard"]


def test_it_resolves_example_two_each_other_player_forward_or_back_then_me():
    s = at_cards(game(4, hands=[["crowd"], ["sprint"], ["sprint"], ["sprint"]], pos=[5, 0, 12, 17]))
    s, _ = act(s, 0, {"type": "play", "card": "crowd"})
    s, _ = everyone_passes(s)
    assert notations(s, 0) == ["blue forward", "blue back"]
    s, _ = act(s, 0, {"type": "dir", "mover": 1, "dir": "forward"})
    s, _ = act(s, 0, {"type": "dir", "mover": 2, "dir": "backward"})
    s, evs = act(s, 0, {"type": "dir", "mover": 3, "dir": "backward"})
    move = [e for e in evs if e["type"] == "move"][0]["data"]["moves"]
    assert len(move) == 3  # the other players move at the same time
    s, _ = act(s, 0, {"type": "dir", "mover": 0, "dir": "backward"})
    assert s["pos"] == [4, 1, 11, 16]


def test_it_resolves_example_three_kenta_then_everyone_forward():
    s = at_cards(game(3, hands=[["kenta-wave"], ["sprint"], ["sprint"]], pos=[0, 0, 11]))
    s, _ = act(s, 0, {"type": "play", "card": "kenta-wave"})
    s, _ = everyone_passes(s)
    assert notations(s, 0) == ["flip", "line forward", "line back"]
    s, _ = act(s, 0, {"type": "kenta", "choice": "back"})
    assert s["line"] == 24 and s["pos"] == [1, 1, 12]


def test_it_resolves_example_four_gift_given_then_three_forward_and_scores_a_point():
    s = at_cards(game(3, hands=[["gift"], ["sprint"], ["sprint"]], pos=[0, 11, 0]))
    s, _ = act(s, 0, {"type": "play", "card": "gift"})
    s, _ = everyone_passes(s)
    s, evs = act(s, 0, {"type": "target", "seat": 1})
    assert "gift" in s["hands"][1] and "gift" not in s["discard"]
    assert s["pos"][0] == 3 and len(s["hands"][0]) == 1  # 3 is a card square; also refilled
    assert R.CARDS["gift"]["points"] == 1


def test_it_ships_the_rulebook_examples_exactly_in_a_deck_of_48():
    ex = {c["example"]: c for c in R.CARDS.values() if c["example"]}
    mv = lambda who, n, d: {"do": "move", "who": who, "steps": n, "dir": d}  # noqa: E731
    assert ex[1]["effects"] == [{"do": "target"}, mv("you", 2, "forward"), mv("me", 1, "forward")]
    assert ex[2]["effects"] == [mv("others", 1, "either"), mv("me", 1, "either")]
    assert ex[3]["effects"] == [{"do": "kenta"}, mv("all", 1, "forward")]
    assert ex[4]["effects"] == [{"do": "target"}, {"do": "give", "what": "this", "to": "you"},
                                mv("me", 3, "forward")]
    assert ex[4]["points"] == 1 and not any(ex[i]["points"] for i in (1, 2, 3))
    assert sum(c["copies"] for c in R.CARDS.values()) == 48


def test_it_lets_the_target_choose_the_card_to_discard():
    s = at_cards(game(3, hands=[["tax"], ["stop", "sprint"], ["dash"]], pos=[0, 5, 0]))
    s, _ = act(s, 0, {"type": "play", "card": "tax"})
    s, _ = everyone_passes(s)
    s, _ = act(s, 0, {"type": "target", "seat": 1})
    assert R.to_act(s) == {1: {"kind": "turn", "default": None, "seconds": None}}
    s, evs = act(s, 1, {"type": "discard", "card": "sprint"})
    assert s["hands"][1] == ["stop"] and "sprint" in s["discard"]
    assert len(s["hands"][0]) == 1  # the tax drew a card


def test_it_gives_a_card_from_hand_seen_only_by_the_two_players():
    s = at_cards(game(3, hands=[["swap-gift", "stop"], ["sprint"], ["dash"]], pos=[0, 5, 0]))
    s, _ = act(s, 0, {"type": "play", "card": "swap-gift"})
    s, _ = everyone_passes(s)
    s, _ = act(s, 0, {"type": "target", "seat": 1})
    s, evs = act(s, 0, {"type": "give", "card": "stop"})
    give = [e for e in evs if e["type"] == "give"][0]
    assert "card" in R.redact(give, 0)["data"] and "card" in R.redact(give, 1)["data"]
    assert "card" not in R.redact(give, 2)["data"] and "card" not in R.redact(give, None)["data"]
    assert "stop" in s["hands"][1]


# ------------------------------------------------------------------------------------------ STOP


def test_it_opens_the_stop_window_to_every_other_player_alike():
    for hands in ([["sprint"], ["stop"], ["dash"]], [["sprint"], ["dash"], ["dash"]]):
        s = at_cards(game(3, hands=hands, options={"vote_seconds": 60, "reaction_seconds": 25}))
        s, evs = act(s, 0, {"type": "play", "card": "sprint"})
        window = {"kind": "window", "default": {"type": "pass"}, "seconds": 25}
        assert R.to_act(s) == {1: window, 2: window}
        assert evs[-1]["data"]["window"] == [1, 2]
        assert notations(s, 2) == ["resolve"]
    assert notations(s, 0) == []


def test_it_cancels_a_card_with_stop_and_gives_the_cancelled_player_a_point():
    s = at_cards(game(3, hands=[["sprint"], ["stop"], ["dash"]], pile=["dash", "step", "trip"]))
    s, _ = act(s, 0, {"type": "play", "card": "sprint"})
    assert notations(s, 1) == ["resolve", "stop"]
    s, evs = act(s, 1, {"type": "stop"})
    assert s["pos"][0] == 0 and s["points"][0] == 1
    assert R.cards_of(s["discard"]) == ["stop", "sprint"]
    assert s["react"] is None and s["active"] == 0 and s["stage"] == "cards"
    # Both lost their last card: each draws one at once.
    assert s["hands"][0] == ["dash"] and s["hands"][1] == ["step"]
    with pytest.raises(IllegalAction):
        R.decide(s, 2, {"type": "stop"}, Script())


def test_it_skips_the_window_once_every_stop_lies_face_up_in_the_discard_pile():
    s = at_cards(game(3, hands=[["sprint"], ["dash"], ["dash"]], disc="white"))
    s["discard"] = " ".join(["stop"] * 6)
    s, evs = act(s, 0, {"type": "play", "card": "sprint"})
    assert evs[0]["data"]["window"] == [] and s["pos"][0] == 2


def test_it_does_not_let_the_active_player_play_stop_as_an_action():
    s = at_cards(game(3, hands=[["stop"], ["dash"], ["dash"]]))
    assert notations(s, 0) == ["swap stop", "end"]


# ---------------------------------------------------------------------------------- hand limits


def test_it_discards_cards_drawn_beyond_five_face_up():
    hand = ["dash", "dash", "sprint", "sprint", "step"]
    s = rolled(game(3, hands=[hand, ["dash"], ["dash"]], pile=["stop", "dash"]), 4, 1)
    s, evs = act(s, 0, {"type": "die", "color": "black"})
    draw = [e for e in evs if e["type"] == "draw"][0]
    assert not draw["data"]["kept"] and R.redact(draw, 1)["data"]["card"] == "stop"
    assert len(s["hands"][0]) == 5 and R.cards_of(s["discard"]) == ["stop"]


def test_it_refills_an_empty_hand_when_the_action_ends():
    s = at_cards(game(3, hands=[["sprint"], ["dash"], ["dash"]], pile=["trip", "dash"]))
    s, _ = act(s, 0, {"type": "play", "card": "sprint"})
    assert s["hands"][0] == []  # still resolving: the action has not ended
    s, _ = everyone_passes(s)
    assert s["hands"][0] == ["trip"]


# ------------------------------------------------------------------------------- end of the race


def test_it_ends_the_race_when_a_pawn_reaches_the_line_even_mid_card():
    s = at_cards(game(3, hands=[["shove"], ["sprint"], ["sprint"]], pos=[0, 23, 0]))
    s, _ = act(s, 0, {"type": "play", "card": "shove"})
    s, _ = everyone_passes(s)
    s, evs = act(s, 0, {"type": "target", "seat": 1})
    assert s["race_over"] and s["end"]["why"] == "pawn"
    assert s["pos"] == [0, 25, 0]  # the rest of the card is not applied
    assert R.result(s) is not None


def test_it_ends_the_race_when_the_line_reaches_the_leading_pawn():
    s = at_cards(game(3, hands=[["kenta-wave"], ["sprint"], ["sprint"]], pos=[0, 24, 0]))
    s, _ = act(s, 0, {"type": "play", "card": "kenta-wave"})
    s, _ = everyone_passes(s)
    s, _ = act(s, 0, {"type": "kenta", "choice": "back"})
    assert s["race_over"] and s["end"]["why"] == "line" and s["pos"] == [0, 24, 0]


def test_it_reshuffles_once_and_ends_the_race_when_the_pile_runs_out_the_second_time():
    s = rolled(game(3, pile=["dash"]), 4, 1)
    s["discard"] = "trip step"
    s, evs = act(s, 0, {"type": "die", "color": "black"})
    assert s["pile"] == "" and s["pile_round"] == 1 and not s["race_over"]
    s, evs = act(s, 0, {"type": "swap", "card": "dash"})
    assert "reshuffle" in types(evs) and s["pile_round"] == 2
    assert R.redact([e for e in evs if e["type"] == "reshuffle"][0], 0)["data"] == {"pile_count": 3}
    assert R.cards_of(s["pile"]) == ["step", "dash"] and s["hands"][0] == ["sprint", "trip"]
    s, evs = act(s, 0, {"type": "swap", "card": "sprint"}, Script(dice=[4, 1]))
    assert R.cards_of(s["pile"]) == ["dash"] and s["active"] == 1 and not s["race_over"]
    s, evs = act(s, 1, {"type": "die", "color": "black"})  # IV: draws the last card
    assert s["race_over"] and s["pile"] == ""
    assert s["end"]["why"] == "pile"


# ----------------------------------------------------------------------------------- scoring


def _end(state):
    sim = _sim(state)
    R.end_race(sim, "pawn")
    return sim.state, sim.events


def test_it_scores_colour_objectives():
    # red first (20), blue second (15), green last (10).
    s = game(3, pos=[20, 15, 10], objectives=["color-red", "color-green", "last"])
    s["hands"] = [["dash"], ["dash"], ["dash"]]
    s, _ = _end(s)
    # red holds its own colour and is not second: -2; blue's card is green (not first): but blue
    # is second: +2; green holds "last" and is last: +8.
    assert s["end"]["objective_points"] == [-2, 2, 8]
    s = game(3, pos=[20, 15, 10])
    s["objectives"] = ["color-green", "color-blue", "color-red"]
    s["hands"] = [["dash"], ["dash"], ["dash"]]
    s, _ = _end(s)
    # red: green not first, red not second: 0; blue own colour and second: +5;
    # green: red is first: +4.
    assert s["end"]["objective_points"] == [0, 5, 4]


def test_it_scores_the_last_and_finish_line_objectives():
    s = game(5, pos=[20, 15, 10, 5, 5], line=31)
    s["objectives"] = ["color-blue", "last", "color-red", "finish-line", "color-green"]
    s["hands"] = [["dash"]] * 5
    s, _ = _end(s)
    # blue (last card) is neither first nor last: +3; yellow (finish line) line 31 > 30 and
    # last (shares the last square with purple): 5 + 4.
    assert s["end"]["objective_points"][1] == 3 and s["end"]["objective_points"][3] == 9
    s = game(5, pos=[20, 15, 10, 5, 5], line=25)
    s["objectives"] = ["color-blue", "last", "color-red", "finish-line", "color-green"]
    s["hands"] = [["dash"]] * 5
    s, _ = _end(s)
    assert s["end"]["objective_points"][3] == 4


def test_it_ranks_shared_positions_with_standard_competition_ranking():
    # squares [6, 7, 7]: blue and green share the first position, red is third (not second):
    # red holding its own colour card scores -2, not the +5 of a second place
    s = game(3, pos=[6, 7, 7], objectives=["color-red", "last", "color-blue"])
    s["hands"] = [["dash"], ["dash"], ["dash"]]
    s, _ = _end(s)
    assert s["end"]["race_ranks"] == [3, 1, 1]
    # red: own colour, not second: -2; blue: 'last' card, first: 0; green: blue is first: +4
    assert s["end"]["objective_points"] == [-2, 0, 4]


def test_it_adds_points_and_point_cards_to_the_pawn_and_ranks_by_the_final_square():
    s = game(2, pos=[25, 20], objectives=["last", "color-red"])
    s["points"] = [1, 3]
    s["hands"] = [["dash"], ["gift", "lucky-charm", "dash"]]
    s, evs = _end(s)
    # red: first, 'last' card: 0; blue: second (and last): red's colour card, red first: +4,
    # blue second: +2. blue: 20 + 3 + 6 + 2 point cards = 31; red: 25 + 1 = 26.
    assert s["end"]["final"] == [26, 31]
    res = R.result(s)
    assert res["winners"] == [1] and res["ranks"] == [2, 1] and res["scores"] == [26, 31]


def test_it_breaks_a_tie_by_cards_in_hand_then_by_a_secret_vote_of_the_others():
    # red and blue share the first square (20); green is last (5).
    # red: green's card, green not first, red not second: 0 -> 20.
    # blue: its own colour, not second: -2; two point cards: +2 -> 20.
    s = game(3, pos=[20, 20, 5], objectives=["color-green", "color-blue", "color-red"])
    s["hands"] = [["dash", "dash"], ["dash", "lucky-charm", "gift", "trip"], ["dash"]]
    s, _ = _end(s)
    assert s["end"]["final"][:2] == [20, 20]
    # Point cards do not count: two cards each, still tied.
    assert s["end"]["cards"][:2] == [2, 2]
    # The other player (green) votes in secret for the winner.
    assert s["vote"]["kind"] == "winner" and s["vote"]["voters"] == [2]
    assert R.result(s) is None
    assert R.to_act(s) == {2: {"kind": "window", "default": {"type": "vote", "marker": "none", "timeout": True},
                               "seconds": 60}}
    assert notations(s, 2) == ["vote red", "vote blue"]
    s2, evs = act(s, 2, {"type": "vote", "marker": 1})
    assert R.result(s2)["winners"] == [1] and R.result(s2)["ranks"] == [2, 1, 3]
    s3, evs = act(s, 2, R.NO_MARKER)  # the clock
    assert R.result(s3)["winners"] == [0, 1] and R.result(s3)["ranks"] == [1, 1, 3]


def test_it_lets_the_cards_in_hand_decide_a_tie():
    # red first on 30 with the 'last' card: 0 -> 30. blue second and last on 24 with red's
    # colour card: red first +4, blue second +2 -> 30. Red holds two cards, blue one.
    s = game(2, pos=[30, 24], objectives=["last", "color-red"])
    s["hands"] = [["dash", "dash"], ["dash"]]
    s, _ = _end(s)
    assert s["end"]["final"] == [30, 30] and s["vote"] is None
    assert R.result(s)["winners"] == [0] and R.result(s)["ranks"] == [1, 2]


def test_it_shares_the_win_when_two_players_stay_tied_with_nobody_to_vote():
    s = game(2, pos=[30, 24], objectives=["last", "color-red"])
    s["hands"] = [["dash"], ["dash"]]
    s, _ = _end(s)
    assert R.result(s)["winners"] == [0, 1] and R.result(s)["ranks"] == [1, 1]


# ---------------------------------------------------------------------------------- resignation


def test_it_gives_the_game_to_the_other_player_when_one_of_two_resigns():
    s = rolled(game(2), 3, 1)
    s, evs = act(s, 1, {"type": "resign"})
    res = R.result(s)
    assert res["winners"] == [0] and res["ranks"] == [1, 2]


def test_it_continues_without_a_resigning_player_and_ranks_them_last():
    s = at_cards(game(3, hands=[["sprint"], ["sprint"], ["sprint"]]))
    s, _ = act(s, 0, {"type": "play", "card": "sprint"})
    s, evs = act(s, 0, {"type": "resign"}, Script(dice=[3, 1]))
    assert s["active"] == 1 and s["stage"] == "choose" and s["react"] is None
    assert "sprint" in R.cards_of(s["discard"])
    with pytest.raises(IllegalAction):
        R.decide(s, 0, {"type": "end"}, Script())
    assert R.legal_actions(s, 0) == []


# ---------------------------------------------------------------------------------- data files


@pytest.mark.parametrize("loader,fname,mutate,needle", [
    ("load_board", "board.json", lambda d: d["squares"].pop(), "squares"),
    ("load_board", "board.json", lambda d: d["squares"][3].update(arrow=2), "arrow"),
    ("load_dice", "dice.json", lambda d: d["faces"].pop(), "12 faces"),
    ("load_objectives", "objectives.json", lambda d: d["objectives"].pop(), "kind"),
    ("load_cards", "cards.json", lambda d: d["cards"][0].update(copies=4), "deck_size"),
    ("load_cards", "cards.json", lambda d: d["cards"][1]["effects"].insert(1, {"do": "target"}), "first effect"),
    ("load_cards", "cards.json", lambda d: d["cards"][0]["effects"].append({"do": "fly"}), "unknown effect"),
])
def test_it_refuses_a_malformed_data_file_naming_it(tmp_path, loader, fname, mutate, needle):
    import json
    import os
    with open(os.path.join(R.DATA_DIR, fname)) as fh:
        data = json.load(fh)
    getattr(R, loader)(os.path.join(R.DATA_DIR, fname))  # the shipped file loads
    mutate(data)
    bad = tmp_path / fname
    bad.write_text(json.dumps(data))
    with pytest.raises(ValueError) as err:
        getattr(R, loader)(str(bad))
    assert fname in str(err.value) and needle in str(err.value)
    bad.write_text("{not json")
    with pytest.raises(ValueError, match=fname):
        getattr(R, loader)(str(bad))


# ---------------------------------------------------------------------------------- contract bits


def test_it_describes_every_event_for_every_seat():
    from games.registry import Kind
    from tests.games.harness import play
    events, state = play(Kind("kenta"), 4, {}, "describe-me", check_every=50)
    names = ["Ann", "Bo", "Cy", "Di"]
    for e in events:
        for seat in (None, 0, 1, 2, 3):
            red = R.redact(e, seat)
            if red is not None:
                line = R.describe(red, names)
                assert isinstance(line, str) and line
    assert R.timers(state) == []
    schema = R.OPTIONS_SCHEMA
    assert schema["additionalProperties"] is False
    assert all({"default", "title", "description"} <= set(p) for p in schema["properties"].values())


def test_it_applies_the_same_events_on_replay():
    s = rolled(game(3, pos=[5, 14, 0]), 2, 1)
    s1, evs = act(s, 0, {"type": "die", "color": "black"})
    assert apply(R, s, evs) == s1


def test_it_renders_the_board_for_every_seat_and_escapes_names():
    from games.registry import Kind
    from tests.games.harness import play
    kind = Kind("kenta")
    events, state = play(kind, 3, {}, "render-me", check_every=50)
    names = ["<b>Ann</b>", "Bo & co", "Cy"]
    mid = replay(R, events[: len(events) // 2])
    for s in (mid, state):
        for seat in (None, 0, 1, 2):
            html = kind.render(R.view(s, seat), seat, names)
            assert "<svg" in html and "viewBox" in html and "<b>Ann</b>" not in html
            assert "&lt;b&gt;Ann&lt;/b&gt;" in html or s is mid
    s = at_cards(game(3, hands=[["sprint", "stop"], ["dash"], ["dash"]], disc="white"))
    html = kind.render(R.view(s, 0), 0, names)
    assert 'data-notation="play sprint"' in html and 'data-notation="play stop"' not in html


def test_it_skips_the_discard_of_a_target_who_resigns_and_drops_a_resigning_voter():
    s = at_cards(game(3, hands=[["tax"], ["stop", "sprint"], ["dash"]], pos=[0, 5, 0]))
    s, _ = act(s, 0, {"type": "play", "card": "tax"})
    s, _ = everyone_passes(s)
    s, _ = act(s, 0, {"type": "target", "seat": 1})
    s, evs = act(s, 1, {"type": "resign"})
    assert s["playing"] is None and s["active"] == 0 and s["stage"] == "cards"
    assert len(s["hands"][0]) == 1  # the rest of the card resolved: the tax drew a card
    # A vote goes on without a voter who resigns.
    s = at_cards(rolled(game(3), 3, 1))
    s, _ = act(s, 0, {"type": "end"}, Script(dice=[2, 2]))
    s, _ = act(s, 0, {"type": "vote", "marker": "black"})
    s, _ = act(s, 2, {"type": "resign"})
    assert sorted(R.to_act(s)) == [1]
    s, _ = act(s, 1, {"type": "vote", "marker": "black"})
    assert s["line"] == 27 and s["vote"] is None


def test_it_keeps_events_and_state_plain_json():
    import json

    from games.engine import canonical
    from games.registry import Kind
    from tests.games.harness import play
    kind = Kind("kenta")
    for i in range(4):
        events, state = play(kind, 2 + i, {}, f"json-{i}", check_every=99)
        again = json.loads(json.dumps(events))
        assert again == events and json.loads(json.dumps(state)) == state
        assert canonical(replay(R, again)) == canonical(state)


def test_it_ends_the_game_at_once_when_one_of_two_resigns_during_a_vote():
    # Doubles: both players must vote on the finish line; the non-active player resigns.
    s = rolled(game(2), 2, 2)
    sim = R.Sim(s, Script())
    R.run(sim)
    s = apply(R, s, sim.events)
    assert s["vote"] is not None and sorted(R.to_act(s)) == [0, 1]
    s, evs = act(s, 1, {"type": "resign"})
    assert types(evs) == ["resign", "game_over"]
    assert R.result(s)["winners"] == [0] and R.to_act(s) == {}


# ----------------------------------------------------------------------------------- colours


def test_it_lets_players_choose_their_colour_with_the_seat_colour_as_default():
    from games.rng import Rng
    assert R.OPTIONS_SCHEMA["properties"]["colors"]["default"] == R.COLORS
    evs = R.setup(3, {"colors": ["purple", "red", "yellow", "green", "blue"]}, Rng("colours", 0))
    s = replay(R, evs)
    assert s["colors"] == ["purple", "red", "yellow"]
    view = R.view(s, 0)
    assert view["colors"] == ["purple", "red", "yellow"] and view["you"]["color"] == "purple"
    # the colour objective cards of the colours in play are dealt, the others discarded
    dealt = {R.OBJECTIVES[k].get("color") for k in s["objectives"]} - {None}
    assert dealt <= {"purple", "red", "yellow"}
    assert replay(R, R.setup(2, {}, Rng("colours", 0)))["colors"] == ["red", "blue"]


def test_it_refuses_two_players_with_the_same_colour():
    with pytest.raises(IllegalAction, match="colour of their own"):
        R.check_players(2, {"colors": ["red", "red", "green", "yellow", "purple"]})
    R.check_players(2, {"colors": ["red", "blue", "red", "red", "red"]})   # only the first two count
    with pytest.raises(IllegalAction, match="Colours"):
        R.check_players(2, {"colors": ["pink", "blue", "green", "yellow", "purple"]})


def test_it_scores_a_colour_objective_by_the_chosen_colours():
    # alice (seat 0) chose blue, bob (seat 1) red; alice holds the red card and bob is first: +4
    s = game(2, pos=[10, 20], objectives=["color-red", "last"])
    s["colors"] = ["blue", "red"]
    s["hands"] = [["dash"], ["dash"]]
    s, _ = _end(s)
    assert s["end"]["objective_points"][0] == 4 + 2


def test_it_replays_a_stream_recorded_before_colours_could_be_chosen():
    old = [event("setup", n=3, options=OPTS_OLD, disc="black", line=25, first=0, hands=[["dash"]] * 3,
                 objectives=["last", "color-green", "color-red"], pile=["dash"] * 30), event("turn", seat=0)]
    s = replay(R, old)
    assert R.view(s, 1)["colors"] == ["red", "blue", "green"] and R.view(s, 1)["you"]["color"] == "blue"


OPTS_OLD = {"vote_seconds": 60, "reaction_seconds": 60}


def test_it_lets_a_joining_player_pick_a_colour_no_seated_player_has():
    # alice created a 3-player game (seat 0, red); bob joins seat 1 and picks green
    opts = {"colors": list(R.COLORS)}
    assert R.join_choices(opts, 3, 1, seated=[0]) == ["blue", "green", "yellow", "purple"]
    opts = R.choose_at_join(opts, 3, 1, "green", seated=[0])
    assert opts["colors"][:3] == ["red", "green", "blue"]       # the open seat 2 takes blue instead
    # charlie joins seat 2: red and green are taken
    with pytest.raises(IllegalAction, match="already has red"):
        R.choose_at_join(opts, 3, 2, "red", seated=[0, 1])
    with pytest.raises(IllegalAction, match="among"):
        R.choose_at_join(opts, 3, 2, "pink", seated=[0, 1])
    opts = R.choose_at_join(opts, 3, 2, "purple", seated=[0, 1])
    R.check_players(3, opts)
    assert replay(R, R.setup(3, opts, Rng("join", 0)))["colors"] == ["red", "green", "purple"]


def test_it_deals_a_game_created_before_the_colour_option_exactly_as_before():
    # verify_game re-derives finished games from their stored options: no "colors" key there
    setup = R.setup(3, dict(OPTS_OLD), Rng("old-options", 0))[0]
    assert "colors" not in setup["data"]["options"] and setup["data"]["colors"] == ["red", "blue", "green"]



def test_a_voter_cannot_hide_no_marker_on_purpose():
    """The audit's scenario: a doubles vote opens, seat 0 votes black, seat 1 sends "none" before
    its time is up: refused, so two voters cannot move the line by 1 on purpose."""
    s = at_cards(rolled(game(3), 3, 1))
    s, _ = act(s, 0, {"type": "end"}, Script(dice=[2, 2]))
    s, _ = act(s, 0, {"type": "vote", "marker": "black"})
    with pytest.raises(IllegalAction):
        act(s, 1, {"type": "vote", "marker": "none"})
    s, evs = act(s, 1, R.NO_MARKER)  # the clock's, when bob's time runs out
    assert evs[0]["data"] == {"seat": 1, "marker": "none", "timeout": True}

