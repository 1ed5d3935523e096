"""Standings as the stream folds them: the tiebreaks in the order the format uses them."""

from kinplay.tournaments import stream

SWISS = {"sizes": [2], "points": None, "bye_points": None}


def _folded(rounds, n):
    """A Swiss of ``n`` players whose rounds are ``(a, b, score of a)`` games, as its events."""
    events = [{"type": "created", "data": {"name": "Winter Swiss", "kind": "karenza", "options": {}, "format": "swiss",
                                           "config": SWISS, "organiser": 1, "seed_sha256": ""}}]
    events += [{"type": "joined", "data": {"player": p, "name": f"p{p}"}} for p in range(1, n + 1)]
    events.append({"type": "started", "data": {"seeds": list(range(1, n + 1)), "rounds": len(rounds)}})
    game = 0
    for number, games in enumerate(rounds, start=1):
        tables = []
        for a, b, _ in games:
            game += 1
            tables.append({"players": [a, b], "bye": False, "games": [{"game": game, "players": [a, b]}]})
        events.append({"type": "round_started", "data": {"number": number, "tables": tables}})
        for i, (_, _, score) in enumerate(games):
            events.append({"type": "game_finished", "data": {
                "round": number, "table": i, "game": tables[i]["games"][0]["game"],
                "ranks": {1: [1, 2], 0: [2, 1], 0.5: [1, 1]}[score]}})
    return stream.fold(events)


def test_it_breaks_a_swiss_tie_by_direct_encounter_among_those_still_level_only():
    """FIDE's direct encounter counts the games among the players still level when it is reached
    (points, Buchholz, median Buchholz, Sonneborn-Berger), not among all level on points: 4 and 2
    are level on all four and 4 beat 2, so 4 is ahead. 2's win over 6 (one point too, but more
    Buchholz) does not count: counted, it made 2 and 4 level on direct, and 2 ahead by seed."""
    s = _folded([[(1, 2, 1), (6, 3, 1), (5, 4, 1)],
                 [(6, 2, 0), (5, 3, 0), (4, 1, 0)],
                 [(3, 5, 1), (2, 4, 0), (6, 1, 0)]], 6)
    rows = {r["player"]: r for r in stream.standings(s)}
    level = ("buchholz", "median_buchholz", "sonneborn_berger")
    assert rows[4]["points"] == rows[2]["points"] == rows[6]["points"] == 1
    assert all(rows[4]["tiebreaks"][k] == rows[2]["tiebreaks"][k] for k in level)
    assert rows[6]["tiebreaks"]["buchholz"] != rows[2]["tiebreaks"]["buchholz"]
    assert (rows[4]["tiebreaks"]["direct"], rows[2]["tiebreaks"]["direct"]) == (1, 0)
    order = [r["player"] for r in stream.standings(s)]
    assert order.index(4) < order.index(2)
