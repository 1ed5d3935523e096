"""kinplay.wsgi and settings.MIDDLEWARE: /api/ passes the pages' middleware by
(kinplay/middleware.py) and still authenticates, checks CSRF for session writes and sends the
security headers."""

import io
import json
from wsgiref.util import setup_testing_defaults

import pytest
from django.conf import settings

pytestmark = pytest.mark.django_db(transaction=True)


def call(path, method="GET", body=None, **headers):
    from kinplay.wsgi import application

    environ = {"PATH_INFO": path, "REQUEST_METHOD": method, "SERVER_NAME": "testserver", "HTTP_HOST": "testserver"}
    setup_testing_defaults(environ)
    data = json.dumps(body).encode() if body is not None else b""
    environ.update({"wsgi.input": io.BytesIO(data), "CONTENT_LENGTH": str(len(data)),
                    "CONTENT_TYPE": "application/json", **headers})
    out = {}

    def start_response(status, response_headers, exc_info=None):
        out["status"], out["headers"] = int(status.split()[0]), dict(response_headers)

    content = b"".join(application(environ, start_response))
    return out["status"], out["headers"], content


def test_it_answers_the_api_without_the_pages_middleware(alice):
    from rest_framework.authtoken.models import Token

    token = Token.objects.create(user=alice).key
    status, headers, content = call("/api/games/", HTTP_AUTHORIZATION=f"Token {token}")
    assert status == 200 and json.loads(content) == []
    assert headers["X-Content-Type-Options"] == "nosniff" and headers["X-Frame-Options"] == "DENY"
    from django.contrib.messages.middleware import MessageMiddleware
    from django.utils.module_loading import import_string

    assert any(issubclass(import_string(m), MessageMiddleware) for m in settings.MIDDLEWARE)  # the pages keep it


def test_it_still_refuses_a_session_write_without_a_csrf_token(alice):
    from django.test import Client

    browser = Client()
    browser.force_login(alice)
    cookie = f"{settings.SESSION_COOKIE_NAME}={browser.cookies[settings.SESSION_COOKIE_NAME].value}"
    status, _, _ = call("/api/games/", HTTP_COOKIE=cookie)
    assert status == 200  # signed in by the session
    status, _, content = call("/api/games/", "POST", {"kind": "knonsters", "seats": [{"user": "alice"}, {"bot": "random"}]},
                              HTTP_COOKIE=cookie)
    assert status == 403 and "CSRF" in json.loads(content)["detail"]


def test_it_sends_pages_through_the_whole_stack():
    status, _, _ = call("/static/does-not-exist.css")
    assert status == 404
    status, headers, _ = call("/login/")
    assert status in (200, 302) and headers["X-Frame-Options"] == "DENY"


def test_it_refuses_a_token_at_once_once_it_is_replaced(alice):
    from rest_framework.authtoken.models import Token

    token = Token.objects.create(user=alice).key
    assert call("/api/games/", HTTP_AUTHORIZATION=f"Token {token}")[0] == 200
    Token.objects.filter(user=alice).delete()
    assert call("/api/games/", HTTP_AUTHORIZATION=f"Token {token}")[0] == 401
    token = Token.objects.create(user=alice).key
    assert call("/api/games/", HTTP_AUTHORIZATION=f"Token {token}")[0] == 200
    alice.is_active = False
    alice.save()
    assert call("/api/games/", HTTP_AUTHORIZATION=f"Token {token}")[0] == 401


def test_it_sends_a_move_to_an_address_without_its_final_slash_on_as_a_move(alice):
    """Django's 301 turns a followed POST into a GET (a 405 that puzzles): a 308 keeps the move."""
    from rest_framework.authtoken.models import Token

    token = Token.objects.create(user=alice).key
    status, headers, content = call("/api/games/7/actions", "POST", {"notation": "x"}, HTTP_AUTHORIZATION=f"Token {token}")
    assert status == 308 and headers["Location"] == "/api/games/7/actions/"
    assert json.loads(content)["error"] == "trailing_slash" and "/api/games/7/actions/" in json.loads(content)["detail"]
    status, headers, _ = call("/api/games", HTTP_AUTHORIZATION=f"Token {token}")
    assert status == 308 and headers["Location"] == "/api/games/"
    assert call("/api/no-such-thing", HTTP_AUTHORIZATION=f"Token {token}")[0] == 404
