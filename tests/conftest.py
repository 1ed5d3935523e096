"""Shared fixtures: the personas (alice, bob, charlie) and services that may be absent.

On a laptop without PostgreSQL, Redis or Chromium the tests that need them skip with a
reason; in CI (CI=true) they fail instead, so a green CI means they really ran.
"""

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

IN_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")


def pytest_collection_modifyitems(config, items):
    for item in items:
        parts = Path(str(item.fspath)).parts
        if "games" in parts and parts[parts.index("games") - 1] == "tests" and parts[-2] != "games":
            item.add_marker(pytest.mark.engine)
    # The long tests first, so that pytest-xdist spreads them over the CPUs from the start instead
    # of leaving one to end the run alone (a worker-driven tournament last added 90 s to CI).
    items.sort(key=lambda item: 0 if item.get_closest_marker("slow") or item.get_closest_marker("mutation") else 1)
    # Tests of PostgreSQL's own behaviour are left out of a run on another database (CI's
    # PostgreSQL run has them): deselected, not skipped, since there is nothing to wait for.
    from django.db import connection

    if connection.vendor != "postgresql":
        other = [item for item in items if item.get_closest_marker("postgresql")]
        if other:
            config.hook.pytest_deselected(items=other)
            items[:] = [item for item in items if not item.get_closest_marker("postgresql")]


def free_port() -> int:
    """A loopback port nothing listens on now (a server a test starts binds it)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(env: dict, *args: str) -> tuple[subprocess.Popen, int]:
    """``python -m kinplay.server`` (as bin/run starts it) on a free loopback port, with ``env``
    and ``args``: the process and its port, not yet waited for (``wait_listening``)."""
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "kinplay.server", "--bind", f"127.0.0.1:{port}", *args],
                            cwd=Path(__file__).resolve().parents[1], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    return proc, port


def wait_listening(proc: subprocess.Popen, port: int, seconds: float = 60) -> None:
    """Until ``proc`` listens on ``port``; the test fails with the server's own error if it
    exits first or takes longer than ``seconds``."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            if proc.poll() is not None or time.monotonic() > deadline:
                proc.kill()
                pytest.fail(f"the server did not start: {proc.stderr.read().decode()[-2000:]}")
            time.sleep(0.1)


def wait_for(predicate, what: str, timeout: float = 30, interval: float = 0.2, on_fail=None):
    """Poll ``predicate`` until it returns something truthy (returned) or ``timeout`` passes;
    then ``on_fail`` is called (a log dumped), and the text it returns, if any, is in the failure."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            told = on_fail() if on_fail else None
            pytest.fail(f"timed out after {timeout}s waiting for {what}" + (f"\n{told}" if told else ""))
        time.sleep(interval)


def unavailable(reason: str):
    """Skip on a laptop, fail in CI: a service test that did not run is not a pass."""
    if IN_CI:
        pytest.fail(f"CI must run this test but {reason}")
    pytest.skip(reason)


@pytest.fixture(autouse=True)
def _eager_celery():
    """In-process tests run Celery tasks inline; the worker tests turn this off.
    (No Django here: the pure engine tests run with or without pytest-django.)"""
    from kinplay.celery import app

    app.conf.task_always_eager = True
    yield
    app.conf.task_always_eager = False


@pytest.fixture(autouse=True)
def _throttles_count_from_nothing():
    """Each test's requests are counted from nothing: the throttles' counters (in the test
    cache) and what this process leased on them (api.throttles.Lease), which would otherwise
    add up over a session's tests within a minute (the same players' ids come back)."""
    yield
    if "api.throttles" in sys.modules:
        from django.core.cache import cache

        cache.clear()
        sys.modules["api.throttles"]._lease.left.clear()


@pytest.fixture
def make_user(db, settings):
    from django.contrib.auth import get_user_model

    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]  # speed only

    def make(name, email=True):
        return get_user_model().objects.create_user(name, f"{name}@example.com" if email else "", "a-long-password")

    return make


@pytest.fixture
def alice(make_user):
    return make_user("alice")


@pytest.fixture
def bob(make_user):
    return make_user("bob")


@pytest.fixture
def charlie(make_user):
    return make_user("charlie")


@pytest.fixture
def api(db):
    from rest_framework.test import APIClient

    def client_for(user=None):
        c = APIClient()
        if user is not None:
            from rest_framework.authtoken.models import Token

            token, _ = Token.objects.get_or_create(user=user)
            c.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
        return c

    return client_for


@pytest.fixture
def purgeable_events(transactional_db):
    """Tests that commit (threads, worker, browser) leave rows that the flush after them must
    remove; on SQLite the append-only trigger would refuse, so it is lifted for the flush only
    (the flush's post_migrate signal puts it back: games.apps)."""
    from django.db import connection

    from games import triggers

    yield
    triggers.remove(connection)


@pytest.fixture
def inbox(mailoutbox):
    """The mail delivered so far: relays the outbox first (in a test transaction the
    on-commit kick never fires, so the relay runs here as the worker would run it)."""
    from kinplay.notifications.services import relay

    def delivered():
        relay()
        return mailoutbox

    return delivered
