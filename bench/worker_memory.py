#!/usr/bin/env python3
"""A web worker's memory under a steady load of list requests: its RSS every 10 seconds.

    .venv/bin/python bench/worker_memory.py [--database kp_bigdata] [--seconds 80] [--threads 2] [--clients 4]

Starts the web server (kinplay.server, one worker of ``--threads`` threads) on the database
bench/bigdata.py filled, and sends GET ``--path`` as its heavy player from ``--clients`` client
threads, each waiting for its answer before the next. The worker's RSS must level off: each
request's reference cycles are freed by the collector (kinplay.server.RequestOnly), and a
collection while another thread's request runs must not strand that request's garbage in the
oldest generation, which only grows.
"""

from __future__ import annotations

import argparse
import http.client
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from tests.conftest import free_port, wait_listening  # noqa: E402


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--database", default="kp_bigdata")
    ap.add_argument("--server", default="postgres://postgres@127.0.0.1:5432")
    ap.add_argument("--seconds", type=int, default=80)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--clients", type=int, default=4)
    ap.add_argument("--path", default="/api/games/?status=finished")
    args = ap.parse_args(argv)
    url = f"{args.server}/{args.database}"
    token = subprocess.run(["psql", url, "-Atc", "SELECT t.key FROM authtoken_token t JOIN auth_user u ON u.id = t.user_id"
                            " WHERE u.username = 'heavy'"], capture_output=True, text=True, check=True).stdout.strip()
    if not token:
        raise SystemExit(f"no heavy player in {args.database}: fill it with bench/bigdata.py first")
    port = free_port()
    env = dict(os.environ, DATABASE_URL=url, SECRET_KEY="bench-only-" + "x" * 50, DEBUG="false", ALLOWED_HOSTS="127.0.0.1",
               WEB_WORKERS="1", WEB_THREADS=str(args.threads), THROTTLE_USER="10000000/min", LOG_LEVEL="WARNING",
               KINPLAY_VAR=tempfile.mkdtemp(prefix="kinplay-memory-"))
    server = subprocess.Popen([sys.executable, "-m", "kinplay.server", "--bind", f"127.0.0.1:{port}"], cwd=ROOT, env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    stop, answered = threading.Event(), [0]

    def client():
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        while not stop.is_set():
            connection.request("GET", args.path, headers={"Authorization": f"Token {token}"})
            answer = connection.getresponse()
            answer.read()
            assert answer.status == 200, answer.status
            answered[0] += 1

    try:
        wait_listening(server, port)
        worker = int(subprocess.run(["pgrep", "-P", str(server.pid)], capture_output=True, text=True).stdout.split()[0])
        clients = [threading.Thread(target=client, daemon=True) for _ in range(args.clients)]
        for c in clients:
            c.start()
        print(f"{args.clients} clients, one worker of {args.threads} threads: GET {args.path}")
        for elapsed in range(10, args.seconds + 1, 10):
            time.sleep(10)
            print(f"{elapsed:4d} s: {answered[0]:6,} requests, worker RSS {rss_mb(worker):,} MB", flush=True)
    finally:
        stop.set()
        server.terminate()
        server.wait(30)


def rss_mb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) // 1024
    return 0


if __name__ == "__main__":
    main()
