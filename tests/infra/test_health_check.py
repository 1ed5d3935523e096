"""kinplay.infra.postgres: a connection, kept or borrowed from the pool, is checked before each
request without a round trip while it is quiet, and still replaced when the server has ended it."""

import time

import psycopg
import pytest
from django.core.signals import request_started
from django.db import connection, connections

from games.models import Game

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.postgresql]


def a_new_request():
    request_started.send(sender=None)  # Django's close_old_connections: the next use is checked


@pytest.fixture
def kept():
    """Connections kept per thread (PG_POOL=false) rather than borrowed from the pool."""
    settings = connection.settings_dict
    saved = settings["OPTIONS"].get("pool"), settings["CONN_MAX_AGE"], settings["CONN_HEALTH_CHECKS"]
    connection.close()
    settings["OPTIONS"].pop("pool", None)
    settings.update(CONN_MAX_AGE=60, CONN_HEALTH_CHECKS=True)
    yield
    connection.close()
    settings["OPTIONS"]["pool"], settings["CONN_MAX_AGE"], settings["CONN_HEALTH_CHECKS"] = saved


def test_it_trusts_a_quiet_connection_without_asking_the_server(kept, monkeypatch):
    assert connection.pool is None
    Game.objects.count()
    a_new_request()
    monkeypatch.setattr(type(connections["default"]), "is_usable", lambda self: pytest.fail("asked the server"))
    assert Game.objects.count() == 0


def test_it_replaces_a_connection_the_server_ended_between_requests(kept):
    Game.objects.count()
    pid = connection.connection.info.backend_pid
    with psycopg.connect(**connection.get_connection_params(), autocommit=True) as other:
        other.execute("SELECT pg_terminate_backend(%s)", [pid])
    time.sleep(0.2)
    a_new_request()
    assert Game.objects.count() == 0  # no error: a new connection
    assert connection.connection.info.backend_pid != pid


def test_it_borrows_from_the_pool_and_checks_without_asking_the_server(monkeypatch):
    from kinplay.infra.postgres import base

    assert connection.pool is not None, "PostgreSQL runs with Django's pool (settings PG_POOL)"
    Game.objects.count()
    a_new_request()
    assert connection.connection is None  # given back
    monkeypatch.setattr(base, "_answers", lambda c: pytest.fail("asked the server"))
    assert Game.objects.count() == 0


def test_it_drops_a_pooled_connection_the_server_ended():
    Game.objects.count()
    pid = connection.connection.info.backend_pid
    a_new_request()
    with psycopg.connect(**connection.get_connection_params(), autocommit=True) as other:
        other.execute("SELECT pg_terminate_backend(%s)", [pid])
    time.sleep(0.2)
    assert Game.objects.count() == 0
    assert connection.connection.info.backend_pid != pid
