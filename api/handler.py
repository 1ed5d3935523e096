"""The API's own WSGI handler: the site's middleware minus what /api/ never uses.

/api/ serves no static files (WhiteNoise) and shows no flash messages (MessageMiddleware builds
its cookie-and-session storage on every request). Everything else stays, in the same order:
security headers, sessions and AuthenticationMiddleware (DRF's SessionAuthentication reads
them and checks CSRF itself), CommonMiddleware, CsrfViewMiddleware (it still sets the cookie
the API docs page's "Try it out" needs), X-Frame-Options. kinplay/wsgi.py sends /api/ here.
"""

from django.conf import settings
from django.core.handlers.wsgi import WSGIHandler

UNUSED = {"whitenoise.middleware.WhiteNoiseMiddleware", "django.contrib.messages.middleware.MessageMiddleware"}


def api_middleware(middleware):
    return [m for m in middleware if m not in UNUSED]


class ApiHandler(WSGIHandler):
    def load_middleware(self, is_async=False):
        # Django builds the chain from settings.MIDDLEWARE; it runs once, at start-up, before
        # any request, so the list is swapped for that moment only.
        full = settings.MIDDLEWARE
        settings.MIDDLEWARE = api_middleware(full)
        try:
            super().load_middleware(is_async)
        finally:
            settings.MIDDLEWARE = full


class ByPath:
    """Sends /api/ to the API's handler and every other path to the site's."""

    def __init__(self, api, site, prefix="/api/"):
        self.api, self.site, self.prefix = api, site, prefix

    def __call__(self, environ, start_response):
        handler = self.api if environ.get("PATH_INFO", "").startswith(self.prefix) else self.site
        return handler(environ, start_response)
