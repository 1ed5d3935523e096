"""Sign-in: django-axes' lockout check for every sign-in that comes with a request (the login
page, the API token endpoint, the admin), then the password. Code that checks a password without
one (``Client.login`` in tests, a management command) is not a sign-in from an address, so there
is nothing to count.

A name is taken in any case, as player pages and invitations take it ("Alice" signs in alice):
names cannot differ by case alone (Profile.username_key), so it is always one account; and the
lockout counts the failures of a name in every case together (``lockout_name``).
"""

from axes.backends import AxesStandaloneBackend
from axes.conf import settings  # django.conf.settings with axes' defaults filled in (AXES_USERNAME_FORM_FIELD)
from django.contrib.auth import get_user_model
from django.contrib.auth.backends import ModelBackend


class LockoutBackend(AxesStandaloneBackend):
    def authenticate(self, request=None, username=None, password=None, **kwargs):
        if request is None:
            return None
        return super().authenticate(request, username, password, **kwargs)


class NameInAnyCaseBackend(ModelBackend):
    """Django's password check for a name typed in another case than its account's. Listed after
    ModelBackend, which takes the exact name (and sessions signed in by it keep working), so a
    password is checked once, or twice for a name in another case."""

    def authenticate(self, request, username=None, password=None, **kwargs):
        if username is None:
            return None
        # One query, whatever the name: an unknown one costs what a known one does (no enumeration).
        stored = list(get_user_model().objects.filter(username__iexact=username).values_list("username", flat=True)[:2])
        if len(stored) != 1 or stored[0] == username:
            return None  # none, or the exact name ModelBackend has answered for
        return super().authenticate(request, username=stored[0], password=password, **kwargs)


def lockout_name(request, credentials=None) -> str | None:
    """The name a sign-in's failures count against (settings.AXES_USERNAME_CALLABLE): the one
    typed, case-folded, so that "ALICE" and "alice" share one budget."""
    field = settings.AXES_USERNAME_FORM_FIELD
    typed = credentials.get(field) if credentials else getattr(request, "data", request.POST).get(field)
    return typed.casefold() if isinstance(typed, str) else typed
