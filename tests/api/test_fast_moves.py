"""api/handler.py's FastMoves: a move sent with a token is answered without the middleware
chain, and nothing a client can see tells the two paths apart."""

import io
import json
from datetime import UTC, datetime
from wsgiref.util import setup_testing_defaults

import pytest
import time_machine
from django.core.cache import cache
from django.core.signals import got_request_exception, request_finished, request_started
from django.db import transaction

from api import authentication
from api.handler import ApiHandler, FastMoves
from games import services

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _keep_the_test_connection():
    """As Django's test client does: the request signals must not close the test's transaction."""
    from django.db import close_old_connections

    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    yield
    request_started.connect(close_old_connections)
    request_finished.connect(close_old_connections)


def send(handler, path, method="POST", body=None, raw=None, content_type="application/json", **headers):
    path, _, query = path.partition("?")
    environ = {"PATH_INFO": path, "QUERY_STRING": query, "REQUEST_METHOD": method, "SERVER_NAME": "testserver", "HTTP_HOST": "testserver"}
    setup_testing_defaults(environ)
    data = raw if raw is not None else json.dumps(body).encode() if body is not None else b""
    environ.update({"wsgi.input": io.BytesIO(data), "CONTENT_LENGTH": str(len(data)), "CONTENT_TYPE": content_type,
                    **headers})
    out = {}

    def start_response(status, response_headers, exc_info=None):
        out["status"], out["headers"] = status, sorted(response_headers)

    answer = handler(environ, start_response)
    content = b"".join(answer)
    answer.close()  # request_finished, as a WSGI server does
    return out["status"], out["headers"], content


class Rollback(Exception):
    pass


def answers(handler, steps):
    """Each step's (status, headers, body), from the same database, counters and clock; the
    changes are undone after."""
    cache.clear()  # the throttles' counters
    authentication.forget()
    with time_machine.travel(datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC), tick=False):
        try:
            with transaction.atomic():
                out = [step(handler) for step in steps]
                raise Rollback
        except Rollback:
            pass
    return out


def token(user):
    from rest_framework.authtoken.models import Token

    return f"Token {Token.objects.get_or_create(user=user)[0].key}"


@pytest.fixture
def game(alice, bob):
    game = services.create_game(creator=alice, kind="knonsters", options={}, seats=[{"user": "alice"}, {"user": "bob"}],
                                per_move=None)
    services.accept_invitation(game.pk, bob)
    return game


def test_a_move_with_a_token_is_answered_alike_on_both_paths(game, alice, bob, charlie, settings):
    from games import selectors

    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 4000
    game.refresh_from_db()
    url = f"/api/games/{game.pk}/actions/"
    action = selectors.game_for(game, alice)["legal_actions"][0]["action"]

    def move(who, body, **headers):
        return lambda handler: send(handler, url, body=body, HTTP_AUTHORIZATION=who, **headers)

    def deactivate(user):
        def step(handler):
            user.is_active = False
            user.save()
        return step

    a, b, c = token(alice), token(bob), token(charlie)
    steps = [
        move(a, {"action": action, "expected_version": game.version}),  # 201
        move(b, {"action": action, "expected_version": game.version}),  # stale: 409
        move(b, {"action": {"type": "teleport"}}),  # illegal: 400
        move(c, {"action": action}),  # no seat: 403
        move(a, {"action": action}),  # alice has chosen: not hers to move
        move("Token nope", {"action": action}),  # 401
        move("Token", {"action": action}),  # 401, no key
        lambda handler: send(handler, url, raw=b"{not json", HTTP_AUTHORIZATION=b),  # 400
        lambda handler: send(handler, url, raw=b"action=x", content_type="text/plain", HTTP_AUTHORIZATION=b),  # 415
        lambda handler: send(handler, url, body={"action": action, "pad": "x" * 5000}, HTTP_AUTHORIZATION=b),  # 413
        move(b, {"action": action}, HTTP_IDEMPOTENCY_KEY="k-1"),  # 201
        move(b, {"action": action}, HTTP_IDEMPOTENCY_KEY="k-1"),  # the same 201 again
        move(b, {"action": {"type": "teleport"}}, HTTP_IDEMPOTENCY_KEY="k-1"),  # reused: 422
        move(b, {"action": action}, HTTP_IDEMPOTENCY_KEY="k" * 1000),  # too long: 400
        lambda handler: send(handler, url + "?view=none", body={"action": action}, HTTP_AUTHORIZATION=a),  # 201
        deactivate(charlie),
        move(c, {"action": action}),  # inactive: 401
    ]
    fast, full = answers(ApiHandler(), steps), answers(ApiHandler(fast_moves=False), steps)
    assert fast == full
    statuses = [a[0][:3] for a in fast if a is not None]
    assert statuses == ["201", "409", "400", "403", "400", "401", "401", "400", "415", "413", "201", "201", "422", "400", "201", "401"]
    headers = dict(fast[0][1])
    assert headers["Content-Length"] == str(len(fast[0][2])) and headers["X-Frame-Options"] == "DENY" and headers["X-Content-Type-Options"] == "nosniff"
    assert set(headers["Allow"].split(", ")) == {"POST", "OPTIONS"} and headers["Content-Type"] == "application/json"
    assert dict(fast[5][1])["WWW-Authenticate"] == "Token"


def test_a_throttled_move_is_answered_alike_on_both_paths(game, alice, settings):
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": {
        **settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"], "moves": "2/min"}}
    step = lambda handler: send(handler, f"/api/games/{game.pk}/actions/", body={"action": {"type": "teleport"}},  # noqa: E731
                                HTTP_AUTHORIZATION=token(alice))
    fast, full = answers(ApiHandler(), [step] * 3), answers(ApiHandler(fast_moves=False), [step] * 3)
    assert fast == full
    assert [a[0][:3] for a in fast] == ["400", "400", "429"] and "Retry-After" in dict(fast[2][1])


@pytest.fixture
def crashing(monkeypatch):
    """A handler whose fast path crashes: whatever still succeeds went through the chain."""
    def crash(self, request):
        raise RuntimeError("boom")

    monkeypatch.setattr(FastMoves, "_view", crash)
    return ApiHandler()


def test_a_crash_on_the_fast_path_is_the_api_s_logged_500(crashing, game, alice):
    seen = []
    signals = [(got_request_exception, "exception"), (request_started, "started"), (request_finished, "finished")]
    receivers = [lambda sender, name=name, **kwargs: seen.append(name) for _, name in signals]
    for (signal, _), receiver in zip(signals, receivers, strict=True):
        signal.connect(receiver)
    try:
        status, headers, content = send(crashing, f"/api/games/{game.pk}/actions/", body={"action": {}},
                                         HTTP_AUTHORIZATION=token(alice))
    finally:
        for (signal, _), receiver in zip(signals, receivers, strict=True):
            signal.disconnect(receiver)
    assert status.startswith("500") and json.loads(content)["error"] == "server_error"
    assert dict(headers)["X-Frame-Options"] == "DENY"
    assert seen == ["started", "exception", "finished"]


def test_other_requests_go_through_the_middleware(crashing, game, alice):
    from django.conf import settings
    from django.test import Client

    url, a = f"/api/games/{game.pk}/actions/", token(alice)
    assert send(crashing, url, method="GET", HTTP_AUTHORIZATION=a)[0].startswith("405")
    assert send(crashing, f"/api/games/{game.pk}/", method="GET", HTTP_AUTHORIZATION=a)[0].startswith("200")
    assert send(crashing, url, body={"action": {}}, HTTP_AUTHORIZATION=f"Bearer {a[6:]}")[0].startswith("401")
    assert send(crashing, url, body={"action": {}}, HTTP_AUTHORIZATION=a, HTTP_ACCEPT="text/html")[0].startswith("400")
    assert send(crashing, url + "?format=api", body={"action": {}}, HTTP_AUTHORIZATION=a)[0].startswith("400")
    browser = Client()
    browser.force_login(alice)
    cookie = f"{settings.SESSION_COOKIE_NAME}={browser.cookies[settings.SESSION_COOKIE_NAME].value}"
    status, _, content = send(crashing, url, body={"action": {}}, HTTP_COOKIE=cookie)
    assert status.startswith("403") and "CSRF" in json.loads(content)["detail"]  # signed in by the session
    status, _, _ = send(crashing, url, body={"action": {}}, HTTP_AUTHORIZATION=a, HTTP_COOKIE="csrftoken=x")
    assert status.startswith("400")  # the token's move, through the chain: the cookie may need renewing


def test_a_middleware_it_does_not_know_turns_it_off(settings):
    settings.MIDDLEWARE = [*settings.MIDDLEWARE, "django.middleware.gzip.GZipMiddleware"]
    assert not isinstance(ApiHandler()._middleware_chain, FastMoves)
    settings.MIDDLEWARE = settings.MIDDLEWARE[:-1]
    assert isinstance(ApiHandler()._middleware_chain, FastMoves)


def test_a_usual_move_skips_drf_and_a_refused_one_gets_drf_s_answer(game, alice, monkeypatch):
    from rest_framework.views import APIView

    from games import selectors

    dispatched, dispatch = [], APIView.dispatch
    monkeypatch.setattr(APIView, "dispatch", lambda self, *args, **kwargs: dispatched.append(1) or dispatch(self, *args, **kwargs))
    game.refresh_from_db()
    action = selectors.game_for(game, alice)["legal_actions"][0]["action"]
    url, handler = f"/api/games/{game.pk}/actions/", ApiHandler()
    status, _, content = send(handler, url, body={"action": action, "expected_version": game.version},
                              HTTP_AUTHORIZATION=token(alice))
    assert status.startswith("201") and json.loads(content)["game"]["version"] > game.version and dispatched == []
    status, _, content = send(handler, url, body={"action": action}, HTTP_AUTHORIZATION="Token nope")
    assert status.startswith("401") and json.loads(content)["error"] == "not_authenticated" and dispatched == [1]
