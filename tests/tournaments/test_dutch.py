"""The FIDE Dutch system (kinplay/tournaments/dutch.py) on small hand-checked cases from the
rules (C.04.3, 2025), and its guarantees over simulated tournaments. Pure: no database."""

import pytest

from kinplay.tournaments import dutch, stream
from tests.tournaments.dutch_sim import simulate

pytestmark = pytest.mark.engine  # pure: no database


def field(n, points=None):
    points = points or {}
    return [{"player": p, "points": points.get(p, 0), "seed": p - 1} for p in range(1, n + 1)]


def game(white, black, result):
    """A finished game: result 1 (white won), 0.5 or 0."""
    return {"players": [white, black], "bye": False, "points": [result, 1 - result]}


def test_it_pairs_the_first_round_top_half_against_bottom_half_with_alternating_colours():
    # 1.2/4: S1 = 1-4 against S2 = 5-8; 5.2.5: the higher player has white on an odd pairing number.
    pairs, bye = dutch.pair(field(8), [], total_rounds=5)
    assert pairs == [(1, 5), (6, 2), (3, 7), (8, 4)] and bye is None


def test_it_gives_the_bye_to_the_lowest_player_who_has_not_had_one():
    pairs, bye = dutch.pair(field(5), [], total_rounds=5)
    assert bye == 5 and pairs == [(1, 3), (4, 2)]
    # Round 2: 5 had the bye (and its point); 3 and 4 are on 0: the lower ranked takes it.
    history = [[game(1, 3, 1), game(4, 2, 0), {"players": [5], "bye": True, "points": [1]}]]
    pairs, bye = dutch.pair(field(5, {1: 1, 2: 1, 5: 1}), history, total_rounds=5)
    assert bye == 4 and all(5 in p or 3 not in p or 1 not in p for p in pairs)


def test_it_never_pairs_two_players_who_need_the_same_colour_absolutely():
    # All draws. After two rounds 1 and 2 had black twice, 3 and 6 white twice: an absolute
    # preference (white for 1 and 2, black for 3 and 6); 4 and 5 have a mild one. The only
    # pairing that grants every preference without a rematch: 1-6, 2-3, 4-5.
    history = [[game(3, 1, 0.5), game(4, 2, 0.5), game(6, 5, 0.5)],
               [game(5, 1, 0.5), game(6, 2, 0.5), game(3, 4, 0.5)]]
    pairs, bye = dutch.pair(field(6, {p: 1 for p in range(1, 7)}), history, total_rounds=5)
    assert pairs == [(1, 6), (2, 3), (4, 5)] and bye is None


def test_it_refuses_a_round_the_absolute_criteria_cannot_pair():
    history = [[game(1, 2, 1)]]
    with pytest.raises(dutch.NoPairing):
        dutch.pair(field(2, {1: 1}), history, total_rounds=3)


@pytest.mark.parametrize("seed", range(6))
def test_it_keeps_every_absolute_criterion_over_a_whole_swiss(seed):
    s = simulate(1000 + seed, n=12 + 5 * seed, rounds=7)
    met, byes = set(), set()
    colours = {p: [] for p in s["order"]}
    last = len(s["rounds"])
    for rnd in s["rounds"]:
        scores = {r["player"]: r["points"] for r in stream.standings({**s, "rounds": s["rounds"][:rnd["number"] - 1]})}
        for t in rnd["tables"]:
            if t["bye"]:
                assert t["players"][0] not in byes  # at most one bye
                byes.add(t["players"][0])
                continue
            pair = frozenset(t["players"])
            assert pair not in met  # no rematch
            met.add(pair)
            top = rnd["number"] == last and any(scores[p] > (rnd["number"] - 1) / 2 for p in t["players"])
            for p, c in zip(t["players"], "WB"):
                colours[p].append(c)
                if not top:
                    assert abs(colours[p].count("W") - colours[p].count("B")) <= 2
                    assert colours[p][-3:] not in (["W"] * 3, ["B"] * 3)


@pytest.mark.parametrize("seed", range(4))
def test_it_pairs_a_bracket_without_the_matching_only_as_the_matching_would(seed, monkeypatch):
    # Most brackets are paired by a bounded search instead of the matching (dutch._shortcut):
    # every round of a whole Swiss pairs the same with the search turned off.
    real, shortcut = dutch.pair, dutch._shortcut
    same, taken = [], []

    def counted(*args):
        got = shortcut(*args)
        taken.append(got is not None)
        return got

    def both(*args, **kwargs):
        monkeypatch.setattr(dutch, "_shortcut", counted)
        quick = real(*args, **kwargs)
        monkeypatch.setattr(dutch, "_shortcut", lambda *a: None)
        same.append(quick == real(*args, **kwargs))
        return quick

    monkeypatch.setattr(dutch, "pair", both)
    simulate(3000 + seed, n=16 + 6 * seed, rounds=7)
    assert any(taken) and same and all(same)


def test_it_counts_exchanges_from_an_s1_of_as_many_players_as_the_bracket_pairs():
    # Round 9 of a simulated Swiss (bbpPairings pairs it so): the 2-point bracket, pairing
    # numbers 7, 9, 12, 14, 15, 23, above 46 (1 point, had the bye), who has met all of them
    # but 23. So 23 floats down to 46 and one more takes the bye: the bracket makes 2 pairs
    # (MaxPairs), and S1 is 7 and 9, not its first half. 7 has met 14 and 15, so every pairing
    # as good as the best on colours and floats exchanges one player; 9 <-> 14 comes first (the
    # higher BSN moved from S1), then S1 = 7, 14 against S2 = 9, 12, 15, 23: 7-9, 14-15, 12 out.
    # With S1 the half (7, 9, 12), 9-14 and 12-15 looked like no exchange and 7 had the bye.
    s = simulate(917, n=56, rounds=9)
    pn = {p: i + 1 for i, p in enumerate(s["seeds"])}
    tables = [sorted(pn[p] for p in t["players"]) for t in s["rounds"][8]["tables"]]
    assert len(s["rounds"]) == 9 and tables[-4:] == [[7, 9], [14, 15], [23, 46], [12]]
