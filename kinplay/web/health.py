"""Health of a web node, for a load balancer and a monitor (docs/deploy.md#health).

``/health/live``: the process answers requests (restart it if not). ``/health/ready``: it can
serve them, its database reachable (take it out of rotation if not). Redis is reported but does
not make a node unready: every node shares the one Redis, so an outage would take all of them
out of rotation, while a move is still played without it (throttles open, emails wait)."""

from django.core.cache import cache
from django.db import DatabaseError, connection
from django.http import JsonResponse
from django.views.decorators.cache import never_cache


@never_cache
def live(request):
    return JsonResponse({"status": "ok"})


@never_cache
def ready(request):
    checks = {"database": _database(), "redis": _redis()}
    ok = checks["database"] == "ok"
    return JsonResponse({"status": "ok" if ok else "down", **checks}, status=200 if ok else 503)


def _database() -> str:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
        return "ok"
    except DatabaseError as exc:
        return f"unreachable: {str(exc)[:200]}"


def _redis() -> str:
    ping = getattr(cache, "ping", None)
    if ping is None:
        return "not used"
    try:
        ping()
        return "ok"
    except Exception as exc:  # any client error: the answer is the same
        return f"unreachable: {str(exc)[:200]}"
