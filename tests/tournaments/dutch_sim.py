"""Random duel Swiss tournaments run through kinplay's own fold and pairing (plan.next_round), no
database: the events a real tournament records, results drawn from a seeded ``random.Random``."""

from __future__ import annotations

import random

from kinplay.tournaments import dutch, plan, stream


def simulate(seed: int, *, n: int | None = None, rounds: int | None = None) -> dict:
    """A finished Swiss of ``n`` players (8-200) and ``rounds`` rounds (5-11): draws, a few
    withdrawals (between rounds and during one), byes; returns the folded state."""
    r = random.Random(seed)
    n = n or r.randint(8, 200)
    rounds = rounds or r.randint(5, 11)
    events = [("created", {"name": f"sim {seed}", "kind": "karenza", "options": {}, "format": "swiss",
                           "config": {"sizes": [2], "min_players": 2, "round_days": 1, "draw": plan.DRAW},
                           "organiser": 1, "seed_sha256": ""})]
    for p in range(1, n + 1):
        events.append(("joined", {"player": p, "name": f"player {p}", "rating": r.choice([None, 1000 + r.randint(0, 1500)])}))
    s = stream.fold({"type": t, "data": d} for t, d in events)
    seed_text = f"sim-{seed}"
    s = stream.evolve(s, "started", {"seeds": plan.seeding(s, seed_text), "rounds": rounds})
    game = 0
    draw = r.choice([0.0, 0.1, 0.3, 0.5])
    for number in range(1, rounds + 1):
        tables = plan.next_round(s, seed_text)
        if not tables or all(t["bye"] for t in tables) or _fell_back(s, tables):
            break  # the Dutch system cannot pair this round: the tournament ends here
        out = []
        for t in tables:
            games = []
            if not t["bye"]:
                game += 1
                games = [{"game": game, "players": t["players"]}]
            out.append({"players": t["players"], "bye": t["bye"], "games": games})
        s = stream.evolve(s, "round_started", {"number": number, "tables": out})
        for i, t in enumerate(out):
            for g in t["games"]:
                x = r.random()
                ranks = [1, 1] if x < draw else [1, 2] if x < draw + (1 - draw) / 2 else [2, 1]
                s = stream.evolve(s, "game_finished", {"round": number, "table": i, "game": g["game"], "ranks": ranks})
        s = stream.evolve(s, "round_finished", {"number": number})
        for p in stream.active(s):
            if r.random() < 0.02 and len(stream.active(s)) > 4:
                s = stream.evolve(s, "withdrawn", {"player": p, "reason": "asked"})
    return s


def _fell_back(s, tables) -> bool:
    """A table the Dutch absolute criteria forbid (a rematch, a second bye, two players who
    must both have the same colour): pairing's fallback paired a round the Dutch system cannot."""
    rows = [{"player": p, "points": 0, "seed": i} for i, p in enumerate(s["seeds"])]
    players = {p.id: p for p in dutch.build_players(rows, stream.history(s))}
    last = s["total_rounds"] == len(s["rounds"]) + 1
    score = {r["player"]: r["points"] for r in stream.standings(s)}
    for t in tables:
        if t["bye"]:
            if players[t["players"][0]].bye_ineligible:
                return True
            continue
        a, b = (players[p] for p in t["players"])
        top = last and max(score[a.id], score[b.id]) > len(s["rounds"]) / 2
        if b.id in a.opponents or (a.absolute and b.absolute and a.pref == b.pref and not top):
            return True
    return False
