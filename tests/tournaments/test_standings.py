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


def _with(s, **config):
    s["config"] = dict(s["config"], **config)
    return s


def test_it_orders_players_level_on_everything_by_the_drawing_of_lots_and_shows_it_last():
    events = [{"type": "created", "data": {"name": "Draws", "kind": "karenza", "options": {}, "format": "swiss",
                                           "config": SWISS, "organiser": 1, "seed_sha256": ""}}]
    events += [{"type": "joined", "data": {"player": p, "name": f"p{p}"}} for p in (1, 2)]
    events.append({"type": "started", "data": {"seeds": [1, 2], "lots": [2, 1], "rounds": 1}})
    events.append({"type": "round_started", "data": {"number": 1, "tables": [
        {"players": [1, 2], "bye": False, "games": [{"game": 1, "players": [1, 2]}]}]}})
    events.append({"type": "game_finished", "data": {"round": 1, "table": 0, "game": 1, "ranks": [1, 1]}})
    rows = stream.standings(stream.fold(events))
    assert [(r["player"], r["rank"]) for r in rows] == [(2, 1), (1, 2)], "the lot, not the seeding, and no shared rank"
    assert list(rows[0]["tiebreaks"])[-1] == "lot" and (rows[0]["tiebreaks"]["lot"], rows[1]["tiebreaks"]["lot"]) == (1, 2)
    older = stream.fold([e for e in events if e["type"] != "started"][:3]
                        + [{"type": "started", "data": {"seeds": [1, 2], "rounds": 1}}] + events[4:])
    assert [r["player"] for r in stream.standings(older)] == [1, 2], "a stream from before the lots: the seeding, shown as the lot"


def _bye_round():
    """Three players: 1 beats 2, 3 has the pairing's bye; the round is over."""
    events = [{"type": "created", "data": {"name": "Odd", "kind": "karenza", "options": {}, "format": "swiss",
                                           "config": SWISS, "organiser": 1, "seed_sha256": ""}}]
    events += [{"type": "joined", "data": {"player": p, "name": f"p{p}"}} for p in (1, 2, 3)]
    events.append({"type": "started", "data": {"seeds": [1, 2, 3], "rounds": 2}})
    events.append({"type": "round_started", "data": {"number": 1, "tables": [
        {"players": [1, 2], "bye": False, "games": [{"game": 1, "players": [1, 2]}]}, {"players": [3], "bye": True}]}})
    events.append({"type": "game_finished", "data": {"round": 1, "table": 0, "game": 1, "ranks": [1, 2]}})
    events.append({"type": "round_finished", "data": {"number": 1}})
    return stream.fold(events)


def test_it_counts_fides_virtual_opponent_with_the_players_own_points_for_a_bye_in_buchholz():
    rows = {r["player"]: r for r in stream.standings(_bye_round())}
    assert rows[3]["points"] == 1 and rows[3]["tiebreaks"]["buchholz"] == 1  # the virtual opponent: 3's own point
    assert rows[1]["tiebreaks"]["buchholz"] == 0 and rows[2]["tiebreaks"]["buchholz"] == 1


def test_it_gives_a_pairing_bye_the_organisers_bye_points_and_a_win_by_default():
    assert {r["player"]: r["points"] for r in stream.standings(_bye_round())}[3] == 1
    halved = _with(_bye_round(), bye_points=0.5)
    assert {r["player"]: r["points"] for r in stream.standings(halved)}[3] == 0.5
