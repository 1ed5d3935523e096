"""/health/scheduling: are deadlines being applied? For a monitor, not a load balancer: a late
sweep means beat or the deadline workers are down, which no web node can fix
(docs/deploy.md#health)."""

from django.db import DatabaseError
from django.http import JsonResponse
from django.utils import timezone
from django.views.decorators.cache import never_cache

from kinplay.clocks.beat import LEASE
from kinplay.clocks.models import Heartbeat, Lease

STALE_AFTER = 60  # seconds without a completed sweep: deadlines are not being applied


@never_cache
def scheduling(request):
    try:
        last, lease = Heartbeat.last("sweep"), Lease.current(LEASE)
    except DatabaseError as exc:
        return JsonResponse({"status": "down", "error": "database", "detail": str(exc)[:200]}, status=503)
    age = (timezone.now() - last).total_seconds() if last else None
    ok = age is not None and age <= STALE_AFTER
    return JsonResponse({
        "status": "ok" if ok else "stale",
        "last_sweep": last.isoformat() if last else None,
        "sweep_age_seconds": round(age, 1) if age is not None else None,
        "scheduler": lease["holder"] if lease else None,
        "detail": None if ok else f"no deadline sweep completed in the last {STALE_AFTER} s: is the worker or beat down?",
    }, status=200 if ok else 503)
