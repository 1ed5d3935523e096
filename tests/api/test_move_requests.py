"""A move request through the site's WSGI application (kinplay.wsgi, the path every request
takes): each way it can end, with its status, headers and body."""

import io
import json
from datetime import UTC, datetime
from wsgiref.util import setup_testing_defaults

import pytest
import time_machine
from django.core.cache import cache
from django.core.signals import got_request_exception, request_finished, request_started
from django.db import transaction

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


def send(path, method="POST", body=None, raw=None, content_type="application/json", **headers):
    from kinplay.wsgi import application

    path, _, query = path.partition("?")
    environ = {"PATH_INFO": path, "QUERY_STRING": query, "REQUEST_METHOD": method, "SERVER_NAME": "testserver", "HTTP_HOST": "testserver"}
    setup_testing_defaults(environ)
    data = raw if raw is not None else json.dumps(body).encode() if body is not None else b""
    environ.update({"wsgi.input": io.BytesIO(data), "CONTENT_LENGTH": str(len(data)), "CONTENT_TYPE": content_type,
                    **headers})
    out = {}

    def start_response(status, response_headers, exc_info=None):
        out["status"], out["headers"] = status, sorted(response_headers)

    answer = application(environ, start_response)  # closed already (request_finished): kinplay.server.RequestOnly
    return out["status"], out["headers"], b"".join(answer)


class Rollback(Exception):
    pass


def answers(steps):
    """Each step's (status, headers, body), from fresh counters and a fixed clock; the changes
    are undone after."""
    cache.clear()  # the throttles' counters
    with time_machine.travel(datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC), tick=False):
        try:
            with transaction.atomic():
                out = [step() for step in steps]
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


def test_it_answers_each_kind_of_move_request(game, alice, bob, charlie, settings):
    from games import selectors

    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 4000
    game.refresh_from_db()
    url = f"/api/games/{game.pk}/actions/"
    action = selectors.game_for(game, alice)["legal_actions"][0]["action"]

    def move(who, body, **headers):
        return lambda: send(url, body=body, HTTP_AUTHORIZATION=who, **headers)

    def deactivate(user):
        def step():
            user.is_active = False
            user.save()
        return step

    a, b, c = token(alice), token(bob), token(charlie)
    steps = [
        move(a, {"action": action, "expected_version": game.version}),  # 201
        move(b, {"action": action, "expected_version": game.version}),  # stale: 409
        move(b, {"action": {"type": "teleport"}}),  # illegal: 409
        move(c, {"action": action}),  # no seat: 403
        move(a, {"action": action}),  # alice has chosen: not hers to move (409)
        move("Token nope", {"action": action}),  # 401
        move("Token", {"action": action}),  # 401, no key
        lambda: send(url, raw=b"{not json", HTTP_AUTHORIZATION=b),  # 400
        lambda: send(url, raw=b"action=x", content_type="text/plain", HTTP_AUTHORIZATION=b),  # 415
        lambda: send(url, body={"action": action, "pad": "x" * 5000}, HTTP_AUTHORIZATION=b),  # 413
        move(b, {"action": action}, HTTP_IDEMPOTENCY_KEY="k-1"),  # 201
        move(b, {"action": action}, HTTP_IDEMPOTENCY_KEY="k-1"),  # the same 201 again
        move(b, {"action": {"type": "teleport"}}, HTTP_IDEMPOTENCY_KEY="k-1"),  # reused: 422
        move(b, {"action": action}, HTTP_IDEMPOTENCY_KEY="k" * 1000),  # too long: 400
        lambda: send(url + "?view=none", body={"action": action}, HTTP_AUTHORIZATION=a),  # 201
        deactivate(charlie),
        move(c, {"action": action}),  # inactive: 401
    ]
    out = answers(steps)
    statuses = [a[0][:3] for a in out if a is not None]
    assert statuses == ["201", "409", "409", "403", "409", "401", "401", "400", "415", "413", "201", "201", "422", "400", "201", "401"]
    # the repeat answers as the first did (its events read back: PostgreSQL's jsonb orders their keys its own way)
    assert json.loads(out[10][2]) == json.loads(out[11][2])
    headers = dict(out[0][1])
    assert headers["Content-Length"] == str(len(out[0][2])) and headers["X-Frame-Options"] == "DENY" and headers["X-Content-Type-Options"] == "nosniff"
    assert set(headers["Allow"].split(", ")) == {"POST", "OPTIONS"} and headers["Content-Type"] == "application/json"
    assert dict(out[5][1])["WWW-Authenticate"] == "Token"


def test_it_throttles_moves(game, alice, settings):
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": {
        **settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"], "moves": "2/min"}}
    step = lambda: send(f"/api/games/{game.pk}/actions/", body={"action": {"type": "teleport"}},  # noqa: E731
                        HTTP_AUTHORIZATION=token(alice))
    out = answers([step] * 3)
    assert [a[0][:3] for a in out] == ["409", "409", "429"] and "Retry-After" in dict(out[2][1])


@pytest.fixture
def crashing(monkeypatch):
    """The move itself crashes."""
    from api import views

    def crash(*args, **kwargs):
        raise RuntimeError("boom")

    monkeypatch.setattr(views, "move", crash)


def test_it_answers_a_crash_with_the_api_s_logged_500(crashing, game, alice):
    seen = []
    signals = [(got_request_exception, "exception"), (request_started, "started"), (request_finished, "finished")]
    receivers = [lambda sender, name=name, **kwargs: seen.append(name) for _, name in signals]
    for (signal, _), receiver in zip(signals, receivers, strict=True):
        signal.connect(receiver)
    try:
        status, headers, content = send(f"/api/games/{game.pk}/actions/", body={"action": {}},
                                         HTTP_AUTHORIZATION=token(alice))
    finally:
        for (signal, _), receiver in zip(signals, receivers, strict=True):
            signal.disconnect(receiver)
    assert status.startswith("500") and json.loads(content)["error"] == "server_error"
    assert dict(headers)["X-Frame-Options"] == "DENY"
    assert seen == ["started", "exception", "finished"]


def test_it_answers_other_requests_to_a_game_as_ever(game, alice):
    from django.conf import settings
    from django.test import Client

    url, a = f"/api/games/{game.pk}/actions/", token(alice)
    assert send(url, method="GET", HTTP_AUTHORIZATION=a)[0].startswith("405")
    assert send(f"/api/games/{game.pk}/", method="GET", HTTP_AUTHORIZATION=a)[0].startswith("200")
    assert send(url, body={"action": {}}, HTTP_AUTHORIZATION=f"Bearer {a[6:]}")[0].startswith("401")
    assert send(url, body={"action": {}}, HTTP_AUTHORIZATION=a, HTTP_ACCEPT="text/html")[0].startswith("409")
    assert send(url + "?format=api", body={"action": {}}, HTTP_AUTHORIZATION=a)[0].startswith("409")
    browser = Client()
    browser.force_login(alice)
    cookie = f"{settings.SESSION_COOKIE_NAME}={browser.cookies[settings.SESSION_COOKIE_NAME].value}"
    status, _, content = send(url, body={"action": {}}, HTTP_COOKIE=cookie)
    assert status.startswith("403") and "CSRF" in json.loads(content)["detail"]  # signed in by the session
    status, _, _ = send(url, body={"action": {}}, HTTP_AUTHORIZATION=a, HTTP_COOKIE="csrftoken=x")
    assert status.startswith("409")  # a token's move with a cookie: no CSRF check, the rules refuse the empty action
