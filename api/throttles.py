"""The API's throttles (settings REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]). Each reads its rate
when it is used, not when DRF is imported, so a changed setting takes effect at once."""

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


class _LiveRate:
    def get_rate(self):
        return api_settings.DEFAULT_THROTTLE_RATES.get(self.scope)

    def allow_request(self, request, view):
        global _cache_down_until
        if time.monotonic() < _cache_down_until:
            return True
        try:
            return super().allow_request(request, view)
        except (RedisError, OSError) as exc:
            _cache_down_until = time.monotonic() + CACHE_PAUSE
            log.warning("throttle counters unreachable (%s): not throttling for %ss", exc, int(CACHE_PAUSE))
            return True


class AnonThrottle(_LiveRate, throttling.AnonRateThrottle):
    """Strangers, per address."""


class UserThrottle(_LiveRate, throttling.UserRateThrottle):
    """Players, per player."""


class AuthThrottle(_LiveRate, throttling.SimpleRateThrottle):
    """Sign-in and registration, per address whoever is signed in: each password check is costly."""

    scope = "auth"

    def get_cache_key(self, request, view):
        return self.cache_format % {"scope": self.scope, "ident": self.get_ident(request)}


class MoveThrottle(_LiveRate, throttling.UserRateThrottle):
    """Moves and resignations, per player."""

    scope = "moves"


DEFAULT = [AnonThrottle, UserThrottle]
AUTH = [*DEFAULT, AuthThrottle]
MOVES = [*DEFAULT, MoveThrottle]
