"""A read replica (docs/deploy.md): a PostgreSQL primary and a streaming replica of it made with
pg_basebackup, both the test's own on loopback ports, and a web node reading its player pages and
leaderboards (and the replays of games long over) from the replica while it keeps up, from the
primary once it lags."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from tests.cluster import START, Process, answers
from tests.conftest import free_port, unavailable, wait_for

ROOT = Path(__file__).resolve().parents[2]
pytestmark = [pytest.mark.services, pytest.mark.slow]  # CI runs it once (its own PostgreSQL servers)


def _bindir() -> Path:
    pg_config = shutil.which("pg_config")
    found = Path(subprocess.run([pg_config, "--bindir"], capture_output=True, text=True).stdout.strip()) if pg_config else None
    if found is None or not (found / "pg_basebackup").exists():
        unavailable("PostgreSQL's server programs (initdb, pg_ctl, pg_basebackup) are not installed")
    return found


class Postgres:
    """A PostgreSQL server of the test's own (as the postgres user when the test runs as root)."""

    def __init__(self, bindir: Path, folder: Path, name: str):
        self.bindir, self.data, self.port = bindir, folder / name, free_port()
        self.sockets = folder / f"{name}-sockets"
        self.sockets.mkdir()
        self.log = folder / f"{name}.log"
        self.url = f"postgres://postgres@127.0.0.1:{self.port}/kinplay"

    def run(self, program: str, *args: str) -> str:
        as_user = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []
        done = subprocess.run([*as_user, str(self.bindir / program), *args], capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, f"{program}: {done.stdout}{done.stderr}"
        return done.stdout

    def start(self):
        self.run("pg_ctl", "-D", str(self.data), "-l", str(self.log), "-w", "-t", str(START), "start", "-o",
                 f"-p {self.port} -k {self.sockets} -c listen_addresses=127.0.0.1 -c fsync=off")
        return self

    def stop(self):
        if (self.data / "postmaster.pid").exists():
            self.run("pg_ctl", "-D", str(self.data), "-m", "immediate", "stop")

    def sql(self, statement: str, database="kinplay") -> str:
        done = subprocess.run(["psql", f"postgres://postgres@127.0.0.1:{self.port}/{database}", "-qAtc", statement],
                              capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, done.stderr
        return done.stdout.strip()


@pytest.fixture
def primary_and_replica():
    bindir = _bindir()
    folder = Path(tempfile.mkdtemp(prefix="kinplay-replica-"))  # pytest's own folder is closed to the postgres user
    if os.geteuid() == 0:
        shutil.chown(folder, "postgres")
    primary = Postgres(bindir, folder, "primary")
    replica = Postgres(bindir, folder, "replica")
    for pg in (primary, replica):
        if os.geteuid() == 0:
            shutil.chown(pg.sockets, "postgres")
    try:
        primary.run("initdb", "-D", str(primary.data), "-A", "trust", "-U", "postgres", "--no-sync")  # replication by trust on 127.0.0.1 too
        primary.start()
        primary.sql("CREATE DATABASE kinplay", database="postgres")
        primary.run("pg_basebackup", "-h", "127.0.0.1", "-p", str(primary.port), "-U", "postgres", "-D", str(replica.data),
                    "-R", "-X", "stream", "--no-sync", "--checkpoint=fast")  # -R: a standby that streams from the primary; fast: not a checkpoint spread over minutes
        replica.start()
        yield primary, replica
    finally:
        replica.stop()
        primary.stop()
        shutil.rmtree(folder, ignore_errors=True)


def _get(port: int, path: str, token: str | None = None) -> tuple[int, dict]:
    headers = {"Authorization": f"Token {token}"} if token else {}
    try:
        with urllib.request.urlopen(urllib.request.Request(f"http://127.0.0.1:{port}{path}", headers=headers), timeout=10) as answer:
            return answer.status, json.loads(answer.read())
    except urllib.error.HTTPError as err:
        return err.code, json.loads(err.read() or b"{}")


def _post(port: int, path: str, body: dict, token: str) -> dict:
    request = urllib.request.Request(f"http://127.0.0.1:{port}{path}", json.dumps(body).encode(),
                                     {"Content-Type": "application/json", "Authorization": f"Token {token}"}, method="POST")
    with urllib.request.urlopen(request, timeout=10) as answer:
        assert answer.status in (200, 201)
        return json.loads(answer.read())


def _register(port: int, name: str) -> str:
    body = json.dumps({"username": name, "email": f"{name}@example.com", "password": "a-long-password"}).encode()
    request = urllib.request.Request(f"http://127.0.0.1:{port}/api/accounts/register/", body,
                                     {"Content-Type": "application/json"}, method="POST")
    with urllib.request.urlopen(request, timeout=10) as answer:
        assert answer.status == 201
        return json.loads(answer.read())["token"]


def test_it_reads_player_pages_from_the_replica_while_it_keeps_up_and_from_the_primary_once_it_lags(
        primary_and_replica, tmp_path):
    primary, replica = primary_and_replica
    max_lag = 6
    env = {k: v for k, v in os.environ.items() if not k.startswith(("EMAIL_", "CELERY_"))
           and k not in ("DATABASE_URL", "REDIS_URL", "KINPLAY_VAR")}
    env.update(DATABASE_URL=primary.url, REPLICA_DATABASE_URL=replica.url, REPLICA_MAX_LAG=str(max_lag),
               KINPLAY_VAR=str(tmp_path), DJANGO_SETTINGS_MODULE="kinplay.settings", SECRET_KEY="tests-only-" + "k" * 50,
               SITE_URL="http://kinplay.test", PYTHONPATH=str(ROOT), WEB_WORKERS="1", PYTHONUNBUFFERED="1",
               THROTTLE_ANON="100000/min", REDIS_URL="redis://127.0.0.1:6379/14", PYTHON=sys.executable)
    done = subprocess.run([sys.executable, "manage.py", "migrate", "--no-input"], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    port = free_port()
    web = Process("web", ["bin/node", "web"], {**env, "BIND": f"127.0.0.1:{port}"}, tmp_path / "web.log").start()
    try:
        wait_for(lambda: answers(port), "the web node to answer", START, on_fail=web.log)
        _register(port, "alice")  # a write: the primary
        wait_for(lambda: _get(port, "/api/players/alice/")[0] == 200, "the replica to have alice", 30, on_fail=web.log)

        # The replica stops replaying: what the primary writes now, it does not have.
        replica.sql("SELECT pg_wal_replay_pause()")
        token = _register(port, "bob")
        assert primary.sql("SELECT count(*) FROM auth_user WHERE username = 'bob'") == "1"
        paused = time.monotonic()
        assert _get(port, "/api/players/bob/")[0] == 404  # read from the replica: a little behind is allowed
        # Who is asking is never read from the replica: bob's token works at once.
        assert _get(port, "/api/games/", token)[0] == 200
        # Behind by more than REPLICA_MAX_LAG: the same reads go to the primary, the page's too.
        wait_for(lambda: _get(port, "/api/players/bob/")[0] == 200, "the node to read the primary", 3 * max_lag + 10,
                 on_fail=web.log)
        assert time.monotonic() - paused >= max_lag / 2  # not at once: the replica served while it was close behind
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/players/bob/", timeout=10) as page:
            assert page.status == 200

        # Caught up again, the replica serves again: paused once more, a new player is not there.
        replica.sql("SELECT pg_wal_replay_resume()")
        wait_for(lambda: replica.sql("SELECT count(*) FROM auth_user WHERE username = 'bob'") == "1", "the replica to catch up", 30)
        time.sleep(1.2)  # the node checks the lag at most once a second
        assert _get(port, "/api/players/bob/")[0] == 200
        replica.sql("SELECT pg_wal_replay_pause()")
        _register(port, "charlie")
        assert _get(port, "/api/players/charlie/")[0] == 404

        # A replay: the events of a game over for longer than the lag allowed come from the replica.
        replica.sql("SELECT pg_wal_replay_resume()")
        game = _post(port, "/api/games/", {"kind": "kenta", "seats": [{"user": "bob"}, {"bot": "random"}]}, token)["id"]
        _post(port, f"/api/games/{game}/resign/", {}, token)
        first = _get(port, f"/api/games/{game}/events/", token)[1][0]["type"]
        wait_for(lambda: replica.sql(f"SELECT status FROM games_game WHERE id = {game}") == "finished", "the replica to catch up", 30)
        time.sleep(max_lag + 2)  # over for longer than the lag allowed
        assert _get(port, "/api/players/bob/")[0] == 200  # a check of the lag while the replica is caught up
        replica.sql("SELECT pg_wal_replay_pause()")
        # An operator's edit of a finished stream (its trigger set aside), on the primary only:
        primary.sql(f"SET session_replication_role = replica; UPDATE games_event SET type = 'edited' WHERE game_id = {game} AND seq = 1")
        assert _get(port, f"/api/games/{game}/events/", token)[1][0]["type"] == first  # the replica's copy
        wait_for(lambda: _get(port, f"/api/games/{game}/events/", token)[1][0]["type"] == "edited",
                 "the replay to come from the primary once the replica lags", 3 * max_lag + 10, on_fail=web.log)
    finally:
        web.kill()
