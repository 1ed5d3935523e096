"""The web server: granian (HTTP in Rust) serving kinplay.wsgi, for bin/run and the benches alike.

    .venv/bin/python -m kinplay.server [--bind 0.0.0.0:8000] [--access-log] [--app kinplay.wsgi:application]

granian reads and writes HTTP in Rust, so no Python runs for the protocol and a move costs
less CPU than under a Python server (bench/README.md has the figures; production:
docs/deploy.md#what-production-needs). Several processes spread the load over the cores (one
process is held to one core by the GIL); two threads each let one wait on the database while
the other computes (more threads add contention, not throughput). WEB_WORKERS and WEB_THREADS
override. Keep-alive: a client's connection stays open between its requests. What a Python
WSGI server would do that granian does not is done elsewhere:

- the request's keys only in Django's environ, never the process environment granian copies
  into every request (RequestOnly);
- the URLconf imported and Django's objects frozen out of the collector's sight before the
  first request (kinplay.wsgi; granian has no preload or post-fork hooks);
- limits: granian reads a request's head into a buffer of HEAD_BYTES, which may grow to
  twice that: a longer head gets 431, a target over 64 KB 414; and a client gets IDLE_MS to
  send a head, after connecting or between two requests.

Stop it by signalling its main process (SIGTERM or SIGINT), which stops the workers: when the
workers get the signal too (a terminal's Ctrl-C to the whole process group, systemd's default
KillMode), one sometimes holds up its stop until granian kills it, WORKERS_KILL_S later
(granian 2.8.7). bin/run starts the server in a process group of its own and forwards Ctrl-C;
under systemd, use KillMode=mixed.

granian maps a header spelled with underscores (``X_Forwarded_For``) onto the one with dashes,
so a client could forge a trusted one: behind PROXY_COUNT trusted proxies, the proxy must drop
such headers, as nginx does by default (``underscores_in_headers off``;
docs/deploy.md#what-production-needs). Behind the internet, put a buffering proxy such as
nginx in front.
"""

from __future__ import annotations

import argparse
import gc
import os
import threading

from granian import Granian
from granian.constants import HTTPModes, Interfaces
from granian.http import HTTP1Settings
from granian.log import LogLevels

HEAD_BYTES = 64 * 1024
IDLE_MS = 5_000
WORKERS_KILL_S = 30
# New container objects (net) that start an automatic collection of the youngest generation
# (CPython's default: 700): a request's objects stay young until RequestOnly collects them.
YOUNG_THRESHOLD = 10_000
# Idle collections between two of the whole heap (a few ms): what outlived the requests that
# made it and became garbage later (a closed connection's objects, say) is freed too.
FULL_EVERY = 1_000


class RequestOnly:
    """What the application (kinplay.wsgi) needs from granian, done around it:

    - the request's own keys only. granian starts every request's environ from a copy of the
      process environment (granian/wsgi.py), which Django would put in request.META:
      DATABASE_URL with its password, SECRET_KEY, EMAIL_URL, where an error report shows what
      it does not know to hide; and an HTTP_PROXY there would read as the request's Proxy
      header (httpoxy). So every variable of the process environment leaves the environ,
      unless the request set the key to another value (a header equal to a variable goes too:
      a request may not tell one from the other);
    - an answer already in memory (not streaming) handed over as one piece of bytes: granian
      sends a list at once, and iterates anything else from Rust, chunk by chunk. The answer
      is closed first (Django's request_finished), as the server would after sending it;
    - the requests' reference cycles freed once they have ended, by a collection of the two
      young generations whenever the last request in flight in this process ends (with
      collect_young's threshold, no automatic pass runs during a request). A page that reads
      games with their seats leaves cycles behind (Django's prefetch: each seat points to its
      game, the game to its list of seats; DRF's request, view and response point to each
      other). With CPython's default thresholds the objects of a request still running are
      collected several times and so reach the oldest generation, where a full collection
      frees dozens of requests' garbage at once in the middle of a later request: the pauses
      at the lists' p99. Collected young, the requests pay for their own garbage, in a third
      of the collector's time or less (bench/bigdata.py, with and without --default-gc). Not while
      another thread's request runs: its live objects would be moved to the oldest generation,
      and its garbage left there. Every FULL_EVERY idle collections the whole heap is
      collected; a worker that is never idle falls back on CPython's own passes, every
      YOUNG_THRESHOLD new objects.
    """

    def __init__(self, app, process_env=None, *, collect=True):
        self.app = app
        self.process = tuple((os.environ if process_env is None else process_env).items())
        self.collect = collect  # False: CPython's own passes only (bench/bigdata.py --default-gc)
        self.running = 0  # requests in flight in this process (granian's threads)
        self.counting = threading.Lock()

    def __call__(self, environ, start_response):
        for key, value in self.process:
            if environ.get(key) == value:
                del environ[key]
        with self.counting:
            self.running += 1
        try:
            return self.answer(environ, start_response)
        finally:
            with self.counting:
                self.running -= 1
                idle = not self.running
            if idle and self.collect:  # gc.get_count()[2]: young collections since the last full one
                gc.collect(2 if gc.get_count()[2] >= FULL_EVERY else 1)

    def answer(self, environ, start_response):
        answer = self.app(environ, start_response)
        if getattr(answer, "streaming", True):
            return answer
        try:
            return [answer.content]
        finally:
            answer.close()


def leave_out_idle_receivers() -> None:
    """Disconnects the receivers of Django's request signals that have nothing to do in the
    web server (kinplay.wsgi): every request would spend time finding the connections and
    caches to do nothing to. The signals are still sent, and
    close_old_connections still closes and checks connections as CONN_MAX_AGE and
    CONN_HEALTH_CHECKS say.

    - close_caches calls every cache's close(), which does nothing unless the backend has one
      of its own (memcached's): Redis's and the file-based one's are BaseCache's;
    - reset_queries empties every connection's query log, which stays empty unless DEBUG is on
      or a connection's force_debug_cursor (only tests set it: CaptureQueriesContext).
    """
    # deferred: the server's own process starts without Django; only a worker's kinplay.wsgi calls this
    from django.conf import settings as django
    from django.core.cache import close_caches
    from django.core.cache.backends.base import BaseCache
    from django.core.signals import request_finished, request_started
    from django.db import reset_queries
    from django.utils.module_loading import import_string

    if all(import_string(cache["BACKEND"]).close is BaseCache.close for cache in django.CACHES.values()):
        request_finished.disconnect(close_caches)
    if not django.DEBUG:
        request_started.disconnect(reset_queries)


def collect_young() -> None:
    """Sets the collector's threshold for a web worker, whose RequestOnly collects the young
    generations whenever it has answered every request in flight."""
    gc.set_threshold(YOUNG_THRESHOLD, *gc.get_threshold()[1:])


def settings() -> dict:
    """granian's settings, from the environment as bin/run sets it."""
    return {
        "interface": Interfaces.WSGI, "http": HTTPModes.http1, "websockets": False,
        "workers": int(os.environ.get("WEB_WORKERS") or os.cpu_count() or 1),
        "blocking_threads": int(os.environ.get("WEB_THREADS") or 2),
        "http1_settings": HTTP1Settings(header_read_timeout=IDLE_MS, max_buffer_size=HEAD_BYTES),
        "respawn_failed_workers": True,  # a worker that dies is replaced
        "workers_kill_timeout": WORKERS_KILL_S,  # at shutdown, the longest a request may still take
        "log_level": LogLevels.warning,
    }


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bind", default="127.0.0.1:8000", help="HOST:PORT (default 127.0.0.1:8000)")
    ap.add_argument("--access-log", action="store_true", help="log each request on standard output")
    ap.add_argument("--app", default="kinplay.wsgi:application", help="the WSGI application (bench/peer/floor.py's own)")
    args = ap.parse_args(argv)
    host, _, port = args.bind.rpartition(":")
    if not host or not port.isdigit():
        ap.error(f"--bind takes HOST:PORT, not {args.bind!r}")
    Granian(args.app, address=host, port=int(port), log_access=args.access_log, **settings()).serve()


if __name__ == "__main__":
    main()
