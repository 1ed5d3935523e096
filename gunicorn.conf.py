"""gunicorn's settings, for bin/run and bench/api.py alike (gunicorn reads this file itself
when started from the project folder).

Threaded workers with keep-alive: a client's connection stays open between its requests, so a
move pays no TCP connect, accept and close and no new request cycle of its own. Sync workers
close every connection; on a shared 2-core machine, alternating runs of bench/api.py gave
sync 3 workers 5.8-8.5 ms of CPU per move and 52-108 moves/s against 3 x 2 threads' 3.9-4.8 ms
and 140-200 moves/s (issue 18; `make bench-peer` compares with boardgame.io). Several
processes still spread the load over the cores (one process is held to one core by the GIL),
two threads each let one wait on the database while the other computes; more threads per
process measured worse (2 x 4: 5.5 ms, 84 moves/s). WEB_WORKERS and WEB_THREADS override.
Behind the internet, put a buffering proxy (nginx) in front, as gunicorn advises.
"""

import os

workers = int(os.environ.get("WEB_WORKERS") or (os.cpu_count() or 1) + 1)
threads = int(os.environ.get("WEB_THREADS") or 2)
worker_class = "gthread"
keepalive = 5  # seconds an idle client's connection stays open for its next request
# Django loads once, in the master, before the fork: every worker is ready at the same moment,
# so the first connections do not all go to the first worker to finish importing (a kept-alive
# connection stays with the worker that accepted it). No database connection is opened while
# loading. A code change needs a restart (HUP reloads settings, not code).
preload_app = os.environ.get("WEB_PRELOAD", "true") != "false"
loglevel = "warning"


def when_ready(server):
    """With preload_app, load the URLconf in the master too: Django imports it lazily, at a
    process's first request, which cost each worker 0.3 s of CPU in that request (the views,
    DRF, drf-spectacular), and the workers now share the imported modules."""
    if server.cfg.preload_app:
        from django.urls import get_resolver

        get_resolver().url_patterns  # noqa: B018 (reading the property imports the URLconf)


def post_worker_init(worker):
    """Once Django is loaded, move its objects out of the collector's sight: a full collection
    then walks only what requests allocate, not the whole framework (a pause in the p99)."""
    import gc

    gc.freeze()

if os.environ.get("KP_CPU_SPLIT"):  # bench/cpu_split.py: each worker's CPU by request kind
    from bench.cpu_split import post_request, pre_request, worker_exit  # noqa: F401
