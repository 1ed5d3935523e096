"""django-axes' lockout check for every sign-in that comes with a request (the login page, the
API token endpoint, the admin). Code that checks a password without one (``Client.login`` in
tests, a management command) is not a sign-in from an address, so there is nothing to count."""

from axes.backends import AxesStandaloneBackend


class LockoutBackend(AxesStandaloneBackend):
    def authenticate(self, request=None, username=None, password=None, **kwargs):
        if request is None:
            return None
        return super().authenticate(request, username, password, **kwargs)
