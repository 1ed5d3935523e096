"""Two web server processes (kinplay.server, as bin/run starts them) on one database: a token
replaced or deleted, or a player deactivated, is refused by both from their next request on,
whichever process (or none of them) made the change: no process keeps a token's answer."""

import http.client
import json
import os
import sqlite3
import subprocess
import sys
from contextlib import closing
from pathlib import Path

import pytest

from tests.conftest import start_server, wait_listening

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """The environment of a kinplay with its own SQLite file, migrated, alice and bob in it."""
    var = tmp_path_factory.mktemp("two-processes")
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL", "EMAIL_URL")}
    env.update(KINPLAY_VAR=str(var), DATABASE_URL=f"sqlite:///{var / 'kinplay.sqlite3'}", DEBUG="false",
               DJANGO_SETTINGS_MODULE="kinplay.settings", SECRET_KEY="tests-only-" + "k" * 50, PYTHONPATH=str(ROOT),
               THROTTLE_USER="100000/min", THROTTLE_ANON="100000/min", WEB_WORKERS="1")
    subprocess.run([sys.executable, "manage.py", "migrate", "--noinput", "-v0"], cwd=ROOT, env=env, check=True)
    django(env, "from django.contrib.auth import get_user_model\n"
                "for name in ('alice', 'bob'): get_user_model().objects.create_user(name, f'{name}@example.com', 'a-long-password')")
    return env


def django(env, code: str) -> str:
    """``code`` run by a third process with the ORM: what it prints."""
    return subprocess.run([sys.executable, "manage.py", "shell", "-v0", "-c", code], cwd=ROOT, env=env, check=True,
                          capture_output=True, text=True).stdout


def write(env, statement: str, *params) -> None:
    """A change made by another process, straight to the database file: at once, no server's doing."""
    with closing(sqlite3.connect(env["DATABASE_URL"].removeprefix("sqlite:///"), timeout=30)) as db, db:
        db.execute(statement, params)


@pytest.fixture(scope="module")
def servers(site):
    started = [start_server(site) for _ in range(2)]
    try:
        for proc, port in started:
            wait_listening(proc, port)
        yield [port for _, port in started]
    finally:
        for proc, _ in started:
            proc.terminate()
        for proc, _ in started:
            proc.wait(30)


def status(port: int, token: str, path="/api/games/") -> int:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    connection.request("GET", path, headers={"Authorization": f"Token {token}"})
    answer = connection.getresponse()
    body = json.loads(answer.read())
    assert answer.status != 401 or body["error"] == "not_authenticated", body
    return answer.status


def through_the_api(port: int, name: str) -> str:
    """The player's token, asked of one process with the player's password (made if there is none)."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    connection.request("POST", "/api/accounts/token/", json.dumps({"username": name, "password": "a-long-password"}),
                       {"Content-Type": "application/json"})
    answer = connection.getresponse()
    assert answer.status == 200
    return json.loads(answer.read())["token"]


@pytest.mark.slow
def test_it_refuses_a_deleted_token_in_every_process_at_once(site, servers):
    first, second = servers
    token = through_the_api(first, "bob")
    assert [status(first, token), status(second, token)] == [200, 200]  # both have checked it
    write(site, "DELETE FROM authtoken_token WHERE key = ?", token)
    assert [status(first, token), status(second, token)] == [401, 401]


@pytest.mark.slow
def test_it_refuses_a_replaced_token_in_every_process_at_once(site, servers):
    first, second = servers
    old = through_the_api(first, "alice")
    assert [status(first, old), status(second, old)] == [200, 200]
    write(site, "DELETE FROM authtoken_token WHERE key = ?", old)
    new = through_the_api(second, "alice")  # made by one process
    assert new != old
    assert [status(first, old), status(second, old)] == [401, 401]
    assert [status(first, new), status(second, new)] == [200, 200]


@pytest.mark.slow
def test_it_refuses_a_deactivated_player_in_every_process_at_once(site, servers):
    first, second = servers
    token = through_the_api(second, "alice")
    assert [status(first, token), status(second, token)] == [200, 200]
    write(site, "UPDATE auth_user SET is_active = 0 WHERE username = ?", "alice")
    assert [status(first, token), status(second, token)] == [401, 401]
    write(site, "UPDATE auth_user SET is_active = 1 WHERE username = ?", "alice")
    assert [status(first, token), status(second, token)] == [200, 200]
