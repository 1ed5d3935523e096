#!/usr/bin/env python3
"""Rules-engine throughput, for every kind in the registry (issue 2, "Performance").

    python bench/engine.py [--seconds 3] [--kinds knonsters,karenza]

For each kind: full random-bot games per second (a lean loop over the rules contract:
setup, to_act, the random bot, decide and evolve (``decide_and_evolve``); no contract checks, unlike the test
harness), events replayed per second (evolve over the recorded streams, from fresh copies
as if just read from the database), and the time to replay 1,000 events. Timed in CPU
seconds of this single-threaded process, so a busy machine does not distort the figures.
Pure Python: no database, no Django.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from games import compiled  # noqa: E402
from games.engine import IllegalAction, decide_and_evolve  # noqa: E402
from games.registry import kinds  # noqa: E402
from games.rng import Rng  # noqa: E402

MAX_STEPS = 20_000


def default_options(rules) -> dict:
    return {k: p["default"] for k, p in rules.OPTIONS_SCHEMA.get("properties", {}).items() if "default" in p}


def player_counts(rules, options) -> list[int]:
    ok = []
    for n in range(rules.MIN_PLAYERS, rules.MAX_PLAYERS + 1):
        try:
            rules.check_players(n, options)
        except IllegalAction:
            continue
        ok.append(n)
    return ok


def play(kind, n, options, seed) -> list[dict]:
    """One whole game with random bots; returns its events."""
    rules, bot = kind.rules, kind.bots.random_bot
    setup, to_act, evolve, result, timers = rules.setup, rules.to_act, rules.evolve, rules.result, rules.timers
    events = setup(n, options, Rng(seed, 0))
    state: dict = {}
    for e in events:
        state = evolve(state, e)
    for step in range(MAX_STEPS):
        if result(state) is not None:
            return events
        acting = to_act(state)
        if acting:
            seats = sorted(acting)
            seat = seats[step % len(seats)]
            action = bot(state, seat, Rng(seed, f"bot:{step}"))
        else:
            seat, action = None, timers(state)[0]["action"]
        new, state = decide_and_evolve(rules, state, seat, action, Rng(seed, len(events)))
        events.extend(new)
    raise RuntimeError(f"{kind.slug}: a game did not end in {MAX_STEPS} steps")


def replay_all(evolve, streams) -> int:
    count = 0
    for events in streams:
        state: dict = {}
        for e in events:
            state = evolve(state, e)
        count += len(events)
    return count


def bench_kind(kind, seconds: float) -> dict:
    rules = kind.rules
    options = default_options(rules)
    counts = player_counts(rules, options)
    # Games: as many as fit in `seconds`, cycling through the player counts. The streams kept
    # for the replay below are frozen out of the cyclic collector's sight after each game:
    # otherwise every full collection walks all the games played so far, which is the bench's
    # bookkeeping, not the engine's work (it took half the time, and the figure fell the
    # longer the bench ran: Project_Kin 176 games/s over 1 s, 137 over 9 s).
    streams, started, cpu0, i = [], time.perf_counter(), time.process_time(), 0
    while True:
        streams.append(play(kind, counts[i % len(counts)], options, f"bench-{kind.slug}-{i}"))
        gc.freeze()
        i += 1
        elapsed = time.perf_counter() - started
        if elapsed >= seconds and i >= 3:
            break
    cpu = time.process_time() - cpu0
    gc.unfreeze()
    games_per_s = len(streams) / cpu
    games_per_wall_s = len(streams) / elapsed
    total_events = sum(len(s) for s in streams)
    # Replay: every stream from {}; events are fresh copies (as read from the database), made
    # outside the timed region since evolve may keep references to an event's data.
    encoded = json.dumps(streams)
    rounds, replayed, replay_time = 0, 0, 0.0
    while replay_time < seconds / 2 or rounds < 2:
        fresh = json.loads(encoded)
        t = time.process_time()
        replayed += replay_all(rules.evolve, fresh)
        replay_time += time.process_time() - t
        rounds += 1
    samples = replay_1000_ms(rules, streams, 15, time.process_time)
    return {
        "kind": kind.slug, "players": ",".join(map(str, counts)), "games": len(streams),
        "games_per_s": games_per_s, "games_per_wall_s": games_per_wall_s, "events_per_game": total_events / len(streams),
        "replay_per_s": replayed / replay_time, "replay_1000_ms": statistics.median(samples),
        "replay_1000_best_ms": min(samples),
    }


def replay_1000_ms(rules, streams, rounds, clock) -> list[float]:
    """Milliseconds to replay exactly 1,000 events, across game boundaries (a new state at each
    stream's start), from fresh copies as read from a database; scaled if fewer were recorded."""
    flat = []
    for stream in streams:
        flat.append(None)
        flat.extend(stream)
    encoded = json.dumps(flat[: 1000 + len(streams)])
    samples = []
    for _ in range(rounds):
        fresh = json.loads(encoded)
        t = clock()
        state, n = {}, 0
        for e in fresh:
            if e is None:
                state = {}
                continue
            state = rules.evolve(state, e)
            n += 1
            if n == 1000:
                break
        samples.append((clock() - t) * 1000 * 1000 / max(n, 1))
    return samples


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seconds", type=float, default=3.0, help="time spent playing games per kind (default 3)")
    ap.add_argument("--kinds", default="", help="comma-separated slugs (default: every kind in the registry)")
    args = ap.parse_args(argv)
    wanted = [k for k in args.kinds.split(",") if k]
    registry = kinds()
    slugs = wanted or list(registry)
    rows, failed = [], []
    engines = "compiled (mypyc)" if compiled.state["active"] else f"Python ({compiled.state['why']})"
    print(f"bench/engine.py: {len(slugs)} kind(s), {args.seconds:g}s of games each, Python {sys.version.split()[0]}, "
          f"engines {engines}; KINPLAY_PURE_ENGINES=1 for the Python source\n")
    for slug in slugs:
        try:
            rows.append(bench_kind(registry[slug], args.seconds))
        except Exception as exc:  # noqa: BLE001 - one broken kind must not hide the others
            failed.append((slug, f"{type(exc).__name__}: {exc}"))
    head = ("kind", "players", "games", "games/s", "(wall)", "events/game", "events replayed/s", "replay 1,000 ev (ms)")
    table = [head] + [
        (r["kind"], r["players"], str(r["games"]), f"{r['games_per_s']:,.1f}", f"{r['games_per_wall_s']:,.1f}",
         f"{r['events_per_game']:,.1f}",
         f"{r['replay_per_s']:,.0f}", f"{r['replay_1000_ms']:.2f} (best {r['replay_1000_best_ms']:.2f})")
        for r in rows
    ]
    widths = [max(len(row[i]) for row in table) for i in range(len(head))]
    for j, row in enumerate(table):
        print("  ".join(c.ljust(w) if i < 2 else c.rjust(w) for i, (c, w) in enumerate(zip(row, widths))))
        if j == 0:
            print("  ".join("-" * w for w in widths))
    for slug, why in failed:
        print(f"{slug}: FAILED {why}")
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print("\nRates and times are per CPU-second of this process (time.process_time), so other load on")
    print(f"the machine does not distort them; (wall) is games per wall-clock second. Load average now: {load:.1f}.")
    print("target (issue 2): replay 1,000 events <= 20 ms")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
