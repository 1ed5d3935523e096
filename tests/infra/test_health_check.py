"""kinplay.infra.postgres: a kept connection is checked before each request without a round trip
while it is quiet, and still replaced when the server has ended it."""

import time

import psycopg
import pytest
from django.core.signals import request_started
from django.db import connection, connections

from games.models import Game

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.postgresql]


def a_new_request():
    request_started.send(sender=None)  # Django's close_old_connections: the next use is checked


def test_it_trusts_a_quiet_connection_without_asking_the_server(monkeypatch):
    Game.objects.count()
    a_new_request()
    monkeypatch.setattr(type(connections["default"]), "is_usable", lambda self: pytest.fail("asked the server"))
    assert Game.objects.count() == 0


def test_it_replaces_a_connection_the_server_ended_between_requests():
    Game.objects.count()
    pid = connection.connection.info.backend_pid
    with psycopg.connect(**connection.get_connection_params(), autocommit=True) as other:
        other.execute("SELECT pg_terminate_backend(%s)", [pid])
    time.sleep(0.2)
    a_new_request()
    assert Game.objects.count() == 0  # no error: a new connection
    assert connection.connection.info.backend_pid != pid
