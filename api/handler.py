"""The API's own WSGI handler: the site's middleware minus what /api/ never uses, and a move
sent with a token without any of it.

/api/ serves no static files (WhiteNoise) and shows no flash messages (MessageMiddleware builds
its cookie-and-session storage on every request). Everything else stays, in the same order:
security headers, sessions and AuthenticationMiddleware (DRF's SessionAuthentication reads
them and checks CSRF itself), CommonMiddleware (as SlashFirst: a 308), CsrfViewMiddleware (it still sets the cookie
the API docs page's "Try it out" needs), X-Frame-Options. kinplay/wsgi.py sends /api/ here.

A move (POST /api/games/<id>/actions/) with ``Authorization: Token ...`` and no cookie, the
commonest API request by far, skips the middleware (FastMoves): without a session or a CSRF
cookie there is nothing for it to do but add headers. The usual such move, a known player's
JSON action within their budget, is not handed to DRF either: FastMoves reads it with DRF's own
pieces (the token check, the throttles, the view's checks, the exception handler, the
renderer) and calls the view's service. Anything else, and every refusal before the service,
goes to the DRF view, which answers as it always has.
"""

import json
from importlib import import_module

import orjson
from django.conf import settings
from django.core.exceptions import RequestDataTooBig
from django.core.handlers.exception import convert_exception_to_response
from django.core.handlers.wsgi import WSGIHandler
from django.http import HttpResponse
from django.http.response import HttpResponseRedirectBase
from django.middleware.clickjacking import XFrameOptionsMiddleware
from django.middleware.common import CommonMiddleware
from django.middleware.security import SecurityMiddleware
from django.utils.http import escape_leading_slashes
from rest_framework import HTTP_HEADER_ENCODING, exceptions

from api.parsers import MAX_DEPTH, depth

PREFIX = "/api/"  # kinplay/urls.py
JSON_ONLY = {"", "*/*", "application/json"}  # Accept headers that leave DRF no choice but JSON
UNUSED = {"whitenoise.middleware.WhiteNoiseMiddleware", "django.contrib.messages.middleware.MessageMiddleware"}


COMMON = "django.middleware.common.CommonMiddleware"
SLASH_FIRST = "api.handler.SlashFirst"


def api_middleware(middleware):
    return [SLASH_FIRST if m == COMMON else m for m in middleware if m not in UNUSED]


class SlashRedirect(HttpResponseRedirectBase):
    """308, not Django's 301: an HTTP client follows a 301 to a POST with a GET (and gets a
    405 that says nothing of the slash); after a 308 it sends the same request again."""

    status_code = 308

    def __init__(self, url):
        super().__init__(url, content=json.dumps({"error": "trailing_slash", "detail": (
            f"The API's addresses end with a slash: {url} (this answer's Location; a client that "
            "follows it sends the same request there).")}), content_type="application/json")


class SlashFirst(CommonMiddleware):
    """CommonMiddleware for /api/: an address without its final slash is a 308 to the one with it."""

    response_redirect_class = SlashRedirect

    def get_full_path_with_slash(self, request):
        # Django refuses POST data here under DEBUG, as its 301 would lose it; a 308 does not.
        return escape_leading_slashes(request.get_full_path(force_append_slash=True))


class ApiHandler(WSGIHandler):
    def __init__(self, fast_moves=True):
        self.fast_moves = fast_moves  # False: every request through the middleware (tests compare)
        super().__init__()

    def load_middleware(self, is_async=False):
        # Django builds the chain from settings.MIDDLEWARE; it runs once, at start-up, before
        # any request, so the list is swapped for that moment only.
        full = settings.MIDDLEWARE
        settings.MIDDLEWARE = api_middleware(full)
        try:
            super().load_middleware(is_async)
        finally:
            settings.MIDDLEWARE = full
        if self.fast_moves and set(api_middleware(full)) == FastMoves.STANDS_IN_FOR:
            self._middleware_chain = FastMoves(self._middleware_chain)


class FastMoves:
    """Answers a move sent with a token and no cookie by its DRF view alone, as the middleware
    chain would: DRF still authenticates, throttles, parses, maps errors (api.errors) and
    renders; the middleware's response headers are added by the middleware's own code; a crash
    is a 500 by Django's own conversion (got_request_exception, logging, handler500). Any other
    request goes through the chain. Django's request signals are sent around both
    (WSGIHandler.__call__).

    It stands in for the middleware below, and for nothing else: with another list in
    settings.MIDDLEWARE, every request goes through the chain until this class is taught what
    the new one would do to a move."""

    STANDS_IN_FOR = {
        "django.middleware.security.SecurityMiddleware",  # asked first; its headers
        "django.contrib.sessions.middleware.SessionMiddleware",  # no cookie: no session
        SLASH_FIRST,  # asked first; Content-Length (a move's route has its slash)
        "django.middleware.csrf.CsrfViewMiddleware",  # no cookie and a csrf_exempt view: nothing to do
        "django.contrib.auth.middleware.AuthenticationMiddleware",  # DRF's token check sets the user
        "django.middleware.clickjacking.XFrameOptionsMiddleware",  # its header
        "axes.middleware.AxesMiddleware",  # acts on a locked-out sign-in only
    }

    def __init__(self, chain):
        import_module(settings.ROOT_URLCONF)  # the URL converters api/urls.py uses, the apps loaded
        from api import throttles
        from api.authentication import TokenAuthentication
        from api.renderers import JSONRenderer
        from api.urls import urlpatterns
        from api.views import game_action

        self.chain = chain
        self.tokens, self.renderer, self.throttles = TokenAuthentication(), JSONRenderer(), throttles.MOVES
        self.headers_of_view = game_action.cls().default_response_headers  # Allow and Vary, as DRF sets them
        # Its route alone, not the whole URL configuration: the same converter, a tenth of the time.
        self.route = next(p for p in urlpatterns if p.callback is game_action)
        security, common = SecurityMiddleware(chain), SlashFirst(chain)
        self.asked_first = [security, common]  # they may redirect or refuse
        self.headers = [XFrameOptionsMiddleware(chain), common, security]  # in the chain's order
        self.answer = convert_exception_to_response(self._view)

    def __call__(self, request):
        if not self._matches(request):
            return self.chain(request)
        response = self.answer(request)
        for middleware in self.headers:
            response = middleware.process_response(request, response)
        return response

    def _matches(self, request) -> bool:
        meta = request.META
        if request.method != "POST" or "HTTP_COOKIE" in meta:
            return False  # a cookie may carry a session (SessionAuthentication) or a CSRF token to renew
        if meta.get("HTTP_ACCEPT", "*/*") not in JSON_ONLY or (meta.get("QUERY_STRING") and request.GET.keys() - {"view"}):
            return False  # perhaps the browsable API (?format=api), whose page uses the session and CSRF
        # DRF's get_authorization_header, from META: request.headers copies every header (10 µs)
        auth = meta.get("HTTP_AUTHORIZATION", b"")
        auth = (auth.encode(HTTP_HEADER_ENCODING) if isinstance(auth, str) else auth).split()
        if not auth or auth[0].lower() != b"token":  # as DRF's TokenAuthentication reads it
            return False
        request.token = auth[1] if len(auth) == 2 else None
        path = request.path_info
        match = path.startswith(PREFIX) and self.route.resolve(path[len(PREFIX):])
        if not match:
            return False
        try:
            if any(m.process_request(request) is not None for m in self.asked_first):
                return False
        except Exception:  # a refused host or user agent: the chain answers as it always has
            return False
        request.resolver_match = match
        return True

    def _view(self, request):
        answer = self._usual(request)
        if answer is None:  # DRF's view reads it again, and refuses it or makes it as ever
            match = request.resolver_match
            answer = match.func(request, *match.args, **match.kwargs).render()
        return answer

    def _usual(self, request):
        """The usual move answered as game_action answers it (without DRF's request, negotiation
        and dispatch, about a sixth of a move's CPU), or None: not a usual move, or refused
        before the service (the token, the body, the options, the throttle)."""
        from api import errors, views

        if request.META.get("CONTENT_TYPE") != "application/json" or request.token is None:
            return None
        try:
            request.user = self.tokens.authenticate_credentials(request.token.decode())[0]
            data = orjson.loads(request.body)  # over DATA_UPLOAD_MAX_MEMORY_SIZE: RequestDataTooBig
        except (exceptions.AuthenticationFailed, UnicodeError, ValueError, RequestDataTooBig):
            return None
        options = views._command_options(request)
        if not views.usual_move(data) or depth(data) > MAX_DEPTH or not isinstance(options, tuple):
            return None
        # Counted as DRF counts: once this request gets past it (a refused one is counted again
        # by the view, past its limit already).
        if not all(throttle().allow_request(request, None) for throttle in self.throttles):
            return None
        try:
            body, code, headers = views.move(request.user, request.resolver_match.kwargs["id"], data, *options), 201, {}
        except Exception as exc:
            response = errors.handler(exc, {"request": request})
            if response is None:
                raise
            body, code = response.data, response.status_code
            headers = {name: value for name, value in response.items() if name != "Content-Type"}  # HttpResponse's default
        answer = HttpResponse(self.renderer.render(body), status=code, content_type="application/json")
        for name, value in (*self.headers_of_view.items(), *headers.items()):
            answer[name] = value
        return answer


class ByPath:
    """Sends /api/ to the API's handler and every other path to the site's."""

    def __init__(self, api, site, prefix=PREFIX):
        self.api, self.site, self.prefix = api, site, prefix

    def __call__(self, environ, start_response):
        handler = self.api if environ.get("PATH_INFO", "").startswith(self.prefix) else self.site
        return handler(environ, start_response)
