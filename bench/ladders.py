#!/usr/bin/env python3
"""Ladder figures: what a ladder adds to a game-over, and how fast its ranking reads.

    python bench/ladders.py [--players 1000] [--open 300] [--games 60]     # SQLite in a throwaway folder
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/kp_x python bench/ladders.py   # PostgreSQL

A Karenza ladder of ``--players`` players with ``--open`` challenges accepted and running, then:

1. the ladders' step in a game-over (``kinplay.ladders.services.game_finished``, which the
   game_finished receiver calls inside the move's transaction), timed around that call alone,
   for ``--games`` games that are no challenge and ``--games`` challenge games resigned; and the
   work it leaves for after the commit (``record_result``, the task or the beat sweep: the
   result appended, places moved, two emails queued);
2. ``selectors.ladder_for`` (the API's <ladder>, the ranking as a player sees it) and
   ``selectors.ladder_for`` for an anonymous reader, p50 over 20 reads.

Milliseconds of wall time, p50 and p95 (the machine is shared: read the load average printed).
PostgreSQL: the database in DATABASE_URL is migrated and used as it is (this run's players have
their own names); nothing is dropped.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def setup_django():
    if not os.environ.get("DATABASE_URL"):
        os.environ["KINPLAY_VAR"] = tempfile.mkdtemp(prefix="kp-bench-ladders-")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "kinplay.settings_test")
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)


def show(label, ms):
    ms = sorted(ms)
    p95 = ms[min(len(ms) - 1, int(len(ms) * 0.95))]
    print(f"{label}: p50 {statistics.median(ms):.2f} ms, p95 {p95:.2f} ms over {len(ms)} "
          f"(load average {os.getloadavg()[0]:.2f})", flush=True)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=1000)
    parser.add_argument("--open", type=int, default=300)
    parser.add_argument("--games", type=int, default=60)
    args = parser.parse_args(argv)
    setup_django()

    from django.contrib.auth import get_user_model
    from django.contrib.auth.models import AnonymousUser
    from django.db import connection

    from games import services as games
    from kinplay.ladders import receivers, selectors, services
    from kinplay.ladders.models import Ladder

    tag = uuid.uuid4().hex[:6]
    users = [get_user_model().objects.create_user(f"ld{tag}-{i}", f"ld{tag}-{i}@example.com", None)
             for i in range(args.players)]
    ladder = services.create(organiser=users[0], name=f"Bench {tag}", kind="karenza", clock={"per_move": None})
    for u in users:
        services.join(ladder.pk, u)
    # Challenges from the bottom half up one place each: pairs that share nobody.
    pairs = [(users[i], users[i - 1]) for i in range(args.players - 1, 0, -2)][:args.open]
    started = []
    for challenger, challenged in pairs:
        services.challenge(ladder.pk, challenger, challenged.username)
        gid = next(c["game"] for c in Ladder.objects.get(pk=ladder.pk).state["challenges"].values()
                   if c["challenger"] == challenger.pk)
        games.accept_invitation(gid, challenged)
        started.append((gid, challenger, challenged))
    print(f"{connection.vendor}: a ladder of {args.players} players, {len(started)} challenges running", flush=True)

    hook: list[float] = []
    task: list[float] = []

    def timed(fn, into):
        def run(*a, **kw):
            t0 = time.perf_counter()
            out = fn(*a, **kw)
            into.append((time.perf_counter() - t0) * 1000)
            return out
        return run

    real_hook, real_task = services.game_finished, services.record_result
    receivers.services.game_finished = timed(real_hook, hook)  # type: ignore[assignment]
    services.record_result = timed(real_task, task)  # type: ignore[assignment]
    try:
        a, b = users[0], users[1]
        for _ in range(args.games):  # games that are no challenge
            g = games.create_game(creator=a, kind="karenza", seats=[{"user": a.username}, {"user": b.username}],
                                  accepted=True, per_move=None)
            games.resign(g.pk, user=b)
        show("game-over, not a challenge: the ladders' step in the move", hook)
        hook.clear()
        for gid, _, challenged in started[:args.games]:
            games.resign(gid, user=challenged)  # the challenger wins and moves up one
        show("game-over of a challenge: the ladders' step in the move", hook)
        if len(task) < min(args.games, len(started)):  # no worker, no eager tasks: as the beat sweep would
            services.sweep()
        show("recording a challenge's result after commit (task or sweep: result, places moved, emails queued)", task)
    finally:
        receivers.services.game_finished = real_hook  # type: ignore[assignment]
        services.record_result = real_task  # type: ignore[assignment]

    ladder = Ladder.objects.select_related("organiser").get(pk=ladder.pk)
    for who, label in ((users[-1], "a player"), (AnonymousUser(), "an anonymous reader")):
        ms = []
        for _ in range(20):
            t0 = time.perf_counter()
            selectors.ladder_for(ladder, who)
            ms.append((time.perf_counter() - t0) * 1000)
        show(f"<ladder> with its ranking, for {label}", ms)


if __name__ == "__main__":
    main()
