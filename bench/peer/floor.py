#!/usr/bin/env python3
"""The floor under kinplay's durable move: what the web server and one PostgreSQL commit cost alone.

    .venv/bin/python bench/peer/floor.py [--seconds 10] [--clients 8]

make bench-peer compares kinplay's whole move with boardgame.io's. This asks how low any
Python server in kinplay's shape could go: the same server (kinplay/server.py's granian, its
workers, threads and keep-alive), the same clients (bench/api.py's keep-alive http.client threads,
one request at a time each, a ~300-byte JSON body, a ~3.4 KB JSON answer), and an
application with nothing in it (bench/peer/floor_app.py):

1. http: the server and the JSON in and out, nothing else;
2. durable: and a usual move's round trip through psycopg, as kinplay makes it: one statement
   storing an event with the row's compare-and-set, committed by itself;
3. django: the same statement through the stack kinplay is built on: Django's WSGI handler
   (no middleware), an atomic block, Django's connection (kinplay.infra.postgres) and HttpResponse.

Prints requests/s, p50/p99 and the CPU per request of the server processes and of the
PostgreSQL backends (/proc), as make bench-peer counts them. What kinplay spends beyond the
"django" row is DRF's pieces, authentication, the throttle's Redis round trip, the rules, the
bot and the view. Creates and drops a database kp_floor_<pid>. Loopback only.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import threading
import time
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

ROOT = Path(__file__).resolve().parent.parent.parent
sys.path.insert(0, str(ROOT))
from bench.api import CountingConnection, CpuMeter, Postgres, free_port, pct, wait_port  # noqa: E402
from bench.peer import floor_app  # noqa: E402

BODY = b'{"action": {"type": "play", "card": "' + b"x" * 240 + b'"}, "expected_version": 12}'


def clients(port, n, seconds, warmup, meter):
    """n threads, one keep-alive connection and one game each; the latencies inside the window."""
    window, latencies, errors, lock = [0.0, 0.0], [], [], threading.Lock()

    def start_window():
        now = time.monotonic()
        window[:] = [now + warmup, now + warmup + seconds]

    ready = threading.Barrier(n + 1, action=start_window)

    def work(game):
        conn, mine = CountingConnection("127.0.0.1", port, timeout=30), []
        ready.wait()
        while (now := time.monotonic()) < window[1]:
            t = time.perf_counter()
            conn.request("POST", f"/{game}", body=BODY, headers={"Content-Type": "application/json"})
            answer = conn.getresponse()
            answer.read()
            took = time.perf_counter() - t
            if answer.status != 201:  # said once the threads are done (an exception in a thread would go unseen)
                with lock:
                    errors.append(answer.status)
                break
            if now >= window[0] and time.monotonic() <= window[1]:
                mine.append(took)
        conn.close()
        with lock:
            latencies.extend(mine)

    threads = [threading.Thread(target=work, args=(i + 1,)) for i in range(n)]
    for t in threads:
        t.start()
    ready.wait()
    time.sleep(max(0.0, window[0] - time.monotonic()))
    first = meter.sample()
    time.sleep(max(0.0, window[1] - time.monotonic()))
    last = meter.sample()
    for t in threads:
        t.join()
    if errors:
        raise SystemExit(f"the floor's server answered {sorted(set(errors))}")
    return latencies, first, last


def run(mode, args, pg):
    port = free_port()
    env = dict(os.environ, FLOOR_MODE=mode, FLOOR_DATABASE_URL=pg.bench_url, PYTHONPATH=str(ROOT))
    server = subprocess.Popen([sys.executable, "-m", "kinplay.server", "--bind", f"127.0.0.1:{port}",
                               "--app", "bench.peer.floor_app:application"], cwd=ROOT, env=env)
    try:
        wait_port(port, server)
        latencies, a, b = clients(port, args.clients, args.seconds, args.warmup, CpuMeter(server.pid, pg))
    finally:
        server.terminate()
        server.wait()
    n = len(latencies)
    server_ms, db_ms = (1000 * CpuMeter.spent(a, b, key) / n for key in ("server", "postgres"))
    commits = (b["commits"] - a["commits"]) / n
    print(f"| {mode} | {n / args.seconds:.0f} | {1000 * pct(latencies, 50):.1f} ms | {1000 * pct(latencies, 99):.1f} ms "
          f"| {server_ms + db_ms:.2f} ms ({server_ms:.2f} + {db_ms:.2f}) | {commits:.2f} |", flush=True)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seconds", type=float, default=10)
    ap.add_argument("--warmup", type=float, default=3)
    ap.add_argument("--clients", type=int, default=8)
    ap.add_argument("--only", choices=["http", "durable", "django"])
    args = ap.parse_args(argv)
    if not 0 < args.clients <= floor_app.GAMES:
        ap.error(f"--clients: 1 to {floor_app.GAMES} (one game row each)")
    base = os.environ.get("DATABASE_URL") or "postgres://postgres@127.0.0.1:5432/postgres"
    pg = Postgres(urlunsplit(urlsplit(base)._replace(path=f"/kp_floor_{os.getpid()}")))
    pg.create()
    try:
        subprocess.run(["psql", *pg.cli, "-q", "-v", "ON_ERROR_STOP=1", "-c", floor_app.SCHEMA, pg.name], env=pg.env,
                       check=True)
        print(f"load average before: {os.getloadavg()[0]:.1f}\n")
        print("| floor | requests/s | p50 | p99 | CPU per request (server + DB) | commits per request |")
        print("|---|---|---|---|---|---|")
        for mode in [args.only] if args.only else ["http", "durable", "django"]:
            run(mode, args, pg)
    finally:
        pg.drop()


if __name__ == "__main__":
    main()
