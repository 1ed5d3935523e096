#!/usr/bin/env python3
"""What 1,000 idle game pages cost the server, before and after the conditional GET (issue 17).

    .venv/bin/python bench/live.py [--requests 2000]        (DATABASE_URL honoured; SQLite by default)

An open game page asks the server whether anything changed. Before: every 3 s it fetched
GET /api/games/{id}/ (the whole game: state, view, legal moves, serialised). After: it asks
GET /games/{id}/live/ with the ETag of what it shows, and the server answers 304 with no body
after two indexed lookups (version and status; the chat's newest line); a visible page nobody
touches slows from every 3 s to every 30 s after a minute, a hidden one to every 60 s.

The script builds a throw-away test database, one Karenza game between two players (30 moves
in), signs a player in, and times each request through Django's whole stack in process (session,
authentication, view, middleware; no network, no proxy): wall time and CPU time per request.
It prints requests/s that 1,000 idle tabs send and the share of one CPU core they keep busy.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "kinplay.settings")


def measure(client, url, n, headers=None):
    walls, cpus, statuses = [], [], set()
    for _ in range(n):
        w, c = time.perf_counter(), time.process_time()
        r = client.get(url, **(headers or {}))
        cpus.append(time.process_time() - c)
        walls.append(time.perf_counter() - w)
        statuses.add(r.status_code)
    return {"p50_ms": statistics.median(walls) * 1000, "cpu_ms": statistics.mean(cpus) * 1000,
            "status": sorted(statuses)}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--requests", type=int, default=2000)
    args = ap.parse_args()

    import django

    django.setup()
    from django.conf import settings
    from django.db import connection
    from django.test.utils import setup_test_environment

    setup_test_environment()
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    settings.ALLOWED_HOSTS = ["*"]
    old_name = connection.settings_dict["NAME"]
    connection.creation.create_test_db(verbosity=0, keepdb=False)
    try:
        from django.contrib.auth import get_user_model
        from django.test import Client

        from games import services
        from games.models import Game
        from tests.play import accepted, step

        users = get_user_model().objects
        alice = users.create_user("alice", "alice@example.com", "a-long-password")
        users.create_user("bob", "bob@example.com", "a-long-password")
        game = accepted(services.create_game(creator=alice, kind="karenza", options={}, per_move=None,
                                             seats=[{"user": "alice"}, {"user": "bob"}]))
        for _ in range(30):
            game.refresh_from_db()
            if game.status != Game.ACTIVE:
                break
            step(game)
        client = Client()
        client.force_login(alice)

        api = f"/api/games/{game.pk}/"
        live = f"/games/{game.pk}/live/"
        for url in (api, live):
            measure(client, url, 50)  # warm caches (state cache, templates, URL resolver)
        before = measure(client, api, args.requests)
        etag = client.get(live)["ETag"]
        after = measure(client, live, args.requests, {"HTTP_IF_NONE_MATCH": etag})

        print(f"{connection.vendor}, {args.requests} requests each, in process (no network)")
        print(f"  before  GET {api:<22} {before['status']}  p50 {before['p50_ms']:.2f} ms, CPU {before['cpu_ms']:.2f} ms")
        print(f"  after   GET {live:<22} {after['status']}  p50 {after['p50_ms']:.2f} ms, CPU {after['cpu_ms']:.2f} ms")
        print("1,000 idle tabs:")
        rows = [("before: every 3 s, full game", 1000 / 3, before["cpu_ms"]),
                ("after: first minute, every 3 s, 304", 1000 / 3, after["cpu_ms"]),
                ("after: visible, idle > 1 min, every 30 s", 1000 / 30, after["cpu_ms"]),
                ("after: hidden tab, every 60 s", 1000 / 60, after["cpu_ms"])]
        for label, rps, cpu in rows:
            print(f"  {label:<42} {rps:6.1f} requests/s  = {rps * cpu / 1000:5.2f} CPU cores")
    finally:
        connection.creation.destroy_test_db(old_name, verbosity=0)


if __name__ == "__main__":
    main()
