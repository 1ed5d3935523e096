#!/usr/bin/env python3
"""Tournament figures (issue 15, "Performance"):

    python bench/tournaments.py

1. pairing one round of a 1,000-player Swiss (4 a table) after 5 rounds of history; the Dutch
   pairing of duels at 100, 200 and 1,000 players (``python bench/tournaments.py dutch [sizes]``;
   ``dutch-rounds [tournaments [sizes]]``: every round of simulated tournaments, the slowest first);
   multiplayer Swiss at 13-200 players against a lower bound (``python bench/tournaments.py tables
   [cases]``, needs the test dependencies; ``optimum seed``: one of those fields' true optimum);
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
from kinplay.tournaments import dutch, pairing, stream  # noqa: E402
from kinplay.tournaments import tables as tables_  # noqa: E402

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
    for size in (4,):  # duels: bench_dutch
        hist, points = history_for(N, 5, size, rng)
        field = sorted(({"player": p, "points": points[p], "seed": p} for p in range(N)), key=lambda e: -e["points"])
        sizes = [2] if size == 2 else [3, 4]
        secs = timed(lambda: pairing.pair(field, hist, Rng("x"), {"format": "swiss", "round": 6, "sizes": sizes}))
        label = "duels" if size == 2 else "4 a table"
        print(f"pairing round 6 of a {N}-player Swiss ({label}): {secs * 1000:.0f} ms (budget 1,000 ms)")


def dutch_history(n, rounds, rng):
    """``rounds`` rounds of a duel Swiss paired by the Dutch system, with the points of each table."""
    hist, points = [], {p: 0.0 for p in range(n)}
    for _ in range(rounds):
        field = sorted(({"player": p, "points": points[p], "seed": p} for p in range(n)), key=lambda e: (-e["points"], e["seed"]))
        pairs, bye = dutch.pair(field, hist, total_rounds=rounds + 1)
        tables = []
        for white, black in pairs:
            x = rng.randbelow(10)
            got = [1.0, 0.0] if x < 4 else [0.0, 1.0] if x < 8 else [0.5, 0.5]
            points[white] += got[0]
            points[black] += got[1]
            tables.append({"players": [white, black], "bye": False, "points": got})
        if bye is not None:
            points[bye] += 1
            tables.append({"players": [bye], "bye": True, "points": [1]})
        hist.append(tables)
    return hist, points


def bench_dutch(sizes=(100, 200, 1000)):
    """The FIDE Dutch pairing of round 6 after 5 rounds (draws, a bye when odd), one run each:
    in a 9-round Swiss, and as the last round of a 6-round one (the top scorers' colour
    exceptions apply). The history is paired by the same code first."""
    for n in sizes:
        hist, points = dutch_history(n, 5, Rng("dutch", n))
        field = sorted(({"player": p, "points": points[p], "seed": p} for p in range(n)), key=lambda e: (-e["points"], e["seed"]))
        for total, label in ((9, "round 6 of 9"), (6, "round 6 of 6, the last")):
            secs = timed(lambda: dutch.pair(field, hist, total_rounds=total), repeat=1)
            print(f"Dutch pairing, {label}, of a {n}-player duel Swiss: {secs * 1000:.0f} ms CPU "
                  "(issue 33: 1,000 players within 1,000 ms)")


def bench_dutch_rounds(sizes=(1000, 200), tournaments=3):
    """Every round of ``tournaments`` random duel Swiss tournaments per size, from the oracle's
    simulator (tests/tournaments/dutch_sim.py: 5 to 11 rounds, draws, a bye when odd,
    withdrawals): each round's pairing CPU time, how many brackets the search paired, each
    matching that decided a bracket (``m``: over the bracket and the next one, ``M``: over
    everybody not yet paired; its players and seconds) and the seconds in the exact completion
    checks (``_complete``). Then the median and the max per size, and the slowest round."""
    from tests.tournaments.dutch_sim import simulate

    real = {name: getattr(dutch, name) for name in ("pair", "_shortcut", "_match", "_complete")}
    log: list[str] = []
    secs: list[tuple[float, list[str], float]] = []
    spent = [0.0]

    def shortcut(*args):
        got = real["_shortcut"](*args)
        log.extend("s" if got is not None else [])
        return got

    def match(*args, full):
        t0 = time.process_time()
        got = real["_match"](*args, full=full)
        log.append(f"{'M' if full else 'm'}({len(args[1])}p {time.process_time() - t0:.2f}s)")
        return got

    def complete(*args):
        t0 = time.process_time()
        try:
            return real["_complete"](*args)
        finally:
            spent[0] += time.process_time() - t0

    def pair(*args, **kwargs):
        log.clear()
        spent[0] = 0.0
        t0 = time.process_time()
        try:
            return real["pair"](*args, **kwargs)
        finally:
            secs.append((time.process_time() - t0, log[:], spent[0]))

    dutch.pair, dutch._shortcut, dutch._match, dutch._complete = pair, shortcut, match, complete
    try:
        for n in sizes:
            times: list[tuple[float, str]] = []
            for t in range(tournaments):
                secs.clear()
                simulate(50_000 + 100 * n + t, n=n)
                for r, (sec, path, checks) in enumerate(secs, 1):
                    matchings = " ".join(x for x in path if x != "s")
                    print(f"{n} players, tournament {t + 1}, round {r}: {sec * 1000:6.0f} ms CPU; "
                          f"{path.count('s')} brackets by the search; matchings: {matchings or '-'}; "
                          f"completion checks {checks:.2f}s", flush=True)
                    times.append((sec, f"tournament {t + 1} round {r}"))
            slowest = max(times)
            print(f"== {n} players, {len(times)} rounds: median {statistics.median(s for s, _ in times) * 1000:.0f} ms, "
                  f"max {slowest[0] * 1000:.0f} ms ({slowest[1]}) (issue 33: 1,000 ms)", flush=True)
    finally:
        for name, fn in real.items():
            setattr(dutch, name, fn)


def bench_tables(cases=200):
    """Multiplayer Swiss at mid sizes: ``cases`` random fields of 13 to 200 players (the test's,
    tests/tournaments/test_tables.py), each split's CPU time and its cost against the lower bound
    that sees repeats (tests/tournaments/table_bound.py: needs highspy, a test dependency)."""
    from tests.tournaments.table_bound import lower_bound
    from tests.tournaments.test_tables import random_field

    times, within, worst = [], 0, 0.0
    for seed in range(cases):
        n, sizes, hist, points = random_field(seed)
        field = sorted(({"player": p, "points": points[p], "seed": p} for p in range(n)), key=lambda e: (-e["points"], e["seed"]))
        options = {"format": "swiss", "round": len(hist) + 1, "sizes": sizes}
        t0 = time.process_time()
        got = [t["players"] for t in pairing.pair(field, hist, Rng("t"), options) if not t["bye"]]
        times.append(time.process_time() - t0)
        score, seen = {p: 2 * points[p] for p in range(n)}, pairing.met(hist)
        cost = tables_.split_cost(got, score, seen)
        bound = lower_bound([p for t in got for p in t], [len(t) for t in got], score, seen, cost)
        within += cost <= bound * 1.02
        worst = max(worst, cost / bound - 1 if bound else 0.0)
    print(f"multiplayer Swiss, {cases} random fields of 13-200 players: {within} within 2 % of the lower bound "
          f"(worst {worst:.1%} above it); split CPU median {statistics.median(times) * 1000:.0f} ms, "
          f"max {max(times) * 1000:.0f} ms")


def bench_optimum(seed):
    """The true optimum of ``tables.split_cost`` for the bench's field ``seed`` (tables 1-3 a field
    of 20 or so; slow beyond): an integer programme over the actual cost solved by HiGHS, the least
    repeats first, then the least sum of squared spreads with no more repeats; each table picks
    one score window, whose width squared it pays, and seats only players inside it."""
    import itertools

    import highspy

    from tests.tournaments.test_tables import random_field, seated

    n, sizes, hist, points = random_field(seed)
    got, score, seen = seated(n, sizes, hist, points)
    players, tabs = sorted(p for t in got for p in t), range(len(got))
    levels = sorted({score[p] for p in players})
    windows = [(lo, hi) for lo in levels for hi in levels if lo <= hi]
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    h.setOptionValue("mip_rel_gap", 0.0)

    def binary():
        v = h.addVariable(lb=0, ub=1)
        h.changeColIntegrality(v.index, highspy.HighsVarType.kInteger)
        return v

    x = {(p, t): binary() for p in players for t in tabs}
    win = {(t, w): binary() for t in tabs for w in windows}
    for p in players:
        h.addConstr(sum(x[p, t] for t in tabs) == 1)
    for t in tabs:
        h.addConstr(sum(x[p, t] for p in players) == len(got[t]))
        h.addConstr(sum(win[t, w] for w in windows) == 1)
        for p in players:
            h.addConstr(x[p, t] - sum(win[t, w] for w in windows if w[0] <= score[p] <= w[1]) <= 0)
    repeats = 0
    for a, b in itertools.combinations(players, 2):
        for t in tabs if seen[frozenset((a, b))] else ():
            y = binary()
            h.addConstr(y - x[a, t] - x[b, t] >= -1)
            repeats += seen[frozenset((a, b))] * y
    h.minimize(repeats)
    least = round(h.getInfo().objective_function_value)
    h.addConstr(repeats <= least)
    h.minimize(sum((w[1] - w[0]) ** 2 * win[t, w] for t in tabs for w in windows))
    spread = round(h.getInfo().objective_function_value)
    cost = tables_.split_cost(got, score, seen)
    print(f"field {seed} ({n} players at {sizes}): split {cost // tables_.REMATCH} repeats, spread {cost % tables_.REMATCH}; "
          f"optimum {least} repeats, spread {spread} (HiGHS: {h.modelStatusToString(h.getModelStatus())})")


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
    if sys.argv[1:2] == ["dutch"]:  # python bench/tournaments.py dutch [sizes ...]
        bench_dutch(tuple(int(x) for x in sys.argv[2:]) or (100, 200, 1000))
        sys.exit()
    if sys.argv[1:2] == ["optimum"]:  # python bench/tournaments.py optimum seed
        bench_optimum(int(sys.argv[2]))
        sys.exit()
    if sys.argv[1:2] == ["dutch-rounds"]:  # python bench/tournaments.py dutch-rounds [tournaments [sizes ...]]
        bench_dutch_rounds(tuple(int(x) for x in sys.argv[3:]) or (1000, 200), int(sys.argv[2]) if sys.argv[2:] else 3)
        sys.exit()
    if sys.argv[1:2] == ["tables"]:  # python bench/tournaments.py tables [cases]
        bench_tables(int(sys.argv[2]) if sys.argv[2:] else 200)
        sys.exit()
    bench_pairing()
    bench_dutch()
    bench_standings()
    bench_hook()
