"""The API's throttles (settings REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]). Each reads its rate
when it is used, not when DRF is imported, so a changed setting takes effect at once."""

from rest_framework import throttling
from rest_framework.settings import api_settings


class _LiveRate:
    def get_rate(self):
        return api_settings.DEFAULT_THROTTLE_RATES.get(self.scope)


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
