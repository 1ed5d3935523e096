#!/usr/bin/env python3
"""Tournament figures (issue 15, "Performance"):

    python bench/tournaments.py

1. pairing one round of a 1,000-player Swiss (duels, and 4 a table) after 5 rounds of history;
2. standings (points and every tiebreak) of 1,000 players after 10 rounds;
3. what the tournament adds to the move that ends a game (its games.events.game_finished receiver: link
   lookup, row lock, event append, round-complete check), on a throwaway SQLite database.
CPU seconds of this process (process_time), so a busy machine does not distort them; the
hook is wall time (it waits on the database).
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from games.rng import Rng  # noqa: E402
from kinplay.tournaments import pairing, stream  # noqa: E402

N = 1000


def history_for(n, rounds, size, rng):
    hist, points = [], {p: 0 for p in range(n)}
    for r in range(rounds):
        field = sorted(({"player": p, "points": points[p], "seed": p} for p in range(n)), key=lambda e: -e["points"])
        tables = pairing.pair(field, hist, Rng("h", r), {"format": "swiss", "round": r + 1, "sizes": [size] if size == 2 else [3, 4]})
        for t in tables:
            if t["bye"]:
                points[t["players"][0]] += 1
            else:
                winner = t["players"][rng.randbelow(len(t["players"]))]
                points[winner] += 1
        hist.append(tables)
    return hist, points


def timed(fn, repeat=3):
    out = []
    for _ in range(repeat):
        t0 = time.process_time()
        fn()
        out.append(time.process_time() - t0)
    return min(out)


def bench_pairing():
    rng = Rng("bench")
    for size in (2, 4):
        hist, points = history_for(N, 5, size, rng)
        field = sorted(({"player": p, "points": points[p], "seed": p} for p in range(N)), key=lambda e: -e["points"])
        sizes = [2] if size == 2 else [3, 4]
        secs = timed(lambda: pairing.pair(field, hist, Rng("x"), {"format": "swiss", "round": 6, "sizes": sizes}))
        label = "duels" if size == 2 else "4 a table"
        print(f"pairing round 6 of a {N}-player Swiss ({label}): {secs * 1000:.0f} ms (budget 1,000 ms)")


def bench_standings():
    rng = Rng("s")
    hist, _ = history_for(N, 10, 2, rng)
    state = {"format": "swiss", "config": {"sizes": [2], "points": None}, "order": list(range(N)), "seeds": list(range(N)),
             "players": {str(p): {"name": f"p{p}", "status": "active"} for p in range(N)}, "rounds": [], "status": "running"}
    for i, rnd in enumerate(hist):
        tables = []
        for t in rnd:
            games = [] if t["bye"] else [{"game": 0, "players": t["players"], "ranks": [1, 2] if rng.randbelow(3) else [1, 1]}]
            tables.append({"players": t["players"], "bye": t["bye"], "games": games})
        state["rounds"].append({"number": i + 1, "status": "finished", "tables": tables})
    secs = timed(lambda: stream.standings(state), repeat=5)
    print(f"standings of {N} players × 10 rounds, every tiebreak: {secs * 1000:.0f} ms (budget 200 ms)")


def bench_hook():
    os.environ["KINPLAY_VAR"] = tempfile.mkdtemp(prefix="kp-bench-")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "kinplay.settings")
    import django

    django.setup()
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from django.db import transaction

    from games.store import game_with_seats
    from kinplay.tournaments import services

    call_command("migrate", verbosity=0)
    users = [get_user_model().objects.create_user(f"b{i}", f"b{i}@example.com", "x") for i in range(40)]
    t = services.create(organiser=users[0], name="Bench", kind="karenza", format="swiss", rounds=3)
    for u in users:
        services.join(t.pk, u)
    services.start(t.pk, users[0])
    from kinplay.tournaments.models import Tournament

    gids = [g["game"] for tb in services.load(Tournament.objects.get(pk=t.pk))["rounds"][0]["tables"] for g in tb["games"]]
    samples = []

    class Rollback(Exception):
        pass

    for gid in gids * 5:
        game = game_with_seats(gid)
        game.result = {"ranks": [1, 2], "winners": [0]}
        try:
            with transaction.atomic():
                t0 = time.perf_counter()
                services.game_finished(game)
                samples.append(time.perf_counter() - t0)
                raise Rollback
        except Rollback:
            pass
    print(f"a game-over's tournament step (SQLite, wall): p50 {statistics.median(samples) * 1000:.2f} ms, "
          f"max {max(samples) * 1000:.2f} ms (budget 5 ms); the next round is paired after commit")


if __name__ == "__main__":
    bench_pairing()
    bench_standings()
    bench_hook()
