"""Scenario tests: each rule of the Project_Kin rulebook (and each gap we filled, RULES.md)."""

import json
import os

import pytest

from games.engine import IllegalAction, apply, canonical, replay
from games.project_kin import rules
from games.rng import Rng

from .helpers import FixedRng, P, act, board, new_game, notations, place, types

TKC = {"variant": "to_kingdom_come"}
DEMO = {"mode": "demolition"}


# ----------------------------------------------------------------- setup and the contract

def test_it_starts_with_a_piece_on_each_base_and_three_to_spawn():
    s = new_game()
    assert P(s)["r1"] == "RB" and P(s)["b1"] == "BB"
    assert sorted(p for p, loc in P(s).items() if loc == "spawn") == ["b2", "b3", "b4", "r2", "r3", "r4"]
    assert P(s)["rF"] == "final" and P(s)["bF"] == "final"  # the red final pieces wait in their pool
    assert rules.to_act(s) == {s["turn"]["seat"]: {"kind": "turn", "default": None, "seconds": None}}


def test_it_decides_the_first_player_by_a_logged_d4_roll_off():
    for seed in range(20):
        (e,) = rules.setup(2, {}, Rng(f"x{seed}", 0))
        a, b = e["data"]["rolloff"][-1]
        assert a != b and e["data"]["first"] == (0 if a > b else 1)
        assert all(x == y for x, y in e["data"]["rolloff"][:-1])


def test_it_refuses_other_player_counts_and_unknown_options():
    with pytest.raises(IllegalAction):
        rules.check_players(3, {})
    with pytest.raises(IllegalAction):
        rules.check_players(2, {"mode": "ctf"})
    with pytest.raises(IllegalAction):
        rules.check_players(2, {"colour": "green"})
    rules.check_players(2, {"fuse_seconds": 0})


def test_it_offers_a_form_ready_options_schema_without_ctf():
    props = rules.OPTIONS_SCHEMA["properties"]
    assert rules.OPTIONS_SCHEMA["additionalProperties"] is False
    for p in props.values():
        assert {"default", "title", "description"} <= set(p)
    assert props["mode"]["enum"] == ["standard", "demolition"]


def test_it_refuses_actions_out_of_turn_and_nonsense():
    s = board(pos={"r1": "RG", "b1": "BG"}, seat=0)
    with pytest.raises(IllegalAction):
        rules.decide(s, 1, {"type": "roll"}, FixedRng(2))
    with pytest.raises(IllegalAction):
        rules.decide(s, 0, {"type": "move", "piece": "r1", "to": "M1"}, FixedRng())
    with pytest.raises(IllegalAction):
        rules.decide(s, 0, {"type": "detonate", "pickup": 0}, FixedRng())


def test_it_never_mutates_the_state_given_to_decide():
    s = board(pos={"r1": "RG", "b1": "M1"}, seat=0, roll=1)
    before = canonical(s)
    rules.decide(s, 0, {"type": "move", "piece": "r1", "to": "M1"}, FixedRng())
    assert canonical(s) == before


# ----------------------------------------------------------------- turns

def test_it_rolls_a_d4_in_decide_and_logs_it():
    s = board(pos={"r1": "RG", "b1": "BG"})
    events, s2 = act(s, 0, "roll", 3)
    assert events[0] == {"type": "rolled", "data": {"seat": 0, "value": 3}}
    assert s2["turn"]["phase"] == "move" and s2["turn"]["roll"] == 3


def test_it_spawns_on_an_empty_base_and_that_piece_must_move():
    s = board(pos={"r1": "M2", "b1": "BG"})
    assert "spawn" in notations(s, 0)
    events, s2 = act(s, 0, "spawn", 2)
    assert types(events) == ["spawned", "rolled"]
    assert P(s2)["r2"] == "RB"
    assert all(a["action"]["piece"] == "r2" for a in rules.legal_actions(s2, 0))


def test_it_refuses_to_spawn_on_an_occupied_base():
    s = board(pos={"r1": "RB", "b1": "BG"})
    assert "spawn" not in notations(s, 0)


def test_it_passes_the_turn_when_a_roll_has_no_legal_move():
    # Red's only piece sits on the objective (a dead end); a non-carrier cannot move backwards with a 2
    s = board(pos={"r1": "OBJ", "r2": "RB", "b1": "BG"})
    place(s, r2="out")  # one out: no spawn needed, base empty but we just roll
    events, s2 = act(s, 0, "roll", 2)
    assert types(events)[:2] == ["rolled", "no_move"]
    assert s2["turn"]["seat"] == 1


# ----------------------------------------------------------------- movement

def test_it_lists_each_path_as_its_own_action_and_moves_forward_only():
    s = board(pos={"r1": "RG", "b1": "BG"}, roll=2)
    assert notations(s, 0) == ["move r1 L2", "move r1 M2", "move r1 R2"]


def test_it_lets_a_roll_of_one_move_back_one():
    s = board(pos={"r1": "M2", "b1": "BG"}, roll=1)
    assert notations(s, 0) == ["move r1 A1", "move r1 M1", "move r1 M3"]
    _, s2 = act(s, 0, "move r1 M1")
    assert P(s2)["r1"] == "M1"


def test_it_ends_the_move_on_a_dotted_line():
    s = board(pos={"r1": "L1", "b1": "BG"}, roll=4)
    # L1 -> L2 then the dotted line to A1 cancels the two remaining steps
    assert "move r1 A1" in notations(s, 0)
    s = board(pos={"r1": "A1", "b1": "BG"}, roll=3)
    assert notations(s, 0) == ["move r1 L2", "move r1 M2"]  # dotted lines go both ways


def test_it_never_lands_on_a_friendly_piece_but_passes_over_it():
    s = board(pos={"r1": "M1", "r2": "M2", "b1": "BG"}, roll=1)
    assert "move r1 M2" not in notations(s, 0)
    s["turn"]["roll"] = 2
    assert "move r1 M3" in notations(s, 0)


def test_it_eliminates_an_enemy_it_lands_on_back_to_its_spawn_pool():
    s = board(pos={"r1": "M1", "b1": "M3", "b2": "BG"}, roll=2)
    events, s2 = act(s, 0, "move r1 M3")
    assert "captured" in types(events)
    assert P(s2)["b1"] == "spawn" and P(s2)["r1"] == "M3"


def test_it_keeps_one_direction_per_roll_for_backward_movers():
    s = board({"variant": "to_kingdom_come"}, pos={"rK": "M3", "bK": "BG"}, roll=2)
    # The King may go two back or two forward, never one back and one forward (which would return to M3)
    n = notations(s, 0)
    assert "move rK M1" in n and "move rK M5" not in n and "move rK MR" not in n
    assert "move rK M4" in n


def test_it_loops_from_the_end_of_the_middle_track_to_the_home_base():
    s = board(pos={"r1": "M6", "r2": "M2", "b1": "BB"}, roll=3)
    assert "move r1 RB" in notations(s, 0)
    _, s2 = act(s, 0, "move r1 RB")
    assert P(s2)["r1"] == "RB"
    # Blue's end of the middle track is M1, looping to the Blue base
    s = board(pos={"b1": "M1", "b2": "M4", "r1": "RB"}, seat=1, roll=2)
    assert "move b1 BB" in notations(s, 1)


def test_it_lets_a_piece_moving_backwards_take_the_loop_like_a_dotted_line():
    # a bomb carrier moving backwards from the Blue guard reaches the end of the middle track and
    # may take the loop home there, as it could take a dotted line
    s = board(pos={"r1": "BG", "b1": "M1"}, roll=2)
    s["bomb"]["carrier"] = "r1"
    assert "move r1 RB" in notations(s, 0) and "move r1 M5" in notations(s, 0)
    # but the loop never runs from the base to the end of the track
    s = board(pos={"r1": "RB", "b1": "M1"}, roll=1)
    assert "move r1 M6" not in notations(s, 0)


def test_it_takes_a_piece_out_on_the_enemy_base_with_an_exact_roll():
    s = board(pos={"r1": "BG", "r2": "M2", "b1": "M4"}, roll=1)
    events, s2 = act(s, 0, "move r1 BB")
    assert "went_out" in types(events) and P(s2)["r1"] == "out"
    s = board(pos={"r1": "M6", "r2": "M2", "b1": "M4"}, roll=3)
    assert "move r1 BB" not in notations(s, 0)  # cannot overshoot into the base


# ----------------------------------------------------------------- special spaces

def test_it_blocks_enemies_from_passing_a_guarded_guard_space():
    s = board(pos={"r1": "M6", "b1": "BG", "b2": "M1"}, roll=2)
    assert "move r1 BB" not in notations(s, 0)
    s["turn"]["roll"] = 1
    events, s2 = act(s, 0, "move r1 BG")  # the exact roll takes the guard first
    assert P(s2)["b1"] == "spawn"


def test_it_lets_an_unguarded_guard_space_be_passed():
    s = board(pos={"r1": "M6", "b1": "M2"}, roll=2)
    assert "move r1 BB" in notations(s, 0)


def test_it_fires_a_sides_turret_at_an_enemy_ending_its_turn_on_the_target_nobody_manning_it():
    # the middle turret on Red's half belongs to Red and aims at Red's guard; Blue lands on it
    assert rules.BOARD["turret_seat"] == {"RT": 0, "TR": 0, "BT": 1, "TB": 1}
    s = board(pos={"r2": "M3", "b1": "M1"}, seat=1, roll=1)
    events, s2 = act(s, 1, "move b1 RG")
    fired = next(e for e in events if e["type"] == "turret_fired")
    assert fired["data"]["seat"] == 0 and fired["data"]["turret"] == "TR"
    assert P(s2)["b1"] == "spawn"


def test_it_never_fires_a_turret_at_its_own_side_even_with_an_enemy_standing_on_it():
    # before issue 13 Blue standing on Red's middle turret shot Red's own guard
    s = board(pos={"r1": "RB", "r2": "M3", "b1": "TR"}, roll=1)
    events, s2 = act(s, 0, "move r1 RG")
    assert "turret_fired" not in types(events) and P(s2)["r1"] == "RG"


def test_it_fires_only_at_the_end_of_the_enemys_turn():
    # a Blue piece already on the Red guard is not shot when Red's turn ends
    s = board(pos={"r2": "M3", "b1": "RG"}, roll=1)
    events, s2 = act(s, 0, "move r2 MR")
    assert "turret_fired" not in types(events) and P(s2)["b1"] == "RG"


def test_it_aims_the_base_turrets_at_the_space_before_the_objective():
    assert rules.BOARD["turrets"]["RT"] == ["OP"] and rules.BOARD["turrets"]["BT"] == ["OP"]
    # Red's base turret shoots Blue, Blue's shoots Red: nobody may stop just before the Objective
    s = board(pos={"r2": "M2", "b1": "R4"}, seat=1, roll=2)
    events, s2 = act(s, 1, "move b1 OP")
    assert [e["data"]["turret"] for e in events if e["type"] == "turret_fired"] == ["RT"]
    assert P(s2)["b1"] == "spawn"
    s = board(pos={"r1": "R3", "b2": "M5"}, roll=2)
    events, s2 = act(s, 0, "move r1 OP")
    assert [e["data"]["turret"] for e in events if e["type"] == "turret_fired"] == ["BT"]
    # going through to the Objective in one move is safe
    s = board(pos={"r1": "R3", "b2": "M5"}, roll=3)
    events, s2 = act(s, 0, "move r1 OBJ")
    assert "turret_fired" not in types(events) and P(s2)["r1"] == "OBJ"


def test_it_gives_another_turn_on_a_retake_space():
    s = board(pos={"r1": "M3", "b1": "BG"}, roll=1)
    events, s2 = act(s, 0, "move r1 MR")
    assert "retake" in types(events)
    assert s2["turn"]["seat"] == 0 and s2["turn"]["phase"] == "start"
    assert "spawn" in notations(s2, 0)  # you can spawn on the new turn


# ----------------------------------------------------------------- the bomb

def test_it_picks_up_the_bomb_on_the_bomb_space():
    s = board(pos={"r1": "L3", "b1": "BG"}, roll=1)
    events, s2 = act(s, 0, "move r1 BOMB")
    assert "bomb_picked" in types(events)
    assert s2["bomb"]["carrier"] == "r1" and s2["bomb"]["countdown"] is None  # standard: no countdown
    assert rules.view(s2, 1)["bomb"]["carrier"] == "r1"


def test_it_lets_a_bomb_carrier_move_backwards():
    s = board(pos={"r1": "BOMB", "b1": "BG"}, roll=2, bomb={"carrier": "r1", "pickup": 1, "fuse": False, "countdown": None})
    assert "move r1 L2" in notations(s, 0) and "move r1 L5" in notations(s, 0)


def test_it_passes_the_bomb_all_the_way_along_a_chain():
    s = board(pos={"r1": "M1", "r2": "M2", "r3": "M3", "r4": "L1", "b1": "BG"},
              bomb={"carrier": "r1", "pickup": 1, "fuse": False, "countdown": None})
    n = notations(s, 0)
    assert {"pass r2", "pass r3"} <= set(n)
    events, s2 = act(s, 0, "pass r3")
    assert s2["bomb"]["carrier"] == "r3" and s2["turn"]["seat"] == 1


def test_it_delivers_the_bomb_from_the_objective_to_win():
    s = board(pos={"r1": "OBJ", "b1": "BG"}, bomb={"carrier": "r1", "pickup": 1, "fuse": False, "countdown": None})
    events, s2 = act(s, 0, "deliver")
    assert rules.result(s2)["winners"] == [0]


def _carrier_state(**kw):
    return board(pos={"r1": "M2", "r2": "RG", "b1": "M3", "b2": "M4", "b3": "BG"}, seat=0, roll=1,
                 bomb={"carrier": "b1", "pickup": 1, "fuse": False, "countdown": None}, **kw)


def test_it_lets_the_taker_of_a_carrier_steal_or_reset_the_bomb():
    s = _carrier_state()
    assert {"move r1 M3 steal", "move r1 M3 reset"} <= set(notations(s, 0))
    _, reset = act(s, 0, "move r1 M3 reset")
    assert reset["bomb"]["carrier"] is None
    events, stolen = act(s, 0, "move r1 M3 steal")
    assert stolen["bomb"]["carrier"] == "r1" and stolen["bomb"]["countdown"]["from"] == 0
    # the stealing turn already counts: 8 spaces on the tracker, one used
    assert rules.turns_left(stolen) == rules.BOARD["tracker"] - 1
    assert rules.view(stolen, 1)["bomb"]["turns_left"] == rules.turns_left(stolen)


def test_it_counts_down_every_turn_of_either_player_and_detonates():
    s = _carrier_state()
    _, s = act(s, 0, "move r1 M3 steal")
    seen = []
    while not any(e["type"] == "detonated" for e in seen):
        seat = s["turn"]["seat"]
        left = rules.turns_left(s)
        events, s = act(s, seat, "roll", 1)
        if s["turn"]["phase"] == "move":
            first = rules.legal_actions(s, seat)[0]["notation"]
            more, s = act(s, seat, first)
            events += more
        seen = events
        if not any(e["type"] == "detonated" for e in events):
            assert rules.turns_left(s) == left - 1
        if rules.result(s):
            break
    det = next(e for e in seen if e["type"] == "detonated")
    assert det["data"]["cause"] == "countdown"
    assert s["bomb"]["carrier"] is None


def test_it_detonates_the_carrier_and_all_adjacent_pieces():
    s = board(pos={"r1": "M3", "r2": "M2", "r3": "L1", "b1": "MR", "b2": "BG", "b3": "A1"}, seat=1,
              bomb={"carrier": "r1", "pickup": 2, "fuse": False, "countdown": {"from": 1, "pos": 7}})
    _, s2 = act(s, 1, "roll", 1)
    events, s2 = act(s2, 1, "move b2 M6")
    det = next(e for e in events if e["type"] == "detonated")
    assert det["data"]["cause"] == "countdown"
    assert set(det["data"]["killed"]) == {"r1", "r2", "b1"}  # the carrier and its neighbours, friend or foe
    assert P(s2)["r3"] == "L1" and P(s2)["b3"] == "A1"


def test_it_starts_the_countdown_at_every_pick_up_in_demolition():
    s = board(DEMO, pos={"r1": "L3", "b1": "BG"}, roll=1)
    _, s2 = act(s, 0, "move r1 BOMB")
    assert s2["bomb"]["countdown"]["from"] == 0
    assert rules.view(s2, None)["bomb"]["turns_left"] == rules.BOARD["tracker"] - 1


def test_it_resets_the_bomb_when_its_carrier_goes_out():
    s = board(pos={"r1": "BG", "r2": "M1", "b1": "M4"}, roll=1,
              bomb={"carrier": "r1", "pickup": 1, "fuse": False, "countdown": None})
    events, s2 = act(s, 0, "move r1 BB")
    assert s2["bomb"]["carrier"] is None and "bomb_reset" in types(events)


# ----------------------------------------------------------------- the wall-clock fuse

def test_it_sets_a_wall_clock_fuse_at_pick_up_and_detonates_on_the_timer():
    s = board({"fuse_seconds": 90}, pos={"r1": "L3", "r2": "L2", "b1": "BG", "b2": "L4"}, roll=1)
    assert rules.timers(s) == []
    _, s2 = act(s, 0, "move r1 BOMB")
    (t,) = rules.timers(s2)
    assert t == {"key": "fuse:1", "seconds": 90, "action": {"type": "detonate", "pickup": 1}}
    events = rules.decide(s2, None, t["action"], FixedRng())
    s3 = apply(rules, s2, events)
    det = events[0]
    assert det["type"] == "detonated" and det["data"]["cause"] == "fuse"
    assert set(det["data"]["killed"]) == {"r1", "b2"}
    assert rules.timers(s3) == []


def test_it_refuses_a_stale_fuse_and_changes_nothing():
    s = board({"fuse_seconds": 90}, pos={"r1": "L3", "b1": "BG"}, roll=1)
    _, s2 = act(s, 0, "move r1 BOMB")
    stale = {"type": "detonate", "pickup": 0}
    with pytest.raises(IllegalAction):
        rules.decide(s2, None, stale, FixedRng())
    # after a reset the old key is stale too
    s2["bomb"] = {"carrier": None, "pickup": 1, "fuse": False, "countdown": None}
    with pytest.raises(IllegalAction):
        rules.decide(s2, None, {"type": "detonate", "pickup": 1}, FixedRng())


def test_it_ignores_the_fuse_when_the_option_is_off():
    s = board({}, pos={"r1": "L3", "b1": "BG"}, roll=1)
    _, s2 = act(s, 0, "move r1 BOMB")
    assert rules.timers(s2) == []
    with pytest.raises(IllegalAction):
        rules.decide(s2, None, {"type": "detonate", "pickup": 1}, FixedRng())


def test_it_ends_a_pending_move_whose_piece_the_fuse_destroyed():
    s = board({"fuse_seconds": 60}, pos={"r1": "BOMB", "r2": "RB", "b1": "BG"}, roll=None,
              bomb={"carrier": "r1", "pickup": 3, "fuse": True, "countdown": None})
    place(s, r2="spawn")
    _, s = act(s, 0, "spawn", 1)  # r2 spawned and must move, with a 1
    place(s, r2="L4")  # (place the spawned piece next to the carrier)
    events = rules.decide(s, None, {"type": "detonate", "pickup": 3}, FixedRng())
    assert "r2" in events[0]["data"]["killed"]
    after = apply(rules, s, events)
    assert after["turn"]["seat"] == 1 or rules.result(after)


# ----------------------------------------------------------------- winning

def test_it_wins_by_eliminating_every_enemy_piece_on_the_board():
    s = board(pos={"r1": "M1", "b1": "M2"}, roll=1)
    events, s2 = act(s, 0, "move r1 M2")
    assert rules.result(s2)["winners"] == [0]


def test_it_protects_a_player_with_one_piece_out_from_elimination():
    s = board(pos={"r1": "M1", "b1": "M2", "b2": "out"}, roll=1)
    _, s2 = act(s, 0, "move r1 M2")
    assert rules.result(s2) is None


def test_it_wins_when_all_four_pawns_reach_the_enemy_base():
    s = board(pos={"r1": "BG", "r2": "out", "r3": "out", "rF": "out", "r4": "final", "b1": "M2"}, roll=1)
    _, s2 = act(s, 0, "move r1 BB")
    assert rules.result(s2)["winners"] == [0]


def test_it_brings_in_the_red_final_piece_at_three_out_and_lets_it_move_backwards():
    s = board(pos={"r1": "BG", "r2": "out", "r3": "out", "r4": "M3", "b1": "M5"}, roll=1)
    events, s2 = act(s, 0, "move r1 BB")
    assert "final_piece" in types(events)
    assert P(s2)["rF"] == "M3" and P(s2)["r4"] == "final"
    s2["turn"] = {"seat": 0, "number": 9, "phase": "move", "roll": 2, "piece": None, "extra": False}
    assert "move rF M1" in notations(s2, 0)


def test_it_limits_the_enemy_to_three_active_pieces_at_two_out():
    s = board(pos={"r1": "M1", "r2": "M2", "r3": "M3", "b1": "out", "b2": "out", "b3": "M5"})
    assert "spawn" not in notations(s, 0)
    place(s, r3="spawn")
    assert "spawn" in notations(s, 0)


def test_it_gives_the_game_to_the_other_player_on_resign():
    s = new_game()
    events = rules.decide(s, 1, {"type": "resign"}, FixedRng())
    assert rules.result(apply(rules, s, events))["winners"] == [0]


def test_it_ends_in_a_draw_at_the_turn_limit():
    s = board({"turn_limit": 20}, pos={"r1": "M1", "b1": "BG"}, roll=1)
    s["turn"]["number"] = 20
    _, s2 = act(s, 0, "move r1 M2")
    r = rules.result(s2)
    assert r["winners"] == [] and r["ranks"] == [1, 1]


# ----------------------------------------------------------------- To Kingdom Come

def test_it_starts_with_the_king_and_the_extra_pools_in_to_kingdom_come():
    s = new_game(**TKC)
    assert P(s)["rK"] == "RB" and P(s)["r1"] == "extra"
    assert s["points"] == [3, 3]
    extra = sorted(rules.ptype(p) for p, loc in P(s).items() if loc == "extra" and p[0] == "r")
    assert extra.count("wall") == 2 and extra.count("sage") == 2 and extra.count("bulldozer") == 2


def test_it_loses_the_game_with_the_king():
    s = board(TKC, pos={"rK": "M2", "r2": "M5", "bK": "BG", "b2": "M1"}, seat=1, roll=1)
    _, s2 = act(s, 1, "move b2 M2")
    assert rules.result(s2)["winners"] == [1]


def test_it_makes_a_wall_move_one_and_unjumpable():
    s = board(TKC, pos={"rK": "RB", "rw1": "M1", "bK": "BG", "bw1": "M3"}, roll=4)
    assert "move rw1 M2" in notations(s, 0) and "move rw1 M3" not in notations(s, 0)
    s = board(TKC, pos={"rK": "M1", "bK": "BG", "bw1": "M3"}, roll=3)
    assert "move rK M4" not in notations(s, 0)
    s["turn"]["roll"] = 2
    assert "move rK M3" in notations(s, 0)  # but it can be taken with an exact roll


def test_it_lets_a_wall_stay_put_since_it_moves_up_to_one_space():
    s = board(TKC, pos={"rK": "out", "rw1": "M1", "bK": "BG"}, roll=3)
    n = notations(s, 0)
    assert n == ["move rw1 M2", "stay rw1"]
    events, s2 = act(s, 0, "stay rw1")
    assert P(s2)["rw1"] == "M1" and s2["turn"]["seat"] == 1
    assert "leaves the Wall rw1" in rules.describe(events[0], ["alice", "bob"])


def test_it_makes_a_wall_just_spawned_move():
    s = board(TKC, pos={"rK": "M3", "rw1": "RB", "bK": "BG"}, roll=2, piece="rw1")
    assert "stay rw1" not in notations(s, 0) and "move rw1 RG" in notations(s, 0)


def test_it_keeps_the_king_as_the_last_pawn_when_three_normals_are_out():
    # To Kingdom Come: the King stays on the board as the last pawn; the red final piece stays in its
    # pool (the King already moves backwards and must keep its own rules)
    s = board(TKC, pos={"rK": "M3", "r2": "BG", "r3": "out", "r4": "out", "bK": "M5"}, roll=1)
    events, s2 = act(s, 0, "move r2 BB")
    assert "final_piece" not in types(events)
    assert P(s2)["rK"] == "M3" and P(s2)["rF"] == "final"
    s2["turn"] = {"seat": 0, "number": 9, "phase": "move", "roll": 2, "piece": None, "extra": False}
    assert "move rK M1" in notations(s2, 0)


def test_it_lets_a_sage_eat_friends_for_ability_points():
    s = board(TKC, pos={"rK": "RB", "rs1": "M1", "r2": "M2", "bK": "BG"}, roll=1)
    events, s2 = act(s, 0, "move rs1 M2 eat")
    assert s2["points"][0] == 4 and P(s2)["r2"] == "spawn"
    s = board(TKC, pos={"rK": "RB", "rs1": "M1", "rw1": "M2", "bK": "BG"}, roll=1)
    _, s2 = act(s, 0, "move rs1 M2 eat")
    assert s2["points"][0] == 5
    s = board(TKC, pos={"rK": "M2", "rs1": "M1", "r2": "L1", "bK": "BG"}, roll=1)
    _, s2 = act(s, 0, "move rs1 M2 eat")
    assert rules.result(s2)["winners"] == [1]  # it can eat the King, so be careful


def test_it_moves_a_bulldozer_every_turn_and_pushes_enemies():
    s = board(TKC, pos={"rK": "RB", "rd1": "M2", "b2": "M3", "bK": "BG"}, roll=None)
    assert not any(a["action"].get("piece") == "rd1" for a in rules.legal_actions(
        dict(s, turn=dict(s["turn"], phase="move", roll=1)), 0))
    events, s2 = act(s, 0, "roll", 1)  # the King may move; then the bulldozer moves one
    if s2["turn"]["phase"] == "move":
        events, s2 = act(s2, 0, rules.legal_actions(s2, 0)[0]["notation"])
    assert P(s2)["rd1"] == "M3" and P(s2)["b2"] == "MR"
    assert "pushed" in types(events)


def test_it_eliminates_an_enemy_a_bulldozer_cannot_push():
    s = board(TKC, pos={"rK": "RB", "rd1": "M2", "b2": "M3", "b3": "MR", "bK": "BG"})
    events, s2 = act(s, 0, "roll", 1)
    if s2["turn"]["phase"] == "move":
        events, s2 = act(s2, 0, rules.legal_actions(s2, 0)[0]["notation"])
    assert P(s2)["b2"] == "spawn" and P(s2)["rd1"] == "M3"


def test_it_spends_an_ability_point_on_spawn_special():
    s = board(TKC, pos={"rK": "M1", "r2": "M2", "bK": "BG"})
    n = notations(s, 0)
    assert "special r2 M3 wall" in n
    events, s2 = act(s, 0, "special r2 M3 wall")
    assert P(s2)["rK"] == "M3" and P(s2)["rw1"] == "M2" and P(s2)["r2"] == "extra"
    assert s2["points"][0] == 2


def test_it_splits_a_piece_that_lands_on_the_king():
    s = board(TKC, pos={"rK": "M2", "r2": "RG", "bK": "BG"}, roll=2)
    n = [x for x in notations(s, 0) if "split" in x]
    assert "move r2 M2 split M3 M1" in n
    events, s2 = act(s, 0, "move r2 M2 split M3 M1")
    assert P(s2)["r2"] == "M3" and P(s2)["rK"] == "M2"
    new = [p for p, loc in P(s2).items() if loc == "M1"]
    assert new and rules.ptype(new[0]) == "normal"
    assert s2["points"][0] == 2


def test_it_lets_the_king_defuse_an_adjacent_carrier_in_demolition_only():
    pos = {"rK": "M1", "r2": "M2", "bK": "BG"}
    bomb = {"carrier": "r2", "pickup": 1, "fuse": False, "countdown": {"from": 0, "pos": 3}}
    s = board(dict(TKC, mode="demolition"), pos=pos, bomb=dict(bomb))
    events, s2 = act(s, 0, "defuse r2")
    assert s2["bomb"]["countdown"] is None and s2["bomb"]["carrier"] == "r2" and s2["points"][0] == 2
    s = board(TKC, pos=pos, bomb=dict(bomb))
    assert "defuse r2" not in notations(s, 0)


def test_it_lets_the_king_move_backwards():
    s = board(TKC, pos={"rK": "M3", "bK": "BG"}, roll=2)
    assert "move rK M1" in notations(s, 0)


# ----------------------------------------------------------------- data files

def test_it_fails_loudly_on_a_malformed_board(tmp_path):
    raw = json.load(open(os.path.join(rules.HERE, "data", "board.json")))
    bad = dict(raw, nodes=[n for n in raw["nodes"] if n["id"] != "BOMB"])
    p = tmp_path / "board.json"
    p.write_text(json.dumps(bad))
    with pytest.raises(ValueError, match="board.json"):
        rules.load_board(str(p))
    bad = dict(raw, nodes=[dict(n, targets=["NOWHERE"]) if n["kind"] == "turret" else n for n in raw["nodes"]])
    p.write_text(json.dumps(bad))
    with pytest.raises(ValueError, match="turret"):
        rules.load_board(str(p))
    bad = dict(raw, edges=raw["edges"] + [{"a": "A1", "b": "M3", "style": "solid", "forward": ["ab", "ba"]}])
    p.write_text(json.dumps(bad))
    with pytest.raises(ValueError, match="ambush"):
        rules.load_board(str(p))
    p.write_text("{not json")
    with pytest.raises(ValueError, match="board.json"):
        rules.load_board(str(p))


def test_it_fails_loudly_on_malformed_piece_counts(tmp_path):
    p = tmp_path / "pieces.json"
    p.write_text(json.dumps({"pawns": 4, "extra_normals": 3, "king_points": 3, "specials": {"wall": 2},
                             "sage_points": {"normal": 1, "final": 1, "special": 2}}))
    with pytest.raises(ValueError, match="pieces.json"):
        rules.load_pieces(str(p))


def test_it_loads_the_shipped_board_with_every_kind_of_space():
    kinds = {n["kind"] for n in rules.BOARD["nodes"].values()}
    assert kinds == rules.NODE_KINDS


# ----------------------------------------------------------------- log lines

def test_it_describes_every_event_of_a_game_in_one_line():
    from games.registry import Kind
    from tests.games.harness import play
    events, _ = play(Kind("project_kin"), 2, {"variant": "to_kingdom_come", "mode": "demolition"}, "describe")
    for e in events:
        line = rules.describe(rules.redact(e, 0), ["Ann", "Bob"])
        assert line and "\n" not in line


# ----------------------------------------------------------------- more corners

def test_it_takes_a_bulldozer_out_when_it_reaches_the_enemy_base():
    s = board(TKC, pos={"rK": "RB", "rd1": "BG", "bK": "M3"})
    events, s2 = act(s, 0, "roll", 2)
    if s2["turn"]["phase"] == "move":
        events, s2 = act(s2, 0, rules.legal_actions(s2, 0)[0]["notation"])
    assert P(s2)["rd1"] == "out"


def test_it_spawns_a_bulldozer_without_a_roll():
    s = board(TKC, pos={"rK": "M2", "bK": "BG", "rd1": "spawn"})
    events, s2 = act(s, 0, "spawn bulldozer")
    assert "rolled" not in types(events)
    assert P(s2)["rd1"] == "RG" and s2["turn"]["seat"] == 1  # spawned, then moved one at the end of the turn


def test_it_refuses_a_split_when_the_enemy_has_two_out_and_we_have_three_active():
    pos = {"rK": "M2", "r2": "RG", "r3": "L3", "bK": "BG", "b2": "out", "b3": "out"}
    s = board(TKC, pos=pos, roll=2)
    assert not [n for n in notations(s, 0) if "split" in n]
    pos["r3"] = "spawn"
    s = board(TKC, pos=pos, roll=2)
    assert [n for n in notations(s, 0) if "split" in n]


def test_it_refuses_a_split_without_ability_points():
    s = board(TKC, pos={"rK": "M2", "r2": "RG", "bK": "BG"}, roll=2)
    s["points"] = [0, 3]
    assert not [n for n in notations(s, 0) if "split" in n]
    assert "move r2 M2" not in notations(s, 0)  # and it may not land on its King otherwise


def test_it_keeps_the_bomb_on_a_pushed_carrier():
    s = board(TKC, pos={"rK": "RB", "rd1": "M2", "b2": "M3", "bK": "BG"},
              bomb={"carrier": "b2", "pickup": 1, "fuse": False, "countdown": None})
    events, s2 = act(s, 0, "roll", 1)
    if s2["turn"]["phase"] == "move":
        events, s2 = act(s2, 0, "move rK RG")
    assert P(s2)["b2"] == "MR" and s2["bomb"]["carrier"] == "b2"


def test_it_blocks_every_path_through_a_guarded_guard_space():
    # a Red carrier on L6 may not pass Blue's guarded BG: not on to BB, not across to M6 or R6
    s = board(pos={"r1": "L6", "b1": "BG", "b2": "M1"}, roll=2,
              bomb={"carrier": "r1", "pickup": 1, "fuse": False, "countdown": None})
    n = notations(s, 0)
    assert "move r1 R6" not in n and "move r1 M6" not in n and "move r1 BB" not in n
    assert "move r1 L4" in n


def test_it_lets_a_carrier_pass_an_unguarded_guard_and_come_back_down_another_lane():
    s = board(pos={"r1": "L6", "b1": "M1"}, roll=1,
              bomb={"carrier": "r1", "pickup": 1, "fuse": False, "countdown": None})
    assert "move r1 BG" in notations(s, 0)
    s = board(pos={"r1": "BG", "b1": "M1"}, roll=2,
              bomb={"carrier": "r1", "pickup": 1, "fuse": False, "countdown": None})
    assert "move r1 R5" in notations(s, 0)  # backwards from the Blue guard down the right lane


def test_it_refuses_resign_after_the_game_is_over():
    s = new_game()
    s = apply(rules, s, rules.decide(s, 0, {"type": "resign"}, FixedRng()))
    with pytest.raises(IllegalAction):
        rules.decide(s, 1, {"type": "resign"}, FixedRng())
    assert rules.to_act(s) == {} and rules.timers(s) == [] and rules.legal_actions(s, 1) == []


def test_it_keeps_the_countdown_and_fuse_when_a_sage_eats_the_friendly_carrier():
    opts = {"variant": "to_kingdom_come", "mode": "demolition", "fuse_seconds": 60}
    s = board(opts, pos={"rK": "RB", "rs1": "M1", "r2": "M2", "bK": "BG"}, roll=1,
              bomb={"carrier": "r2", "pickup": 1, "fuse": True, "countdown": {"from": 0, "pos": 3}})
    events, s2 = act(s, 0, "move rs1 M2 eat")
    assert s2["bomb"]["carrier"] == "rs1"
    # eating the carrier is no free defuse: the tracker moves on and the same fuse keeps burning
    assert rules.turns_left(s2) == rules.turns_left(s) - 1
    assert rules.timers(s2) == rules.timers(s)
    assert canonical(replay(rules, events, rules._clone(s))) == canonical(s2)


def test_it_does_not_hand_a_reset_bomb_to_the_piece_that_took_its_carrier_on_the_bomb_space():
    s = board(pos={"r1": "L2", "b1": "BOMB", "b2": "BG"}, roll=2,
              bomb={"carrier": "b1", "pickup": 1, "fuse": False, "countdown": None})
    events, s2 = act(s, 0, "move r1 BOMB reset")
    # letting it reset means not taking it: the bomb lies on its space, nobody carries it
    assert "bomb_picked" not in types(events)
    assert s2["bomb"]["carrier"] is None and rules.turns_left(s2) is None
    # taking it is the steal, and a stolen bomb always counts down
    _, s3 = act(s, 0, "move r1 BOMB steal")
    assert s3["bomb"]["carrier"] == "r1" and rules.turns_left(s3) == rules.BOARD["tracker"] - 1


def test_it_resets_without_handing_over_the_bomb_when_a_split_takes_its_carrier_on_the_bomb_space():
    s = board(TKC, pos={"rK": "L3", "r2": "L2", "bK": "BG", "b2": "BOMB"}, roll=1,
              bomb={"carrier": "b2", "pickup": 1, "fuse": False, "countdown": None})
    events, s2 = act(s, 0, "move r2 L3 split BOMB L2")
    assert P(s2)["r2"] == "BOMB" and P(s2)["b2"] == "spawn"
    assert "bomb_picked" not in types(events) and s2["bomb"]["carrier"] is None


def test_it_never_shoots_a_turrets_own_side_over_many_games():
    from games.registry import Kind
    from tests.games.harness import play
    shots = set()
    for i in range(40):
        opts = {"variant": "to_kingdom_come"} if i % 2 else {}
        events, _ = play(Kind("project_kin"), 2, opts, f"turrets-{i}", check_every=10**9)
        for e in events:
            if e["type"] == "turret_fired":
                d = e["data"]
                assert d["seat"] == rules.BOARD["turret_seat"][d["turret"]]
                assert rules.pseat(d["piece"]) != d["seat"]
                shots.add(d["turret"])
    assert shots == {"RT", "BT", "TR", "TB"}   # every turret fires, the base ones too
