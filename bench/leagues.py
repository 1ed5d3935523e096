#!/usr/bin/env python3
"""League figures (issue 16, "Performance": a season roll-over of a 1,000-player league,
about 170 divisions, in at most 5 s of work, done in the worker):

    python bench/leagues.py [--players 1000]                       # SQLite in a throwaway folder
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/kp_x python bench/leagues.py   # PostgreSQL

A Karenza league of ``--players`` players in divisions of 6 (a Swiss of one round, so that a
season ends after one round of games; a roll-over starts the same first round of ~3 games a
division as a round robin would), then:

1. the first season's start (``leagues.services.roll_over`` as the beat sweep calls it);
2. every game of the season resigned, every division's tournament advanced to its end;
3. the roll-over: season 1 closed (moves up and down) and season 2 started.

For 1 and 3: CPU seconds of this process (process_time), the PostgreSQL backend's CPU
(/proc, when the database is local), wall seconds, and SQL statements. The machine is shared:
read the CPU figures, and the load average printed with them.
PostgreSQL: the database in DATABASE_URL is migrated and used as it is (this run's players
have their own names); nothing is dropped.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
import uuid
from contextlib import contextmanager
from datetime import timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.api import proc_cpu  # noqa: E402


def setup_django():
    if not os.environ.get("DATABASE_URL"):
        os.environ["KINPLAY_VAR"] = tempfile.mkdtemp(prefix="kp-bench-leagues-")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "kinplay.settings_test")
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)


@contextmanager
def measured(label, results):
    from django.db import connection

    statements = [0]

    def count(execute, sql, params, many, context):
        statements[0] += 1
        return execute(sql, params, many, context)

    backend = None
    if connection.vendor == "postgresql":
        with connection.cursor() as cur:
            cur.execute("SELECT pg_backend_pid()")
            backend = cur.fetchone()[0]
    db0 = proc_cpu(backend) if backend else 0.0
    cpu0, wall0 = time.process_time(), time.perf_counter()
    with connection.execute_wrapper(count):
        yield
    cpu, wall = time.process_time() - cpu0, time.perf_counter() - wall0
    db = proc_cpu(backend) - db0 if backend else None
    results[label] = (cpu, db, wall, statements[0])
    db_text = f", PostgreSQL backend {db:.2f} s CPU" if db is not None else ""
    print(f"{label}: {cpu:.2f} s CPU (this process){db_text}, {wall:.2f} s wall, {statements[0]} statements "
          f"(load average {os.getloadavg()[0]:.2f})", flush=True)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=1000)
    args = parser.parse_args(argv)
    setup_django()

    from django.contrib.auth import get_user_model
    from django.db import connection
    from django.utils import timezone

    from games import services as games
    from games.engine import RESIGN
    from games.models import Game
    from games.store import game_with_seats
    from kinplay.leagues import services
    from kinplay.leagues.models import League
    from kinplay.tournaments import services as tournaments
    from kinplay.tournaments.models import Tournament, TournamentGame

    tag = uuid.uuid4().hex[:6]
    users = [get_user_model().objects.create_user(f"lb{tag}-{i}", f"lb{tag}-{i}@example.com", None)
             for i in range(args.players)]
    league = services.create(organiser=users[0], name=f"Bench {tag}", kind="karenza", division_size=6,
                             format="swiss", rounds=1, season_days=7)
    for u in users:
        services.sign_up(league.pk, u)
    print(f"{connection.vendor}: a league of {args.players} players (Karenza, divisions of 6, Swiss of one round)")
    results: dict = {}
    with measured("first season started", results):
        assert services.roll_over(league.pk, now=timezone.now() + timedelta(days=8)) == "started"
    league.refresh_from_db()
    season = league.state["seasons"][-1]
    ids = [d["tournament"] for d in season["divisions"]]
    print(f"  {len(ids)} divisions, {TournamentGame.objects.filter(tournament_id__in=ids).count()} games")

    t0 = time.perf_counter()
    for gid in Game.objects.filter(status=Game.ACTIVE, seats__user__in=users).distinct().values_list("pk", flat=True):
        game = game_with_seats(gid)
        games.act(gid, game.seat_list[0].index, action=RESIGN)
    for tid in ids:
        tournaments.advance(tid)
    assert not Tournament.objects.filter(pk__in=ids, status=Tournament.RUNNING).exists()
    print(f"  season 1 played out in {time.perf_counter() - t0:.0f} s wall (not measured)", flush=True)

    with measured("roll-over (season 1 closed, season 2 started)", results):
        assert services.roll_over(league.pk) == "started"
    assert League.objects.get(pk=league.pk).season == 2


if __name__ == "__main__":
    main()
