"""The API's throttles (settings REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]). Each reads its rate
when it is used, not when DRF is imported, so a changed setting takes effect at once.

A fixed window per scope and caller: one counter per rate period (a minute for "240/min"),
counted with one Redis command (kinplay.infra.cache.RedisCache.hit). DRF's own throttles keep
each caller's whole history of the period, read and written back pickled on every request,
a large share of a web worker's CPU per move. The price: a caller can squeeze
up to twice the rate into the seconds around a window's end.

A process counts a twentieth of the rate at once (Lease): the shared counter goes up by that
much, and the process lets the next requests of that caller through on its own until the lease
is used, so a busy caller costs one Redis round trip in twenty, not one a request (a round trip
is a sizeable part of a move's CPU). The price: what one process leased and did not use
still counts in the others, so a caller whose requests go to several processes may be refused
up to a twentieth of the rate early per process. Rates under 40 a period (sign-in's) count one
at a time, since a twentieth of them is one request at most.
"""

import logging
import threading
import time

from redis.exceptions import RedisError
from rest_framework import throttling
from rest_framework.settings import api_settings

log = logging.getLogger("kinplay.api")

# When the shared counters cannot be reached (Redis down or hung: each call is bounded by the
# cache's socket timeouts), requests are let through unthrottled for this long rather than
# failing or each waiting for the timeout: a hung Redis must not freeze the web tier.
CACHE_PAUSE = 30.0
_cache_down_until = 0.0


LEASE = 20  # a lease is the rate's twentieth


def hit(cache, key, seconds, many=1) -> int:
    """``many`` more requests on the counter ``key`` of ``cache``, which lives ``seconds``: the count so far."""
    if hasattr(cache, "hit"):  # kinplay.infra.cache.RedisCache: one round trip
        return cache.hit(key, seconds, many)
    cache.add(key, 0, seconds)  # other caches (tests' memory, development's files)
    return cache.incr(key, many)


class Lease:
    """The counts this process took on shared counters ahead of need, by counter and rate. A
    counter's key names its window, so an old window's leftovers are never asked for again;
    they go when the memory is full, least recently used first (each use moves a key last)."""

    MOST = 10_000

    def __init__(self):
        self.left: dict[tuple, int] = {}
        self.lock = threading.Lock()

    def take(self, key) -> bool:
        """One of the counts leased on ``key``, if any is left."""
        with self.lock:
            left = self.left.pop(key, 0)
            if left > 1:
                self.left[key] = left - 1
            return left > 0

    def keep(self, key, count) -> None:
        if count > 0:
            with self.lock:
                count += self.left.pop(key, 0)  # another thread of this process may have leased on it meanwhile
                if len(self.left) >= self.MOST:  # the least recently used goes: most likely an old window's
                    del self.left[next(iter(self.left))]
                self.left[key] = count


_lease = Lease()


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
        self.retry_after = (window + 1) * self.duration - now  # the next window
        key = f"{key}_{window}"
        if _lease.take((key, self.num_requests)):  # a changed rate leases anew
            return True
        many = max(1, self.num_requests // LEASE)
        try:
            count = hit(self.cache, key, self.duration + 1, many)
        except (RedisError, OSError) as exc:
            _cache_down_until = time.monotonic() + CACHE_PAUSE
            log.warning("throttle counters unreachable (%s): not throttling for %ss", exc, int(CACHE_PAUSE))
            return True
        first = count - many + 1  # this request's count; the rest of the lease follows it
        if first > self.num_requests:
            return False
        _lease.keep((key, self.num_requests), min(count, self.num_requests) - first)
        return True

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
# Redis round trip less per move; a player may then make "user" other
# requests and "moves" moves in a period.
MOVES = [AnonThrottle, MoveThrottle]
