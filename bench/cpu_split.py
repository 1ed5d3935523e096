#!/usr/bin/env python3
"""Where a gunicorn worker's CPU goes, by request kind (issue 18): gunicorn.conf.py loads these
hooks when KP_CPU_SPLIT names a folder, as make bench-peer or bench/api.py start gunicorn.

    KP_CPU_SPLIT=/tmp/split .venv/bin/python bench/peer/run.py --only kinplay --seconds 8
    .venv/bin/python bench/cpu_split.py /tmp/split

Each request's thread CPU (time.thread_time, from gunicorn's pre_request to post_request: the
Django application and the writing of the answer) is summed per kind; each worker writes its
sums and its whole process CPU when it exits. What no request thread spent is gunicorn's own:
reading and parsing requests, its poll loop, keep-alive bookkeeping, the heartbeat, start-up.
The sums cover the whole run (warm-up included), not only the measured window.
"""

from __future__ import annotations

import json
import os
import sys
import threading
import time
from pathlib import Path

_local = threading.local()
_sums: dict[str, list] = {}
_lock = threading.Lock()


def kind(method: str, path: str) -> str:
    if path.endswith("/actions/"):
        return f"{method} move"
    return f"{method} {'new game' if path == '/api/games/' else 'other'}"


def pre_request(worker, req):
    _local.started = time.thread_time()


def post_request(worker, req, environ, resp):
    spent = time.thread_time() - _local.started
    with _lock:
        sums = _sums.setdefault(kind(req.method, req.path), [0, 0.0])
        sums[0] += 1
        sums[1] += spent


def worker_exit(server, worker):
    path = Path(os.environ["KP_CPU_SPLIT"]) / f"{os.getpid()}.json"
    path.write_text(json.dumps({"requests": _sums, "process": time.process_time()}))


def main(folder: str) -> None:
    sums: dict[str, list] = {}
    process = 0.0
    for f in Path(folder).glob("*.json"):
        data = json.loads(f.read_text())
        process += data["process"]
        for k, (n, s) in data["requests"].items():
            total = sums.setdefault(k, [0, 0.0])
            total[0] += n
            total[1] += s
    moves = sums.get("POST move", [0, 0.0])[0]
    if not moves:
        sys.exit("no moves recorded")
    print(f"workers' CPU over {moves} moves, per move:")
    for k, (n, s) in sorted(sums.items()):
        print(f"  {k:14} {1000 * s / moves:6.2f} ms   ({n} requests, {1000 * s / n:.2f} ms each)")
    rest = process - sum(s for _, s in sums.values())
    print(f"  {'gunicorn':14} {1000 * rest / moves:6.2f} ms   (outside any request's thread)")
    print(f"  {'total':14} {1000 * process / moves:6.2f} ms")


if __name__ == "__main__":
    main(sys.argv[1])
