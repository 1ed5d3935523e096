import gc
import os
from wsgiref.types import WSGIApplication

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "kinplay.settings")
django_app = get_wsgi_application()  # sets Django up; every request, /api/ and pages, runs settings.MIDDLEWARE

from django.urls import get_resolver  # noqa: E402  (needs Django set up)

from kinplay.server import RequestOnly, collect_young, leave_out_idle_receivers  # noqa: E402

application: WSGIApplication = RequestOnly(django_app)
leave_out_idle_receivers()  # of the request signals, those with nothing to do in this process

if os.environ.get("KP_CPU_SPLIT"):  # bench/cpu_split.py: each worker's CPU by request kind
    from bench.cpu_split import Split

    application = Split(application)

# Before the first request, not in it: Django imports the URLconf lazily, at a process's first
# request (0.3 s of CPU: the views, DRF, drf-spectacular). Then Django's objects leave the
# collector's sight: a full collection walks only what requests allocate (a pause in the p99).
get_resolver().url_patterns  # noqa: B018 (reading the property imports the URLconf)
gc.freeze()
collect_young()  # no collection during a request: RequestOnly collects once none is in flight
