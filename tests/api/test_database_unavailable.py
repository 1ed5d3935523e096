"""A database that cannot be reached (a restart, a failover) is a 503 with Retry-After, on the
API and on the pages, wherever the request met it; any other crash stays a 500."""

import pytest
from django.core.signals import request_started
from django.db import OperationalError, connection
from django.test import Client
from rest_framework.authtoken.models import Token

from games import services

pytestmark = pytest.mark.django_db


def down(execute, sql, params, many, context):
    raise OperationalError("server closed the connection unexpectedly")


@pytest.fixture
def game(alice):
    return services.create_game(creator=alice, kind="knonsters", seats=[{"user": "alice"}, {"bot": "random"}])


def test_it_answers_503_with_retry_after_when_the_database_goes_away_under_an_api_request(alice, game):
    client = Client(raise_request_exception=False, HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=alice).key}")
    with connection.execute_wrapper(down):
        answer = client.get(f"/api/games/{game.pk}/")
    assert answer.status_code == 503 and answer["Retry-After"] == "5"
    assert answer.json()["error"] == "unavailable" and "try again" in answer.json()["detail"]


def test_it_shows_a_page_that_tries_again_when_the_database_goes_away_under_a_page(alice, game):
    client = Client(raise_request_exception=False)
    client.force_login(alice)
    with connection.execute_wrapper(down):
        answer = client.get(f"/games/{game.pk}/")
    assert answer.status_code == 503 and answer["Retry-After"] == "5"
    assert b"Back in a moment" in answer.content and b'http-equiv="refresh"' in answer.content


def test_any_other_crash_is_still_a_500(alice, game):
    def broken(execute, sql, params, many, context):
        raise ValueError("a bug")

    client = Client(raise_request_exception=False, HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=alice).key}")
    with connection.execute_wrapper(broken):
        answer = client.get(f"/api/games/{game.pk}/")
    assert answer.status_code == 500 and answer.json()["error"] == "server_error"


@pytest.mark.postgresql
@pytest.mark.django_db(transaction=True)
def test_it_answers_503_when_postgresql_ends_the_connection_mid_request(alice, game):
    """A real end: the server terminates this backend while the request runs."""
    import subprocess

    s = connection.settings_dict
    url = f"postgres://{s['USER'] or 'postgres'}@{s['HOST'] or '127.0.0.1'}:{s['PORT'] or 5432}/{s['NAME']}"
    client = Client(raise_request_exception=False, HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=alice).key}")
    ended = []

    def end_it(execute, sql, params, many, context):
        if not ended:
            pid = context["connection"].connection.info.backend_pid
            subprocess.run(["psql", url, "-qAtc", f"SELECT pg_terminate_backend({pid})"], check=True, capture_output=True)
            ended.append(pid)
        return execute(sql, params, many, context)

    with connection.execute_wrapper(end_it):
        answer = client.get(f"/api/games/{game.pk}/")
    assert ended and answer.status_code == 503 and answer.json()["error"] == "unavailable"
    request_started.send(sender=None)  # as the web server's next request does (the test client does not)
    assert client.get(f"/api/games/{game.pk}/").status_code == 200  # on a new connection
