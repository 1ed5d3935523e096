"""Real services for the tests that need them: a Celery worker + beat as subprocesses sharing
the test database, a broker (Redis, or the embedded filesystem broker off CI), a private
redis-server that a test may stop and restart, and an SMTP server on loopback (aiosmtpd).

Every wait is bounded; every subprocess is killed when the test ends; the worker's log is
printed at teardown (pytest shows it when the test fails).
"""

from __future__ import annotations

import email
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import uuid
from contextlib import contextmanager
from email import policy
from pathlib import Path
from urllib.parse import quote, urlsplit, urlunsplit

import pytest

from tests.conftest import IN_CI, free_port, unavailable, wait_for

ROOT = Path(__file__).resolve().parents[2]
SITE_URL = "http://kinplay.test:8123"


# ------------------------------------------------------------------ small helpers


def redis_ping(url: str, timeout=1.0) -> bool:
    parts = urlsplit(url)
    try:
        with socket.create_connection((parts.hostname or "127.0.0.1", parts.port or 6379), timeout=timeout) as s:
            s.settimeout(timeout)
            if parts.password:
                user = parts.username or "default"
                s.sendall(f"AUTH {user} {parts.password}\r\n".encode())
                s.recv(64)
            s.sendall(b"PING\r\n")
            return s.recv(64).startswith(b"+PONG")
    except OSError:
        return False


def database_url() -> str:
    """The test database as a DATABASE_URL another process can open."""
    from django.db import connection

    s = connection.settings_dict
    if connection.vendor == "sqlite":
        name = str(s["NAME"])
        if name == ":memory:" or "mode=memory" in name:
            pytest.fail("the SQLite test database must be a file to be shared with a worker")
        return f"sqlite:///{Path(name).resolve()}"
    if connection.vendor == "postgresql":
        auth = quote(s.get("USER") or "", safe="")
        if s.get("PASSWORD"):
            auth += ":" + quote(s["PASSWORD"], safe="")
        host = s.get("HOST") or "127.0.0.1"
        port = f":{s['PORT']}" if s.get("PORT") else ""
        return f"postgres://{auth}@{host}{port}/{quote(s['NAME'], safe='')}"
    pytest.fail(f"no worker DATABASE_URL for database vendor {connection.vendor}")


# ------------------------------------------------------------------ brokers


class Broker:
    """Where the test process publishes and the worker consumes."""

    def __init__(self, kind: str, url: str, var: Path):
        self.kind, self.url, self.var = kind, url, var

    def worker_env(self) -> dict:
        return {"REDIS_URL": self.url} if self.kind == "redis" else {}

    def transport_options(self) -> dict:
        if self.kind == "redis":
            return {}
        folder = self.var / "broker"
        for sub in ("out", "processed"):
            (folder / sub).mkdir(parents=True, exist_ok=True)
        return {
            "data_folder_in": str(folder / "out"),
            "data_folder_out": str(folder / "out"),
            "processed_folder": str(folder / "processed"),
            "store_processed": False,
        }


def _reset_producer_pools(app):
    """Make the app look its pools up again for the current broker_url. Nothing is closed:
    kombu keeps one pool per broker in a process-wide registry, and a closed pool would
    break every later publish to that broker (even the eager tests acquire a producer)."""
    app._pool = None
    app.amqp._producer_pool = None


@contextmanager
def publishing_to(broker: Broker):
    """Point this process's Celery app at ``broker`` and stop running tasks inline, so that
    the on-commit kick really goes through the broker to the worker."""
    from kinplay.celery import app

    saved = (app.conf.broker_url, app.conf.broker_transport_options, app.conf.task_always_eager)
    app.conf.broker_url = "filesystem://" if broker.kind == "filesystem" else broker.url
    app.conf.broker_transport_options = broker.transport_options()
    app.conf.task_always_eager = False
    _reset_producer_pools(app)
    try:
        yield
    finally:
        app.conf.broker_url, app.conf.broker_transport_options, app.conf.task_always_eager = saved
        _reset_producer_pools(app)


@pytest.fixture
def service_var(tmp_path):
    """KINPLAY_VAR of the worker: its beat schedule, filesystem broker and mail files."""
    var = tmp_path / "var"
    var.mkdir()
    return var


@pytest.fixture
def broker(service_var):
    """Redis when REDIS_URL is set or a local Redis answers (always in CI); else, off CI,
    the embedded filesystem broker in a private folder (KINPLAY_TEST_BROKER=filesystem
    forces it off CI)."""
    if os.environ.get("KINPLAY_TEST_BROKER") == "filesystem" and not IN_CI:  # to try that path on purpose
        return Broker("filesystem", "filesystem://", service_var)
    url = os.environ.get("REDIS_URL", "")
    if url:
        if not redis_ping(url):
            unavailable(f"REDIS_URL={url} does not answer")
        return Broker("redis", own_database(url), service_var)
    local = "redis://127.0.0.1:6379/0"
    if redis_ping(local):
        return Broker("redis", own_database(local), service_var)
    if IN_CI:
        unavailable("Redis is not reachable on 127.0.0.1:6379 and REDIS_URL is not set")
    return Broker("filesystem", "filesystem://", service_var)


def own_database(url: str) -> str:
    """Each pytest-xdist process gets its own Redis database: two workers started by tests
    running side by side must never take each other's tasks (and run them against the other
    test's database)."""
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")
    if not worker.startswith("gw"):
        return url
    parts = urlsplit(url)
    db = (int(parts.path.strip("/") or 0) + 1 + int(worker[2:])) % 16
    return urlunsplit(parts._replace(path=f"/{db}"))


class RedisServer:
    """A private redis-server on a free loopback port, which a test may stop and restart."""

    def __init__(self, workdir: Path):
        self.binary = shutil.which("redis-server")
        self.port = free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.workdir = workdir
        self.proc = None
        self.log_path = workdir / "redis.log"

    def start(self):
        cmd = [self.binary, "--bind", "127.0.0.1", "--port", str(self.port), "--save", "", "--appendonly", "no",
               "--dir", str(self.workdir)]
        self.proc = subprocess.Popen(cmd, stdout=open(self.log_path, "ab"), stderr=subprocess.STDOUT,
                                     stdin=subprocess.DEVNULL, start_new_session=True)
        wait_for(lambda: redis_ping(self.url) or self.proc.poll() is not None, f"redis-server on port {self.port}", timeout=15)
        if self.proc.poll() is not None:
            pytest.fail(f"redis-server exited: {self.log_path.read_text(errors='replace')}")

    def stop(self):
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
        self.proc = None
        wait_for(lambda: not redis_ping(self.url, timeout=0.3), "redis-server to stop", timeout=10)


@pytest.fixture
def private_redis(tmp_path):
    if not shutil.which("redis-server"):
        unavailable("redis-server is not installed (needed to stop and restart a broker)")
    workdir = tmp_path / "redis"
    workdir.mkdir()
    server = RedisServer(workdir)
    server.start()
    try:
        yield server
    finally:
        server.stop()


# ------------------------------------------------------------------ SMTP


class Inbox:
    """Messages received by the loopback SMTP server."""

    def __init__(self):
        self.lock = threading.Lock()
        self.received: list[dict] = []

    async def handle_DATA(self, server, session, envelope):
        msg = email.message_from_bytes(envelope.original_content or envelope.content, policy=policy.default)
        text = msg.get_body(("plain",))
        html = msg.get_body(("html",))
        with self.lock:
            self.received.append({
                "from": envelope.mail_from, "to": list(envelope.rcpt_tos), "subject": str(msg["subject"]),
                "text": text.get_content() if text else "", "html": html.get_content() if html else "",
                "message": msg, "at": time.time(),
            })
        return "250 Message accepted for delivery"

    def messages(self, to=None, subject=None):
        with self.lock:
            return [m for m in self.received
                    if (to is None or to in m["to"]) and (subject is None or m["subject"] == subject)]


@pytest.fixture
def smtp():
    from aiosmtpd.controller import Controller

    inbox = Inbox()
    inbox.port = free_port()
    controller = Controller(inbox, hostname="127.0.0.1", port=inbox.port)
    controller.start()
    try:
        yield inbox
    finally:
        controller.stop()


# ------------------------------------------------------------------ the worker


class Worker:
    """``celery -A kinplay worker -B`` (threads pool, beat embedded unless ``beat`` is False) as a subprocess."""

    def __init__(self, var: Path, broker: Broker, smtp: Inbox | None, name: str, beat=True):
        self.var, self.broker, self.smtp, self.beat = var, broker, smtp, beat
        self.log_path = var / f"{name}.log"
        self.name = name
        self.proc = None

    def env(self) -> dict:
        env = {k: v for k, v in os.environ.items()
               if not k.startswith(("EMAIL_", "CELERY_")) and k not in ("REDIS_URL", "DATABASE_URL", "KINPLAY_VAR")}
        env.update(
            DATABASE_URL=database_url(), KINPLAY_VAR=str(self.var), SWEEP_SECONDS="1", SITE_URL=SITE_URL,
            LOG_LEVEL="INFO", PYTHONUNBUFFERED="1", DJANGO_SETTINGS_MODULE="kinplay.settings",
            BEAT_LEASE_SECONDS="4", BEAT_LEASE_RENEW="1",  # a scheduler killed is replaced within seconds
        )
        env.update(self.broker.worker_env())
        if self.smtp is not None:
            env.update(EMAIL_HOST="127.0.0.1", EMAIL_PORT=str(self.smtp.port))
        return env

    def command(self) -> list[str]:
        return [
            sys.executable, "-m", "celery", "-A", "kinplay", "worker", *(["-B"] if self.beat else []),
            "--pool=threads", "--concurrency=4", "--loglevel=INFO", "-Q", "deadlines,email,celery",
            "-n", f"{self.name}-{uuid.uuid4().hex[:8]}@%h",
            "--without-gossip", "--without-mingle", "--without-heartbeat",
            "-s", str(self.var / "celerybeat-schedule"),
        ]

    ready = " ready."  # what the log says once it runs

    def start(self):
        self.proc = subprocess.Popen(self.command(), cwd=ROOT, env=self.env(), stdin=subprocess.DEVNULL,
                                     stdout=open(self.log_path, "ab"), stderr=subprocess.STDOUT, start_new_session=True)
        wait_for(lambda: self.proc.poll() is not None or self.ready in self.log(),
                 f"{self.name} to be ready", on_fail=self.dump)
        if self.proc.poll() is not None:
            self.dump()
            pytest.fail(f"{self.name} exited with {self.proc.returncode}")
        return self

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def log(self) -> str:
        try:
            return self.log_path.read_text(errors="replace")
        except FileNotFoundError:
            return ""

    def dump(self):
        print(f"\n----- {self.name} log ({self.log_path}) -----\n{self.log()}\n----- end of {self.name} log -----")

    def stop(self):
        if self.proc is None:
            return
        if self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, signal.SIGTERM)  # the worker's own process group
                self.proc.wait(15)
            except (ProcessLookupError, subprocess.TimeoutExpired):
                try:
                    os.killpg(self.proc.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                self.proc.wait(5)
        self.proc = None


class Beat(Worker):
    """``celery -A kinplay beat`` on its own, as a node that only schedules runs it."""

    ready = "beat: Starting..."

    def command(self) -> list[str]:
        return [sys.executable, "-m", "celery", "-A", "kinplay", "beat", "--loglevel=INFO",
                "-s", str(self.var / f"{self.name}-schedule")]


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """Keep each phase's report on the item, so a fixture's teardown knows the test failed."""
    outcome = yield
    rep = outcome.get_result()
    setattr(item, f"rep_{rep.when}", rep)


@pytest.fixture
def start_worker(request, purgeable_events, service_var):
    """``start_worker(broker, smtp=None)`` starts a worker + beat publishing to ``broker``
    (``beat=False``: the worker alone; ``kind=Beat``: a beat alone);
    this process publishes there too while the test runs. Killed at teardown, before the
    database is flushed; its log is printed (shown by pytest when the test fails)."""
    workers, contexts = [], []

    def start(broker: Broker, smtp: Inbox | None = None, name="worker", beat=True, kind=Worker):
        if not contexts:
            ctx = publishing_to(broker)
            ctx.__enter__()
            contexts.append(ctx)
        worker = kind(service_var, broker, smtp, name, beat)
        workers.append(worker)
        return worker.start()

    try:
        yield start
    finally:
        for w in workers:
            w.stop()
        failed = getattr(request.node, "rep_call", None)
        for w in workers:
            w.dump()
            if failed is not None and failed.failed:  # shown with the failure, at the end of the run
                failed.sections.append((f"{w.name} log ({w.log_path})", w.log()[-20000:]))
        for ctx in reversed(contexts):
            ctx.__exit__(None, None, None)
