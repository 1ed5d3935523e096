#!/usr/bin/env python3
"""Ratings figures (issue 14, "Performance"), on a throwaway database.

    python bench/ratings.py [--games 100000] [--players 10000] [--updates 300]

- the time the rating update adds to a game-over (``record_game_over``: lock the players'
  rows, OpenSkill, write the ratings and the per-seat history), 2 and 4 players, p50/p99;
- ``rebuild_ratings`` over ``--games`` finished games (2–4 players, mixed kinds);
- the leaderboard page and API (first page and a middle page) with ``--players`` rated players.

Uses ``DATABASE_URL`` if set (give a database of your own: it is flushed), else a SQLite file
in /tmp. Wall-clock times of this single process, and its CPU time (the machine may be shared:
the database's own CPU is in the wall time only); statements counted per update and per page.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DATABASE_URL", "sqlite:////tmp/kinplay-bench-ratings.sqlite3")
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "kinplay.settings")
os.environ.setdefault("ALLOWED_HOSTS", "testserver")  # the test client's host (production defaults are closed)

import django  # noqa: E402

django.setup()

from django.contrib.auth import get_user_model  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.db import connection, transaction  # noqa: E402
from django.test import Client  # noqa: E402
from django.utils import timezone  # noqa: E402

from games.models import Game, Seat  # noqa: E402
from games.store import game_with_seats  # noqa: E402
from kinplay.ratings.models import Rating  # noqa: E402
from kinplay.ratings.services import rebuild, record_game_over  # noqa: E402

KINDS = ["knonsters", "kenta", "kinapa"]  # 2–4 players each


def ms(xs):
    xs = sorted(xs)
    return f"p50 {statistics.median(xs) * 1000:.2f} ms, p99 {xs[int(len(xs) * .99) - 1] * 1000:.2f} ms"


def fresh_database():
    if connection.vendor == "sqlite":
        Path(connection.settings_dict["NAME"]).unlink(missing_ok=True)
    call_command("migrate", verbosity=0)
    call_command("flush", verbosity=0, interactive=False)


def make_users(n):
    users = get_user_model().objects
    users.bulk_create([get_user_model()(username=f"p{i:05d}", password="!") for i in range(n)], batch_size=5000)
    return list(users.order_by("pk").values_list("pk", flat=True))


def finished_games(n, user_ids, rng, *, finished=True):
    """``n`` human-only games with a random finishing order (rows only: no events needed)."""
    start = timezone.now() - timezone.timedelta(days=365)
    games, seats = [], []
    for i in range(n):
        size = rng.choice([2, 2, 3, 4])
        ranks = list(range(1, size + 1))
        rng.shuffle(ranks)
        games.append(Game(kind=rng.choice(KINDS), status=Game.FINISHED if finished else Game.ACTIVE, seed="x",
                          seed_sha256="x", result={"ranks": ranks, "winners": [ranks.index(1)]},
                          finished_at=start + timezone.timedelta(seconds=i * 60) if finished else None))
    games = Game.objects.bulk_create(games, batch_size=5000)
    for g in games:
        for index, uid in enumerate(rng.sample(user_ids, len(g.result["ranks"]))):
            seats.append(Seat(game=g, index=index, user_id=uid))
    Seat.objects.bulk_create(seats, batch_size=5000)
    return games


class StatementCount:
    """A connection.execute_wrapper counting the statements sent (an executemany as its rows)."""

    def __init__(self):
        self.statements = 0

    def __call__(self, execute, sql, params, many, context):
        self.statements += len(params) if many and hasattr(params, "__len__") else 1
        return execute(sql, params, many, context)


def bench_update(user_ids, rng, count):
    """Apart: games whose players all have a rating of the kind (a server's usual case) and
    games with a player's first rated game of the kind (their row is created first)."""
    # Three in four players have played every kind before (a rating of 1500, no games).
    Rating.objects.bulk_create([Rating(user_id=u, kind=k) for u in user_ids[:len(user_ids) * 3 // 4] for k in KINDS])
    for size in (2, 4):
        runs: dict[str, tuple[list, list, list]] = {"rated players": ([], [], []), "a first game": ([], [], [])}
        for g in finished_games(count, user_ids, rng, finished=False):
            g = game_with_seats(g.pk)
            if len(g.seat_list) != size:
                continue
            g.status = Game.FINISHED
            known = Rating.objects.filter(kind=g.kind, user_id__in=[s.user_id for s in g.seat_list]).count()
            times, cpu, statements = runs["rated players" if known == size else "a first game"]
            counter = StatementCount()
            # Counted by a wrapper, not CaptureQueriesContext: its debug cursor formats every
            # statement's SQL, which cost more than a third of the update's own time.
            with transaction.atomic(), connection.execute_wrapper(counter):
                t, c = time.perf_counter(), time.process_time()
                record_game_over(g)
                times.append(time.perf_counter() - t)
                cpu.append(time.process_time() - c)
            statements.append(counter.statements)
        for label, (times, cpu, statements) in runs.items():
            if times:
                print(f"rating update at game-over, {size} players, {label} ({len(times)} games): {ms(times)}; "
                      f"this process's CPU p50 {statistics.median(cpu) * 1000:.2f} ms; "
                      f"statements p50 {statistics.median(statements):.0f}, at most {max(statements)}")


def bench_rebuild(n, user_ids, rng):
    Game.objects.filter(status=Game.FINISHED).update(finished_at=None)  # only the bench's games count
    t = time.perf_counter()
    finished_games(n, user_ids, rng)
    made = time.perf_counter() - t
    t = time.perf_counter()
    rated = rebuild()
    took = time.perf_counter() - t
    print(f"rebuild_ratings: {rated:,} finished games in {took:.1f} s "
          f"({rated / took:,.0f} games/s; setting them up took {made:.1f} s)")


def bench_leaderboard(players, rng):
    Rating.objects.all().delete()
    ids = make_users(players) if get_user_model().objects.count() < players else \
        list(get_user_model().objects.order_by("pk").values_list("pk", flat=True))[:players]
    rows = []
    for uid in ids:
        mu, sigma = rng.gauss(25, 4), rng.uniform(1, 8)
        rows.append(Rating(user_id=uid, kind="kenta", mu=mu, sigma=sigma, ordinal=mu - 3 * sigma, games=rng.randint(1, 80)))
    Rating.objects.bulk_create(rows, batch_size=5000)
    if connection.vendor == "postgresql":
        # A live table has statistics (autovacuum analyzes it); without them the planner takes
        # 10,000 fresh rows for a few dozen and sorts instead of walking the index.
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE")
    viewer = get_user_model().objects.get(pk=ids[len(ids) // 2])
    client = Client()
    client.force_login(viewer)
    api = Client(HTTP_AUTHORIZATION=None)
    api.force_login(viewer)
    for label, url in [("page 1", "/ratings/kenta/"), ("page 100", f"/ratings/kenta/?page={max(1, players // 100)}"),
                       ("API page 1", "/api/ratings/kenta/"), ("API page 100", f"/api/ratings/kenta/?page={max(1, players // 100)}")]:
        client.get(url)  # warm
        counter = StatementCount()
        with connection.execute_wrapper(counter):
            client.get(url)
        times, cpu = [], []
        for _ in range(60):
            t, c = time.perf_counter(), time.process_time()
            r = client.get(url)
            times.append(time.perf_counter() - t)
            cpu.append(time.process_time() - c)
            assert r.status_code == 200, r.status_code
        print(f"leaderboard {label} with {players:,} rated players: {ms(times)}; "
              f"this process's CPU p50 {statistics.median(cpu) * 1000:.2f} ms; {counter.statements} statements")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--games", type=int, default=100_000)
    ap.add_argument("--players", type=int, default=10_000)
    ap.add_argument("--updates", type=int, default=300)
    args = ap.parse_args()
    rng = random.Random(14)
    print(f"database: {connection.vendor}")
    fresh_database()
    user_ids = make_users(max(args.players, 50))
    bench_update(user_ids[:200], rng, args.updates)
    bench_rebuild(args.games, user_ids[:2000], rng)
    bench_leaderboard(args.players, rng)


if __name__ == "__main__":
    main()
