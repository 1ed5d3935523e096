"""Work started in several threads at once, for the tests of races (each thread its own
database connection, as each request or worker has)."""

import threading
import traceback

from django.db import connections


def run_together(n, work):
    """Run ``work(i)`` in ``n`` threads released at the same instant; returns the results
    (a value, or the exception raised) in thread order. Every thread closes its connection."""
    barrier = threading.Barrier(n)
    results: list = [None] * n

    def target(i):
        try:
            barrier.wait(timeout=30)
            results[i] = work(i)
        except BaseException as exc:  # noqa: BLE001 - reported to the test thread
            exc.trace = traceback.format_exc()
            results[i] = exc
        finally:
            connections.close_all()

    threads = [threading.Thread(target=target, args=(i,), name=f"submitter-{i}") for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert not any(t.is_alive() for t in threads), "a submitting thread hung"
    return results


def unexpected(results, *allowed):
    """The traces of the exceptions among ``results`` that are none of ``allowed``."""
    return [getattr(r, "trace", repr(r)) for r in results if isinstance(r, BaseException) and not isinstance(r, allowed)]
