"""The test suite's settings: kinplay.settings with a throwaway key and limits that let the
tests run (the throttling tests set their own rates)."""

import os

# Set in the environment so that a Celery worker the tests start (tests/services) has it too.
os.environ.setdefault("SECRET_KEY", "tests-only-" + "k" * 50)

from kinplay.settings import *  # noqa: E402,F403

REST_FRAMEWORK = {**REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": {  # noqa: F405
    "anon": "100000/min", "user": "100000/min", "auth": "100000/min", "moves": "100000/min"}}
# Each test process keeps its own counters, so parallel runs (xdist) do not throttle each other.
CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
