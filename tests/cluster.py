"""kinplay as an operator runs it on several machines, on loopback ports: a fresh PostgreSQL
database reached through PgBouncer (transaction mode), Redis, web nodes (kinplay.server, as
bin/run starts it) behind HAProxy (round robin, health-checked on /health/ready), Celery
workers and beats (docs/deploy.md). Every process is a child of the test, killed at the end;
PostgreSQL and Redis are the machine's own (CI starts them).

``Cluster.psql`` reads the database as the operator would; ``Player`` plays over HTTP.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import uuid
from pathlib import Path

import redis

from tests.conftest import free_port, unavailable, wait_for

ROOT = Path(__file__).resolve().parents[1]
PG_ADMIN = os.environ.get("TEST_PG_ADMIN_URL", "postgres://postgres@127.0.0.1:5432/postgres")
REDIS = os.environ.get("TEST_REDIS_URL", "redis://127.0.0.1:6379")
PASSWORD = "a-long-password"
START = 60  # seconds a process may take to start on a busy machine


def require(*programs: str) -> None:
    """Skip on a laptop (fail in CI) when a program the cluster runs is not installed."""
    missing = [p for p in programs if shutil.which(p) is None]
    if missing:
        unavailable(f"{', '.join(missing)} not installed (Debian: apt-get install {' '.join(missing)})")


class Process:
    def __init__(self, name: str, command: list[str], env: dict, log: Path):
        self.name, self.command, self.env, self.log_path = name, command, env, log
        self.proc: subprocess.Popen | None = None

    def start(self) -> Process:
        with open(self.log_path, "ab") as log:  # the child keeps its own descriptor
            self.proc = subprocess.Popen(self.command, cwd=ROOT, env=self.env, stdin=subprocess.DEVNULL,
                                         stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        return self

    def kill(self, sig=signal.SIGKILL) -> None:
        if self.proc is not None and self.proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, sig)
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(5)

    def log(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""


def answers(port: int, path="/health/live") -> bool:
    try:
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
        connection.request("GET", path)
        return connection.getresponse().status == 200
    except OSError:
        return False


class Cluster:
    def __init__(self, folder: Path):
        require("psql", "pgbouncer", "haproxy")
        self.folder, self.processes = folder, []
        self.database = f"kp_cluster_{os.getpid()}_{uuid.uuid4().hex[:6]}"
        if not self.psql_admin("SELECT 1"):
            unavailable(f"no PostgreSQL at {PG_ADMIN}")
        self.psql_admin(f'CREATE DATABASE "{self.database}"', check=True)
        self.redis = f"{REDIS}/13"
        try:
            redis.Redis.from_url(self.redis, socket_timeout=2).flushdb()  # no task left by an earlier run
        except redis.RedisError as exc:
            unavailable(f"no Redis at {REDIS}: {exc}")
        self.bouncer_port = free_port()
        self.direct = PG_ADMIN.rsplit("/", 1)[0] + f"/{self.database}"

    # ---------------------------------------------------------------- the database

    def psql_admin(self, statement: str, check=False) -> bool:
        # a DROP DATABASE waits for a checkpoint: long while something else writes a lot
        done = subprocess.run(["psql", PG_ADMIN, "-qAtc", statement], capture_output=True, text=True, timeout=300)
        assert not check or done.returncode == 0, done.stderr
        return done.returncode == 0

    def psql(self, query: str) -> list[list[str]]:
        """The rows of ``query`` on the cluster's database, each a list of texts."""
        done = subprocess.run(["psql", self.direct, "-qAt", "-F", "\t", "-c", query],
                              capture_output=True, text=True, timeout=60, check=True)
        return [line.split("\t") for line in done.stdout.splitlines() if line]

    def env(self, **extra) -> dict:
        env = {k: v for k, v in os.environ.items()
               if not k.startswith(("EMAIL_", "CELERY_")) and k not in ("DATABASE_URL", "REDIS_URL", "KINPLAY_VAR")}
        env.update(
            DATABASE_URL=f"postgres://postgres@127.0.0.1:{self.bouncer_port}/{self.database}", PG_PREPARE="false",
            REDIS_URL=self.redis, KINPLAY_VAR=str(self.folder), DJANGO_SETTINGS_MODULE="kinplay.settings",
            SECRET_KEY="tests-only-" + "k" * 50, SITE_URL="http://kinplay.test", PYTHONPATH=str(ROOT),
            SWEEP_SECONDS="1", BEAT_LEASE_SECONDS="4",
            BEAT_LEASE_RENEW="1", THROTTLE_USER="100000/min", THROTTLE_ANON="100000/min", THROTTLE_MOVES="100000/min",
            WEB_WORKERS="1", PYTHONUNBUFFERED="1", PYTHON=sys.executable,
        )
        env.update(extra)
        return env

    def manage(self, *args: str, direct=False, code: str | None = None) -> str:
        """``manage.py args`` (``shell -c code``) run against the cluster; ``direct``: not
        through PgBouncer (migrate holds a session's lock)."""
        env = self.env(**({"DATABASE_URL": self.direct, "PG_POOL": "false"} if direct else {}))
        command = [sys.executable, "manage.py", *args] + (["-c", code] if code is not None else [])
        done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stdout + done.stderr
        return done.stdout

    # ---------------------------------------------------------------- processes

    def spawn(self, name: str, command: list[str], **env) -> Process:
        process = Process(name, command, self.env(**env), self.folder / f"{name}.log").start()
        self.processes.append(process)
        return process

    def pgbouncer(self) -> Process:
        folder = self.folder / "pgbouncer"
        folder.mkdir()
        (folder / "users.txt").write_text('"postgres" ""\n')
        (folder / "pgbouncer.ini").write_text(f"""[databases]
* = host=127.0.0.1 port=5432
[pgbouncer]
listen_addr = 127.0.0.1
listen_port = {self.bouncer_port}
unix_socket_dir =
auth_type = trust
auth_file = {folder / 'users.txt'}
pool_mode = transaction
max_client_conn = 500
default_pool_size = 20
ignore_startup_parameters = extra_float_digits,options
""")
        as_root = ["-u", "postgres"] if os.geteuid() == 0 else []  # PgBouncer refuses to run as root
        if as_root:
            shutil.chown(folder, "postgres")
            for f in folder.iterdir():
                shutil.chown(f, "postgres")
            os.chmod(self.folder, 0o777)
        process = self.spawn("pgbouncer", ["pgbouncer", *as_root, str(folder / "pgbouncer.ini")])
        wait_for(lambda: self.through_bouncer(), "PgBouncer", START, on_fail=process.log)
        return process

    def through_bouncer(self) -> bool:
        url = f"postgres://postgres@127.0.0.1:{self.bouncer_port}/{self.database}"
        return subprocess.run(["psql", url, "-qAtc", "SELECT 1"], capture_output=True, timeout=10).returncode == 0

    def web(self, name: str, port: int | None = None) -> tuple[Process, int]:
        port = port or free_port()
        process = self.spawn(name, ["bin/node", "web"], BIND=f"127.0.0.1:{port}")
        wait_for(lambda: answers(port), f"{name} to answer", START, on_fail=process.log)
        return process, port

    def haproxy(self, web_ports: list[int]) -> tuple[Process, int]:
        """deploy/haproxy.cfg, on this test's ports: its own listening port and these nodes
        instead of the compose file's DNS discovery."""
        port = free_port()
        servers = "\n".join(f"    server web{i} 127.0.0.1:{p} check" for i, p in enumerate(web_ports, 1))
        config = (ROOT / "deploy" / "haproxy.cfg").read_text()
        config = re.sub(r"\nresolvers docker\n(    .*\n)+", "\n", config)
        config = config.replace("    bind :80\n", f"    bind 127.0.0.1:{port}\n")
        config = re.sub(r"    server-template .*\n", servers + "\n", config)
        config = config.replace("inter 2s", "inter 500ms")  # a dead node noticed sooner, for a short test
        (self.folder / "haproxy.cfg").write_text(config)
        process = self.spawn("haproxy", ["haproxy", "-db", "-f", str(self.folder / "haproxy.cfg")])
        wait_for(lambda: answers(port, "/health/ready"), "HAProxy to pass requests", START, on_fail=process.log)
        return process, port

    def worker(self, name: str, role: str) -> Process:
        """A Celery worker of ``role`` (bin/node deadlines or email)."""
        process = self.spawn(name, ["bin/node", role], NODE_NAME=name)
        wait_for(lambda: " ready." in process.log(), f"{name} to be ready", START, on_fail=process.log)
        return process

    def beat(self, name: str) -> Process:
        process = self.spawn(name, ["bin/node", "beat"], NODE_NAME=name)
        wait_for(lambda: "beat: Starting..." in process.log(), f"{name} to start", START, on_fail=process.log)
        return process

    def logs(self) -> str:
        return "\n".join(f"----- {p.name} -----\n{p.log()[-3000:]}" for p in self.processes)

    def close(self) -> None:
        for process in reversed(self.processes):
            process.kill(signal.SIGTERM)
        self.psql_admin(f'DROP DATABASE IF EXISTS "{self.database}" WITH (FORCE)')


class Player:
    """One player's keep-alive HTTP connection to ``port`` with their token."""

    def __init__(self, port: int, name: str, token: str):
        self.port, self.name, self.token = port, name, token
        self.connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)

    def request(self, method: str, path: str, body=None, headers=None) -> tuple[int, dict | None]:
        head = {"Authorization": f"Token {self.token}", "Content-Type": "application/json", **(headers or {})}
        try:
            self.connection.request(method, path, json.dumps(body) if body is not None else None, head)
            answer = self.connection.getresponse()
            raw = answer.read()
        except (OSError, http.client.HTTPException):  # a node killed under the request
            self.connection.close()
            self.connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
            return 0, None
        if answer.getheader("Connection", "").lower() == "close":
            self.connection.close()
        return answer.status, (json.loads(raw) if raw and answer.getheader("Content-Type", "").startswith("application/json") else None)
