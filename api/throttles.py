"""The API's throttles (settings REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]). Each reads its rate
when it is used, not when DRF is imported, so a changed setting takes effect at once.

A fixed window per scope and caller: one counter per rate period (a minute for "240/min"),
counted with one Redis command (kinplay.cache.RedisCache.hit). DRF's own throttles keep
each caller's whole history of the period, read and written back pickled on every request:
about 12 % of a web worker's CPU per move in make bench-peer. The price: a caller can squeeze
up to twice the rate into the seconds around a window's end.
"""

import logging
import time

from redis.exceptions import RedisError
from rest_framework import throttling
from rest_framework.settings import api_settings

log = logging.getLogger("kinplay.api")

# When the shared counters cannot be reached (Redis down or hung: each call is bounded by the
# cache's socket timeouts), requests are let through unthrottled for this long rather than
# failing or each waiting for the timeout (issue 12: a hung Redis must not freeze the web tier).
CACHE_PAUSE = 30.0
_cache_down_until = 0.0


def hit(cache, key, seconds) -> int:
    """One more request on the counter ``key`` of ``cache``, which lives ``seconds``: the count so far."""
    if hasattr(cache, "hit"):  # kinplay.cache.RedisCache: one round trip
        return cache.hit(key, seconds)
    cache.add(key, 0, seconds)  # other caches (tests' memory, development's files)
    return cache.incr(key)


class _FixedWindow:
    retry_after = None

    def get_rate(self):
        return api_settings.DEFAULT_THROTTLE_RATES.get(self.scope)

    def allow_request(self, request, view):
        global _cache_down_until
        if self.rate is None or time.monotonic() < _cache_down_until:
            return True
        key = self.get_cache_key(request, view)
        if key is None:
            return True
        now = time.time()
        window = int(now // self.duration)
        try:
            count = hit(self.cache, f"{key}_{window}", self.duration + 1)
        except (RedisError, OSError) as exc:
            _cache_down_until = time.monotonic() + CACHE_PAUSE
            log.warning("throttle counters unreachable (%s): not throttling for %ss", exc, int(CACHE_PAUSE))
            return True
        self.retry_after = (window + 1) * self.duration - now  # the next window
        return count <= self.num_requests

    def wait(self):
        return self.retry_after


class AnonThrottle(_FixedWindow, throttling.AnonRateThrottle):
    """Strangers, per address."""


class UserThrottle(_FixedWindow, throttling.UserRateThrottle):
    """Players, per player."""


class AuthThrottle(_FixedWindow, throttling.SimpleRateThrottle):
    """Sign-in and registration, per address whoever is signed in: each password check is costly."""

    scope = "auth"

    def get_cache_key(self, request, view):
        return self.cache_format % {"scope": self.scope, "ident": self.get_ident(request)}


class MoveThrottle(_FixedWindow, throttling.UserRateThrottle):
    """Moves and resignations, per player."""

    scope = "moves"


DEFAULT = [AnonThrottle, UserThrottle]
AUTH = [*DEFAULT, AuthThrottle]
# A player's moves count against the moves budget only, not the general one as well: one
# Redis round trip less per move (about 5 % of its CPU); a player may then make "user" other
# requests and "moves" moves in a period.
MOVES = [AnonThrottle, MoveThrottle]
