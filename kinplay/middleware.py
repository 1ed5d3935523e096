"""The site's middleware where /api/ and the pages need different things (settings.MIDDLEWARE
names these classes; every request, a move too, runs that one list).

/api/ serves no static files and shows no flash messages: WhiteNoise looks every path up in its
table of files, and MessageMiddleware builds its cookie-and-session storage on every request,
for nothing there (a large share of the CPU of a small API request such as GET /api/kinds/).
So an /api/ request passes those two straight on (PagesOnly). An
address without its final slash is Django's 301 for a page, a 308 for /api/ (SlashFirst).
Everything else (security headers, sessions, CSRF, authentication, X-Frame-Options, axes'
lockout) runs for every request: DRF's SessionAuthentication reads the session and checks CSRF
itself, and CsrfViewMiddleware sets the cookie the API docs page's "Try it out" needs.
"""

import json

from django.contrib.messages.middleware import MessageMiddleware
from django.http import Http404, HttpResponseBadRequest, JsonResponse
from django.http.response import HttpResponseRedirectBase
from django.middleware import common
from django.utils.http import escape_leading_slashes
from whitenoise.middleware import WhiteNoiseMiddleware

API = "/api/"  # kinplay/urls.py


def is_api(request) -> bool:
    return request.path_info.startswith(API)


class PagesOnly:
    """Mixed in before a middleware class: an /api/ request passes it straight on. A subclass,
    not a wrapper, so that what asks for the middleware by class (the admin's checks) finds it."""

    async_capable = False  # the site is served by WSGI

    def __call__(self, request):
        if is_api(request):
            return self.get_response(request)
        return super().__call__(request)


class WhiteNoise(PagesOnly, WhiteNoiseMiddleware):
    pass


class Messages(PagesOnly, MessageMiddleware):
    pass


class SlashRedirect(HttpResponseRedirectBase):
    """308, not Django's 301: an HTTP client follows a 301 to a POST with a GET (and gets a
    405 that says nothing of the slash); after a 308 it sends the same request again."""

    status_code = 308

    def __init__(self, url):
        super().__init__(url, content=json.dumps({"error": "trailing_slash", "detail": (
            f"The API's addresses end with a slash: {url} (this answer's Location; a client that "
            "follows it sends the same request there).")}), content_type="application/json")


class SlashFirst(common.CommonMiddleware):
    """CommonMiddleware for /api/: an address without its final slash is a 308 to the one with it."""

    response_redirect_class = SlashRedirect

    def get_full_path_with_slash(self, request):
        # Django refuses POST data here under DEBUG, as its 301 would lose it; a 308 does not.
        return escape_leading_slashes(request.get_full_path(force_append_slash=True))


class CommonMiddleware(common.CommonMiddleware):
    """Django's CommonMiddleware for the pages, SlashFirst for /api/."""

    async_capable = False

    def __init__(self, get_response):
        super().__init__(get_response)
        self.api = SlashFirst(get_response)

    def __call__(self, request):
        if is_api(request):
            return self.api(request)
        return super().__call__(request)


class NoNul:
    """A NUL character cannot be stored in a PostgreSQL text column (SQLite takes it), so a path
    or query value holding one names nothing, whatever view it reaches: a path is a 404 and a
    query a 400, before any lookup. Bodies go through serializers and forms, whose text fields
    refuse NUL themselves (Django's and DRF's ProhibitNullCharactersValidator); a cookie cannot
    carry one (tests/api/test_nul.py)."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if "\x00" in request.path_info:
            raise Http404("no such address")
        query = request.META.get("QUERY_STRING", "")
        if "%00" in query or "\x00" in query:
            if is_api(request):
                return JsonResponse({"error": "malformed", "detail": "A query value holds a NUL character."}, status=400)
            return HttpResponseBadRequest("A query value holds a NUL character.")
        return self.get_response(request)
