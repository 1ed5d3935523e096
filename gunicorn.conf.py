"""gunicorn's settings, for bin/run and bench/api.py alike (gunicorn reads this file itself
when started from the project folder).

Sync workers: each process takes a connection only when it is free, so requests spread
evenly over the cores. Threaded workers let one process take every keep-alive connection
that arrives at once, and that process is held to one core by the GIL (bench/api.py measured
both: 4 x 2 threads ran at 60 % of the machine). One worker per core, plus one to use the
time another waits on the database. Behind the internet, put a buffering proxy (nginx) in
front, as gunicorn advises for sync workers.
"""

import os

workers = int(os.environ.get("WEB_WORKERS") or (os.cpu_count() or 1) + 1)
worker_class = "sync"
loglevel = "warning"


def post_worker_init(worker):
    """Once Django is loaded, move its objects out of the collector's sight: a full collection
    then walks only what requests allocate, not the whole framework (a pause in the p99)."""
    import gc

    gc.freeze()
