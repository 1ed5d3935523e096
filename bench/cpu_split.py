#!/usr/bin/env python3
"""Where a web worker's CPU goes, by request kind (issue 18): kinplay/wsgi.py wraps the
application in ``Split`` when KP_CPU_SPLIT names a folder, as make bench-peer or bench/api.py
start the server.

    KP_CPU_SPLIT=/tmp/split .venv/bin/python bench/peer/run.py --only kinplay --seconds 8
    .venv/bin/python bench/cpu_split.py /tmp/split

Each request's thread CPU (time.thread_time around the WSGI application: Django and the
building of the answer) is summed per kind; each worker writes its sums and its whole process
CPU to a file of its own every second. What no request thread spent is the server's own:
reading and parsing requests, writing answers, its event loop, keep-alive bookkeeping,
the import of the application excepted. The sums cover the whole run from each worker's first
request (warm-up included), not only the measured window, and end at the worker's last write
(up to a second before it stopped).
"""

from __future__ import annotations

import json
import os
import sys
import threading
import time
from pathlib import Path


def kind(method: str, path: str) -> str:
    if path.endswith("/actions/"):
        return f"{method} move"
    return f"{method} {'new game' if path == '/api/games/' else 'other'}"


class Split:
    """The WSGI application, timed by request kind."""

    def __init__(self, app):
        self.app, self.lock, self.sums, self.written = app, threading.Lock(), {}, time.monotonic()
        self.before = None  # the process's CPU at its first request: start-up (Django, the URLconf) is not counted

    def __call__(self, environ, start_response):
        if self.before is None:
            self.before = time.process_time()
        started = time.thread_time()
        answer = self.app(environ, start_response)
        spent = time.thread_time() - started
        with self.lock:
            sums = self.sums.setdefault(kind(environ["REQUEST_METHOD"], environ.get("PATH_INFO", "")), [0, 0.0])
            sums[0] += 1
            sums[1] += spent
            if time.monotonic() - self.written > 1:
                self.written = time.monotonic()
                path = Path(os.environ["KP_CPU_SPLIT"]) / f"{os.getpid()}.json"
                path.write_text(json.dumps({"requests": self.sums, "process": time.process_time() - self.before}))
        return answer


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
    print(f"  {'server':14} {1000 * rest / moves:6.2f} ms   (outside any request's thread)")
    print(f"  {'total':14} {1000 * process / moves:6.2f} ms")


if __name__ == "__main__":
    main(sys.argv[1])
