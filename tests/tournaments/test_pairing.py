"""Pairing properties over random fields and histories (pure: no database)."""

import itertools
from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from games.rng import Rng
from kinplay.tournaments import pairing
from kinplay.tournaments.pairing import met


def entrants(n, points=None):
    return [{"player": i, "points": (points or {}).get(i, 0), "seed": i} for i in range(n)]


def seated(tables):
    return Counter(p for t in tables for p in t["players"])


def random_history(draw, n, rounds):
    """Past rounds of duels: each a random perfect pairing (and a bye for an odd field)."""
    hist = []
    for r in range(rounds):
        order = draw(st.permutations(list(range(n))))
        rnd = [{"players": [order[i], order[i + 1]], "bye": False} for i in range(0, n - 1, 2)]
        if n % 2:
            rnd.append({"players": [order[-1]], "bye": True})
        hist.append(rnd)
    return hist


def brute_force_min_rematches(players, seen):
    """The fewest rematches any pairing of ``players`` (even count) can have."""
    if not players:
        return 0
    a, rest = players[0], players[1:]
    return min(seen[frozenset((a, b))] + brute_force_min_rematches([p for p in rest if p != b], seen) for b in rest)


@settings(max_examples=60, deadline=None)
@given(st.data(), st.integers(min_value=2, max_value=9), st.integers(min_value=0, max_value=4))
def test_it_seats_every_player_once_and_avoids_rematches_whenever_possible(data, n, rounds):
    hist = random_history(data.draw, n, rounds)
    scores = {i: data.draw(st.integers(0, 2 * rounds)) / 2 for i in range(n)}
    field = sorted(entrants(n, scores), key=lambda e: -e["points"])
    tables = pairing.pair(field, hist, Rng("t", rounds), {"format": "swiss", "round": rounds + 1, "sizes": [2]})
    assert seated(tables) == Counter(range(n))
    assert all(len(t["players"]) == (1 if t["bye"] else 2) for t in tables)
    assert sum(t["bye"] for t in tables) == n % 2
    seen = met(hist)
    got = sum(seen[frozenset(t["players"])] for t in tables if not t["bye"])
    if n % 2 == 0:
        assert got == brute_force_min_rematches(list(range(n)), seen)
    else:  # any choice of the bye, then the best pairing of the rest
        byes = Counter(p for r in hist for t in r if t["bye"] for p in t["players"])
        fewest = min(byes[p] for p in range(n))
        bye = next(t["players"][0] for t in tables if t["bye"])
        assert byes[bye] == fewest, "a player got a second bye while another had fewer"
        best = min(brute_force_min_rematches([p for p in range(n) if p != b], seen)
                   for b in range(n) if byes[b] == fewest)
        assert got == best


def test_it_pairs_the_top_half_against_the_bottom_half_in_the_first_round():
    tables = pairing.pair(entrants(8), [], Rng("t"), {"format": "swiss", "round": 1, "sizes": [2]})
    assert sorted(sorted(t["players"]) for t in tables) == [[0, 4], [1, 5], [2, 6], [3, 7]]


def test_it_pairs_within_score_groups():
    points = {0: 2, 1: 2, 2: 1, 3: 1, 4: 1, 5: 1, 6: 0, 7: 0}
    field = entrants(8, points)
    tables = pairing.pair(field, [], Rng("t"), {"format": "swiss", "round": 3, "sizes": [2]})
    assert all(points[t["players"][0]] == points[t["players"][1]] for t in tables)


@settings(max_examples=25, deadline=None)
@given(st.integers(min_value=3, max_value=12), st.integers(min_value=1, max_value=6))
def test_it_never_gives_a_second_bye_while_someone_has_none(n, rounds):
    hist = []
    for r in range(rounds):
        field = entrants(n)
        hist.append(pairing.pair(field, hist, Rng("b", r), {"format": "swiss", "round": r + 1, "sizes": [2]}))
    byes = Counter(p for r in hist for t in r if t["bye"] for p in t["players"])
    if n % 2:
        assert max(byes.values()) - min(byes.get(p, 0) for p in range(n)) <= 1


def test_it_balances_first_seats_over_a_swiss():
    n, hist = 10, []
    for r in range(7):
        hist.append(pairing.pair(entrants(n), hist, Rng("s", r), {"format": "swiss", "round": r + 1, "sizes": [2]}))
    firsts, played = pairing.first_seats(hist), pairing.games_played(hist)
    assert all(abs(2 * firsts[p] - played[p]) <= 1 for p in range(n))


def splits(m, sizes):
    """Every multiset of table sizes seating exactly m (brute force)."""
    for t in range(1, m // min(sizes) + 1):
        for combo in itertools.combinations_with_replacement(sizes, t):
            if sum(combo) == m:
                yield combo


def fewest_byes(n, sizes):
    return next(b for b in range(n + 1) if n - b == 0 or any(True for _ in splits(n - b, sizes)))


def best_spread(m, sizes):
    return min(max(c) - min(c) for c in splits(m, sizes))


@settings(max_examples=40, deadline=None)
@given(st.integers(min_value=2, max_value=30), st.sampled_from([[3, 4], [2, 3, 4], [4, 5, 6, 7, 8], [2, 4, 5, 6]]),
       st.integers(min_value=0, max_value=3))
def test_it_seats_multiplayer_tables_within_the_sizes_leaders_together(n, sizes, rounds):
    hist = []
    points = {}
    for r in range(rounds + 1):
        field = sorted(entrants(n, points), key=lambda e: (-e["points"], e["seed"]))
        tables = pairing.pair(field, hist, Rng("m", r), {"format": "swiss", "round": r + 1, "sizes": sizes})
        assert seated(tables) == Counter(range(n))
        real = [t for t in tables if not t["bye"]]
        assert all(len(t["players"]) in sizes for t in real)
        if real:
            spread = max(len(t["players"]) for t in real) - min(len(t["players"]) for t in real)
            assert spread == best_spread(n - sum(t["bye"] for t in tables), sizes)
        assert sum(t["bye"] for t in tables) == fewest_byes(n, sizes)
        hist.append(tables)
        for t in real:
            for i, p in enumerate(t["players"]):
                points[p] = points.get(p, 0) + (len(t["players"]) - 1 - i) % 3


def test_it_splits_ten_knonsters_players_four_three_three_and_never_seats_three_at_kinapa():
    assert pairing.table_sizes(10, [3, 4]) == ([4, 3, 3], 0)
    sizes, byes = pairing.table_sizes(11, [2, 4, 5, 6, 7, 8])
    assert 3 not in sizes and byes == 0
    assert pairing.table_sizes(7, [4, 5, 6, 7, 8]) == ([7], 0)
    assert pairing.table_sizes(9, [4]) == ([4, 4], 1)


def test_it_cuts_repeated_table_mates():
    hist, n = [], 12
    for r in range(3):
        hist.append(pairing.pair(entrants(n), hist, Rng("r", r), {"format": "swiss", "round": r + 1, "sizes": [3]}))
    repeats = sum(c - 1 for c in met(hist).values() if c > 1)
    assert repeats == 0  # 12 players at tables of 3 for 3 rounds can always meet new people


@settings(max_examples=20, deadline=None)
@given(st.integers(min_value=2, max_value=14), st.booleans())
def test_it_plays_every_pair_once_in_a_round_robin_and_alternates_seats(n, double):
    rounds = pairing.round_robin(list(range(n)), double=double)
    assert len(rounds) == (n - 1 if n % 2 == 0 else n) * (2 if double else 1)
    for rnd in rounds:
        assert seated(rnd) == Counter(range(n))
    games = [tuple(t["players"]) for rnd in rounds for t in rnd if not t["bye"]]
    pairs = Counter(frozenset(g) for g in games)
    assert set(pairs) == {frozenset(p) for p in itertools.combinations(range(n), 2)}
    assert set(pairs.values()) == {2 if double else 1}
    if double:
        assert Counter(games) == Counter((b, a) for a, b in games), "the return games swap the seats"
    firsts, played = pairing.first_seats(rounds), pairing.games_played(rounds)
    assert all(abs(2 * firsts[p] - played[p]) <= (2 if double else 1) for p in range(n))
    if double:
        assert all(2 * firsts[p] == played[p] for p in range(n))


@settings(max_examples=30, deadline=None)
@given(st.integers(min_value=2, max_value=40), st.data())
def test_it_runs_a_knockout_to_exactly_one_winner_with_byes_only_first(n, data):
    field = list(range(n))
    rnd = pairing.knockout_first_round(field)
    assert seated(rnd) == Counter(field)
    size = 1 << (n - 1).bit_length()
    assert sum(t["bye"] for t in rnd) == size - n
    byes = [t["players"][0] for t in rnd if t["bye"]]
    assert sorted(byes) == list(range(size - n)), "the byes go to the top seeds"
    rounds = 1
    while True:
        through = [t["players"][0] if t["bye"] else data.draw(st.sampled_from(t["players"])) for t in rnd]
        if len(through) == 1:
            break
        rnd = pairing.knockout_next_round(through)
        rounds += 1
        assert not any(t["bye"] for t in rnd)
        assert seated(rnd) == Counter(through)
    assert rounds == max(1, (size - 1).bit_length())


def test_it_keeps_the_top_two_seeds_apart_until_the_final():
    pos = pairing.bracket_positions(16)
    assert pos.index(1) < 8 <= pos.index(2)


def test_it_decides_a_best_of_three_and_replays_a_drawn_decider():
    g = lambda a, b, ranks: {"players": [a, b], "ranks": ranks}  # noqa: E731
    assert pairing.match_winner([g(1, 2, [1, 2]), g(2, 1, [2, 1])], 3) == 1
    assert pairing.match_winner([g(1, 2, [1, 2]), g(2, 1, [1, 2])], 3) is None
    assert pairing.match_winner([g(1, 2, [1, 2]), g(2, 1, [1, 2]), g(1, 2, [1, 1])], 3) is None
    assert pairing.match_winner([g(1, 2, [1, 1])], 1) is None, "a drawn single game is replayed"
    assert pairing.match_winner([g(1, 2, [1, 1]), g(2, 1, [2, 1])], 1) == 1


def test_it_pairs_a_large_field_block_by_block_without_rematches():
    n, hist, points = 201, [], {p: 0 for p in range(201)}
    for r in range(6):
        field = sorted(({"player": p, "points": points[p], "seed": p} for p in range(n)), key=lambda e: (-e["points"], e["seed"]))
        # The matching a duel Swiss falls back on when the Dutch system has no pairing.
        tables = pairing.swiss_duels(field, hist, Rng("L", r))
        assert seated(tables) == Counter(range(n))
        for t in tables:
            points[t["players"][(r + t["players"][0]) % len(t["players"])]] += 1
        hist.append(tables)
    assert max(met(hist).values()) == 1
    byes = Counter(p for rnd in hist for t in rnd if t["bye"] for p in t["players"])
    assert max(byes.values()) == 1
