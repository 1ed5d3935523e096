#!/usr/bin/env python3
"""HTTP API throughput against the web server + PostgreSQL (issue 2, "Performance").

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/kinplay_bench python bench/api.py [--seconds 20]

1. Uses the database named in DATABASE_URL (default ``kinplay_bench``), creating it
   (createdb) when it does not exist, migrates it, and starts the web server as bin/run does
   (kinplay/server.py: granian, threaded workers with keep-alive) on a free
   loopback port, with a private redis-server as the broker when one is installed (the
   on-commit outbox kick really publishes), else the embedded filesystem broker.
2. Creates one user and one Knonsters game against a bot (no clock) per client; then 8
   client threads, each with one keep-alive http.client connection (reopened when the server
   closes it), POST a legal action
   (picked from the last response's legal_actions, with expected_version) to
   /api/games/{id}/actions/ for --seconds; a finished game is replaced by a new one
   (not counted). Prints durable moves/s (201 answers: committed) and p50/p99 latency.
3. Builds a ~10,000-event game through the service (two players who keep choosing the same
   favourites: the rules restart the deal each time) and compares loading it with loading a
   ~10-event game: GET /api/games/{id}/ over HTTP and games.store.load_state in process.
4. Times replaying 1,000 events: read from the database as games.store does (no snapshot
   used) and folded with evolve, and evolve alone. load_state is timed without the process's
   cache of latest states (the database path).
The bench database is dropped at the end only if this run created it (--keep-db keeps it even
then); a database that existed before is never dropped. Loopback addresses only.
"""

from __future__ import annotations

import argparse
import http.client
import io
import json
import os
import random
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path
from urllib.parse import quote, unquote, urlsplit, urlunsplit

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from bench.engine import replay_1000_ms  # noqa: E402  (after the path is set)

BENCH_DB = "kinplay_bench"
PASSWORD = "bench-password-123"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_port(port, proc=None, timeout=30):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if proc is not None and proc.poll() is not None:
            raise RuntimeError(f"process exited with {proc.returncode}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError(f"nothing listens on 127.0.0.1:{port} after {timeout}s")


def pct(values, p):
    if not values:
        return float("nan")
    values = sorted(values)
    k = min(len(values) - 1, max(0, round(p / 100 * (len(values) - 1))))
    return values[k]


# ------------------------------------------------------------------ CPU accounting (Linux /proc)

TICK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def proc_cpu(pid) -> float:
    """User + system CPU seconds of one process (0 if it is gone)."""
    try:
        with open(f"/proc/{pid}/stat") as fh:
            fields = fh.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / TICK
    except (OSError, IndexError, ValueError):
        return 0.0


def children(pid) -> list[int]:
    out = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as fh:
                    if int(fh.read().rsplit(")", 1)[1].split()[1]) == pid:
                        out.append(int(entry))
            except (OSError, IndexError, ValueError):
                pass
    return out


def machine_cpu():
    """(busy, total) jiffies of the whole machine."""
    with open("/proc/stat") as fh:
        v = [int(x) for x in fh.readline().split()[1:]]
    idle = v[3] + (v[4] if len(v) > 4 else 0)
    return sum(v) - idle, sum(v)


class CpuMeter:
    """CPU spent by the web server (its main process and workers) and by the PostgreSQL backends serving the
    bench database, to tell the server's own cost per move from the machine's other load."""

    def __init__(self, server_pid, pg, redis_pid=None):
        self.server_pid, self.pg, self.redis_pid = server_pid, pg, redis_pid

    def backends(self):
        out = subprocess.run(["psql", *self.pg.cli, "-tAc",
                              f"SELECT pid FROM pg_stat_activity WHERE datname = '{self.pg.name}' AND pid <> pg_backend_pid()",
                              self.pg.name], env=self.pg.env, capture_output=True, text=True)
        return [int(x) for x in out.stdout.split() if x.strip().isdigit()]

    def commits(self):
        out = subprocess.run(["psql", *self.pg.cli, "-tAc",
                              f"SELECT xact_commit FROM pg_stat_database WHERE datname = '{self.pg.name}'",
                              self.pg.name], env=self.pg.env, capture_output=True, text=True)
        return int(out.stdout.strip() or 0)

    def sample(self):
        g = [self.server_pid, *children(self.server_pid)]
        b = self.backends()
        return {"server": {p: proc_cpu(p) for p in g}, "postgres": {p: proc_cpu(p) for p in b},
                "clients": {os.getpid(): proc_cpu(os.getpid())}, "commits": self.commits(),
                "redis": {self.redis_pid: proc_cpu(self.redis_pid)} if self.redis_pid else {},
                "traffic": Traffic.snapshot(), "machine": machine_cpu(), "t": time.monotonic()}

    @staticmethod
    def spent(a, b, key):
        return sum(cpu - a[key].get(pid, 0.0) for pid, cpu in b[key].items())


# ------------------------------------------------------------------ database


class Postgres:
    def __init__(self, url: str):
        parts = urlsplit(url)
        if parts.scheme not in ("postgres", "postgresql", "pgsql"):
            raise SystemExit(f"bench/api.py needs PostgreSQL: DATABASE_URL={url!r}")
        if parts.hostname not in ("127.0.0.1", "localhost", "::1"):
            raise SystemExit("bench/api.py only talks to a loopback PostgreSQL")
        self.parts = parts
        self.name = unquote(parts.path.lstrip("/")) or BENCH_DB
        if self.name in ("postgres", "template0", "template1"):
            raise SystemExit(f"bench/api.py will not fill the maintenance database {self.name!r} with bench data: "
                             f"name a bench database in DATABASE_URL, e.g. .../{BENCH_DB}")
        self.bench_url = urlunsplit(parts._replace(path=f"/{quote(self.name)}"))
        self.created = False
        self.cli = ["-h", parts.hostname or "127.0.0.1", "-p", str(parts.port or 5432), "-U", parts.username or "postgres"]
        self.env = dict(os.environ, PGPASSWORD=parts.password or "")

    def url_for(self, db):
        return urlunsplit(self.parts._replace(path=f"/{db}"))

    def run(self, tool, *args):
        subprocess.run([tool, *self.cli, *args], env=self.env, check=True, stdin=subprocess.DEVNULL)

    def exists(self) -> bool:
        out = subprocess.run(["psql", *self.cli, "-tA", "-v", f"n={self.name}", "postgres"], env=self.env, check=True,
                             input="SELECT 1 FROM pg_database WHERE datname = :'n';", capture_output=True, text=True)
        return out.stdout.strip() == "1"

    def create(self):
        """Create the named database unless it exists (then it is used, and never dropped)."""
        if self.exists():
            print(f"bench/api.py: using the existing database {self.name} (it will not be dropped)")
            return
        self.run("createdb", self.name)
        self.created = True

    def drop(self):
        if not self.created:  # never drop a database this run did not create
            return
        self.run("dropdb", "--if-exists", "--force", self.name)

    def version(self):
        out = subprocess.run(["psql", *self.cli, "-tAc", "SHOW server_version", self.name], env=self.env,
                             capture_output=True, text=True)
        return out.stdout.strip()


# ------------------------------------------------------------------ HTTP client


class Traffic:
    """Bytes sent and received and TCP connections opened by every client (make bench-peer
    compares them with boardgame.io's socket.io clients)."""

    lock = threading.Lock()
    sent = received = connections = 0

    @classmethod
    def add(cls, sent=0, received=0, connections=0):
        with cls.lock:
            cls.sent += sent
            cls.received += received
            cls.connections += connections

    @classmethod
    def snapshot(cls):
        with cls.lock:
            return {"sent": cls.sent, "received": cls.received, "connections": cls.connections}


class _CountingReader(socket.SocketIO):
    def readinto(self, buffer):
        n = super().readinto(buffer)
        Traffic.add(received=n or 0)
        return n


class CountingConnection(http.client.HTTPConnection):
    """http.client's connection, counting what crosses the socket (headers included)."""

    def connect(self):
        super().connect()
        Traffic.add(connections=1)
        self.sock = _CountingSocket(self.sock)


class _CountingSocket:
    def __init__(self, sock):
        self._sock = sock

    def __getattr__(self, name):
        return getattr(self._sock, name)

    def sendall(self, data, *a):
        Traffic.add(sent=len(data))
        return self._sock.sendall(data, *a)

    def makefile(self, mode="r", *a, **kw):
        if mode == "rb":  # as socket.makefile does: the file holds the socket open until closed
            self._sock._io_refs += 1
            return io.BufferedReader(_CountingReader(self._sock, "rb"))
        return self._sock.makefile(mode, *a, **kw)


class Client:
    """One keep-alive connection with a user's token."""

    def __init__(self, port, token=None):
        self.port, self.token = port, token
        self.conn = CountingConnection("127.0.0.1", port, timeout=30)

    def request(self, method, path, body=None):
        headers = {"Accept": "application/json"}
        if self.token:
            headers["Authorization"] = f"Token {self.token}"
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        for attempt in range(2):
            try:
                self.conn.request(method, path, body=data, headers=headers)
                resp = self.conn.getresponse()
                raw = resp.read()
                break
            except (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError):
                # the server closed an idle keep-alive connection: reconnect once
                self.conn.close()
                self.conn = CountingConnection("127.0.0.1", self.port, timeout=30)
                if attempt:
                    raise
        return resp.status, (json.loads(raw) if raw else None)


# ------------------------------------------------------------------ the bench


def setup_django(env):
    os.environ.update(env)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "kinplay.settings")
    import django

    django.setup()


def make_user(name):
    from django.contrib.auth import get_user_model
    from rest_framework.authtoken.models import Token

    user = get_user_model().objects.create_user(name, f"{name}@bench.invalid", PASSWORD)
    return user, Token.objects.create(user=user).key


def new_game(client, username):
    status, body = client.request("POST", "/api/games/", {
        "kind": "knonsters", "options": {}, "seats": [{"user": username}, {"bot": "random"}],
        "clock": {"per_move": None, "on_timeout": "bot"},
    })
    if status != 201:
        raise RuntimeError(f"creating a game: {status} {body}")
    return body


def run_clients(port, players, seconds, warmup, meter=None):
    """Client threads posting legal actions; returns the latencies (s) of the 201 answers
    inside the measured window, the other answers, and the games replaced."""
    window = [0.0, 0.0]

    def start_window():  # runs once, before any thread passes the barrier
        now = time.monotonic()
        window[0], window[1] = now + warmup, now + warmup + seconds

    ready = threading.Barrier(len(players) + 1, action=start_window)
    results, lock = [], threading.Lock()

    def work(i, name, token):
        rnd = random.Random(i)
        client = Client(port, token)
        latencies, errors, games = [], Counter(), 0
        try:
            game = new_game(client, name)
        finally:
            ready.wait()
        while True:
            now = time.monotonic()
            if now >= window[1]:
                break
            if game["status"] != "active" or not game["legal_actions"]:
                if game["status"] == "active":
                    _, game = client.request("GET", f"/api/games/{game['id']}/")
                    if game["legal_actions"]:
                        continue
                game = new_game(client, name)
                games += 1
                continue
            choice = rnd.choice(game["legal_actions"])
            t = time.perf_counter()
            status, body = client.request("POST", f"/api/games/{game['id']}/actions/",
                                          {"action": choice["action"], "expected_version": game["version"]})
            took = time.perf_counter() - t
            if status == 201:
                if now >= window[0] and time.monotonic() <= window[1]:
                    latencies.append(took)
                game = body["game"]
            else:
                errors[status] += 1
                _, game = client.request("GET", f"/api/games/{game['id']}/")
        client.conn.close()
        with lock:
            results.append((latencies, errors, games))

    threads = [threading.Thread(target=work, args=(i, name, token)) for i, (name, token) in enumerate(players)]
    for t in threads:
        t.start()
    ready.wait()  # every client has its game; the window is set
    samples = []
    if meter is not None:
        time.sleep(max(0.0, window[0] - time.monotonic()))
        samples.append(meter.sample())
        time.sleep(max(0.0, window[1] - time.monotonic()))
        samples.append(meter.sample())
    for t in threads:
        t.join()
    run_clients.samples = samples
    latencies = [x for r in results for x in r[0]]
    errors = sum((r[1] for r in results), Counter())
    return latencies, errors, sum(r[2] for r in results), seconds


def build_long_game(target_events, through_service=False):
    """A real stream of ~target_events events: two players who keep choosing the same two
    favourites, so the rules restart the deal again and again (Knonsters games are short
    otherwise). Through games.services.act (slow: every command is a full request's work),
    or, by default, the same commands decided by the rules and stored with games.store.append
    (which writes the snapshots) in a few big transactions, then the read model updated."""
    from django.db import transaction

    from games import services
    from games.models import Game
    from games.registry import get
    from games.rng import Rng
    from games.store import append, load_state

    (a, _), (b, _) = make_user("long_a"), make_user("long_b")
    game = services.create_game(creator=a, kind="knonsters", options={}, per_move=None,
                                seats=[{"user": "long_a"}, {"user": "long_b"}])
    same = {"type": "favourites", "knonsters": ["Rithle", "Aristas"]}
    t = time.perf_counter()
    if through_service:
        while True:
            game.refresh_from_db()
            if game.version >= target_events:
                break
            for seat in (0, 1):
                services.act(game.pk, seat, action=same)
    else:
        rules = get("knonsters").rules
        state, version = load_state(game), game.version
        while version < target_events:
            with transaction.atomic():
                for _ in range(250):
                    for seat in (0, 1):
                        events = rules.decide(state, seat, same, Rng(game.seed, version))
                        for e in events:
                            state = rules.evolve(state, e)
                        append(game, version, events, state, seat=seat, command={"seat": seat, "action": same, "by": "player"})
                        version += len(events)
                    if version >= target_events:
                        break
                Game.objects.filter(pk=game.pk).update(version=version, to_act=sorted(rules.to_act(state)))
    game.refresh_from_db()
    return game, time.perf_counter() - t


def build_short_game(target_events):
    from games import services
    from games.engine import clone
    from games.models import Game
    from games.registry import get
    from games.rng import Rng
    from games.store import load_state

    user, token = make_user("short_a")
    game = services.create_game(creator=user, kind="knonsters", options={}, per_move=None,
                                seats=[{"user": "short_a"}, {"bot": "random"}])
    kind = get("knonsters")
    while True:
        game.refresh_from_db()
        if game.version >= target_events or game.status != Game.ACTIVE:
            break
        action = kind.bots.random_bot(clone(load_state(game)), 0, Rng("bench", game.version))
        services.act(game.pk, 0, action=action)
    game.refresh_from_db()
    return game, token


def time_calls(fn, n):
    fn()  # warm
    out = []
    for _ in range(n):
        t = time.perf_counter()
        fn()
        out.append((time.perf_counter() - t) * 1000)
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seconds", type=float, default=20, help="measured seconds of moves (default 20)")
    ap.add_argument("--warmup", type=float, default=3)
    ap.add_argument("--clients", type=int, default=8)
    ap.add_argument("--workers", type=int, help="web worker processes (default: kinplay/server.py's, as bin/run)")
    ap.add_argument("--threads", type=int, help="threads per worker (default kinplay/server.py's)")
    ap.add_argument("--long-events", type=int, default=10_000)
    ap.add_argument("--through-service", action="store_true",
                    help="build the long game with games.services.act (minutes) instead of games.store.append")
    ap.add_argument("--keep-db", action="store_true")
    ap.add_argument("--moves-only", action="store_true", help="measure the moves phase only (make bench-peer)")
    ap.add_argument("--json", help="also write the moves phase's figures to this file (make bench-peer)")
    args = ap.parse_args(argv)

    base = os.environ.get("DATABASE_URL") or f"postgres://postgres@127.0.0.1:5432/{BENCH_DB}"
    pg = Postgres(base)
    tmp = Path(tempfile.mkdtemp(prefix="kinplay-bench-"))
    procs = []
    try:
        print(f"bench/api.py: database {pg.name} on {pg.parts.hostname}:{pg.parts.port or 5432}")
        pg.create()
        env = {
            "DATABASE_URL": pg.bench_url, "KINPLAY_VAR": str(tmp / "var"), "DEBUG": "false",
            "LOG_LEVEL": "WARNING", "SECRET_KEY": "bench-only", "PYTHONUNBUFFERED": "1",
            # the bench's 8 clients are 8 players moving as fast as they can: no throttle
            "THROTTLE_USER": "10000000/min", "THROTTLE_MOVES": "10000000/min",
        }
        env.pop("REDIS_URL", None)
        broker = "filesystem (embedded)"
        if shutil.which("redis-server"):
            rport = free_port()
            procs.append(subprocess.Popen(
                ["redis-server", "--bind", "127.0.0.1", "--port", str(rport), "--save", "", "--appendonly", "no",
                 "--dir", str(tmp)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL))
            wait_port(rport, procs[-1])
            env["REDIS_URL"] = f"redis://127.0.0.1:{rport}/0"
            broker = f"private redis-server on 127.0.0.1:{rport}"
        child_env = {k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "EMAIL_URL", "EMAIL_HOST")}
        child_env.update(env)
        subprocess.run([sys.executable, "manage.py", "migrate", "--noinput", "-v0"], cwd=ROOT, env=child_env,
                       check=True, stdin=subprocess.DEVNULL)
        setup_django(env)

        players = [make_user(f"bench{i}") for i in range(args.clients)]
        players = [(u.username, token) for u, token in players]

        port = free_port()
        glog = open(tmp / "server.log", "wb")
        # The server as bin/run starts it (kinplay/server.py), unless --workers/--threads say otherwise.
        if args.workers:
            child_env["WEB_WORKERS"] = str(args.workers)
        if args.threads:
            child_env["WEB_THREADS"] = str(args.threads)
        cmd = [sys.executable, "-m", "kinplay.server", "--bind", f"127.0.0.1:{port}"]
        procs.append(subprocess.Popen(cmd, cwd=ROOT, env=child_env, stdout=glog, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL))
        wait_port(port, procs[-1])
        time.sleep(1)  # the main process listens first, then starts its workers
        print(f"granian on 127.0.0.1:{port}: {len(children(procs[-1].pid))} workers, "
              f"{child_env.get('WEB_THREADS') or 'kinplay/server.py'} threads; "
              f"PostgreSQL {pg.version()}; broker: {broker}; {os.cpu_count()} CPUs")

        # ---- moves
        print(f"\n{args.clients} clients, {args.warmup:g}s warm-up then {args.seconds:g}s measured ...")
        meter = CpuMeter(procs[-1].pid, pg, redis_pid=procs[0].pid if "REDIS_URL" in env else None)
        load_before = os.getloadavg()[0]
        latencies, errors, games, span = run_clients(port, players, args.seconds, args.warmup, meter)
        moves_per_s = len(latencies) / span
        print(f"  durable moves/s      {moves_per_s:8.1f}   (target >= 200)")
        print(f"  latency p50          {pct(latencies, 50) * 1000:8.1f} ms")
        print(f"  latency p90          {pct(latencies, 90) * 1000:8.1f} ms")
        print(f"  latency p99          {pct(latencies, 99) * 1000:8.1f} ms   (target <= 50 ms)")
        print(f"  latency max          {max(latencies, default=float('nan')) * 1000:8.1f} ms")
        print(f"  moves measured       {len(latencies):8d}   games finished and replaced: {games}"
              f"   non-201 answers: {dict(errors) or 'none'}")
        a, b = run_clients.samples
        if latencies:
            g_ms = CpuMeter.spent(a, b, "server") / len(latencies) * 1000
            p_ms = CpuMeter.spent(a, b, "postgres") / len(latencies) * 1000
            # redis-server: the broker and the throttles' cache, a backing service like the database
            r_ms = CpuMeter.spent(a, b, "redis") / len(latencies) * 1000
            p_ms += r_ms
            busy = (b["machine"][0] - a["machine"][0]) / max(1, b["machine"][1] - a["machine"][1])
            ours = (CpuMeter.spent(a, b, "server") + CpuMeter.spent(a, b, "postgres") + CpuMeter.spent(a, b, "redis")) / (b["t"] - a["t"]) / (os.cpu_count() or 1)
            print(f"  CPU per move         {g_ms + p_ms:8.2f} ms   (server {g_ms:.2f} + PostgreSQL backends "
                  f"{p_ms - r_ms:.2f} + redis-server {r_ms:.2f})")
            c_ms = CpuMeter.spent(a, b, "clients") / len(latencies) * 1000
            theirs = CpuMeter.spent(a, b, "clients") / (b["t"] - a["t"]) / (os.cpu_count() or 1)
            print(f"  clients' CPU         {c_ms:8.2f} ms per move (this process: 8 threads building and parsing JSON)")
            print(f"  machine CPU busy     {busy * 100:8.0f} %    of which this server {ours * 100:.0f} %, the clients "
                  f"{theirs * 100:.0f} %; load average {load_before:.1f} before the run")
            print(f"  projection           {(os.cpu_count() or 1) * 1000 / (g_ms + p_ms):8.0f} moves/s if this server had "
                  f"all {os.cpu_count()} CPUs (CPU-bound estimate, excludes the clients' own CPU)")
            n = len(latencies)
            sent = b["traffic"]["sent"] - a["traffic"]["sent"]
            received = b["traffic"]["received"] - a["traffic"]["received"]
            opened = b["traffic"]["connections"] - a["traffic"]["connections"]
            commits = b["commits"] - a["commits"]
            print(f"  per move             {sent / n:8.0f} B sent, {received / n:.0f} B received, "
                  f"{opened / n:.2f} TCP connections opened, {commits / n:.2f} commits")
            if args.json:
                Path(args.json).write_text(json.dumps({
                    "moves": n, "seconds": span, "moves_per_s": moves_per_s,
                    "p50_ms": pct(latencies, 50) * 1000, "p90_ms": pct(latencies, 90) * 1000,
                    "p99_ms": pct(latencies, 99) * 1000, "server_cpu_ms": g_ms, "db_cpu_ms": p_ms, "redis_cpu_ms": r_ms,
                    "clients_cpu_ms": c_ms, "bytes_out": sent, "bytes_in": received, "connections": opened, "commits": commits,
                    "errors": dict(errors), "load_before": load_before,
                    "server": f"granian {len(children(procs[-1].pid))} workers",
                }))
        if args.moves_only:
            return 0

        # ---- load cost: ~10 vs ~10,000 events
        from django.db import connection

        from games.models import Event, Snapshot
        from games.registry import get
        from games.engine import replay
        from games.store import load_state

        how = "games.services.act" if args.through_service else "rules.decide + games.store.append"
        print(f"\nbuilding a ~{args.long_events:,}-event game ({how}) ...")
        long_game, took = build_long_game(args.long_events, args.through_service)
        print(f"  {long_game.version:,} events in {took:.1f}s ({long_game.version / took:,.0f} events/s appended "
              f"in process, {Snapshot.objects.filter(game=long_game).count()} snapshots)")
        short_game, short_token = build_short_game(10)
        from rest_framework.authtoken.models import Token

        long_token = Token.objects.get(user__username="long_a").key
        http_short, http_long = Client(port, short_token), Client(port, long_token)

        def get_game(client, game):
            status, body = client.request("GET", f"/api/games/{game.pk}/")
            assert status == 200 and body["version"] == game.version, (status, body)

        rows = []
        for label, game, client in (("~10 events", short_game, http_short), (f"~{args.long_events:,} events", long_game, http_long)):
            game.refresh_from_db()
            h = time_calls(lambda: get_game(client, game), 200)
            d = time_calls(lambda: load_state(game, cached=False), 200)
            rows.append((label, game.version, statistics.median(h), pct(h, 99), statistics.median(d), pct(d, 99)))
        print("\nloading a game            events   GET /api/games/{id}/ p50 / p99     load_state p50 / p99")
        for label, v, hp50, hp99, dp50, dp99 in rows:
            print(f"  {label:<20} {v:>8,}   {hp50:8.2f} / {hp99:6.2f} ms            {dp50:6.2f} / {dp99:6.2f} ms")
        ratio = rows[1][2] / rows[0][2]
        print(f"  ratio long/short (GET p50): {ratio:.2f}   (target: flat, thanks to snapshots)")

        # ---- replay 1,000 events
        rules = get("knonsters").rules

        def from_db():  # as games.store.load_state reads events: one plain SELECT, JSON decoded here
            with connection.cursor() as cursor:
                cursor.execute("SELECT type, data FROM games_event WHERE game_id = %s AND seq <= 1000 ORDER BY seq",
                               [long_game.pk])
                rows_ = cursor.fetchall()
            return replay(rules, ({"type": t, "data": json.loads(d) if isinstance(d, str) else d} for t, d in rows_))

        events = [{"type": t, "data": d} for t, d in
                  Event.objects.filter(game=long_game, seq__lte=1000).order_by("seq").values_list("type", "data")]
        encoded = json.dumps(events)
        db_ms = time_calls(from_db, 30)
        pure = []
        for _ in range(30):
            fresh = json.loads(encoded)
            t = time.perf_counter()
            replay(rules, fresh)
            pure.append((time.perf_counter() - t) * 1000)
        # A race-heavy stream too (the restart stream is mostly choices and deals).
        race = []
        from games.models import Game as G

        finished = [g for g in G.objects.filter(status="finished").order_by("pk")[:200]]
        race_streams, count = [], 0
        for g in finished:
            race_streams.append([{"type": t, "data": d} for t, d in
                                 Event.objects.filter(game=g).order_by("seq").values_list("type", "data")])
            count += len(race_streams[-1])
            if count >= 1000:
                break
        if count >= 1000:
            race = replay_1000_ms(rules, race_streams, 30, time.perf_counter)
        print("\nreplay 1,000 events (knonsters)                p50        best   (target <= 20 ms)")
        print(f"  read from PostgreSQL + evolve (restarts)  {statistics.median(db_ms):7.2f} ms  {min(db_ms):7.2f} ms")
        print(f"  evolve only (restarts stream)             {statistics.median(pure):7.2f} ms  {min(pure):7.2f} ms")
        if race:
            print(f"  evolve only (finished bench games)        {statistics.median(race):7.2f} ms  {min(race):7.2f} ms")
        connection.close()
        return 0
    finally:
        for p in reversed(procs):
            if p.poll() is None:
                p.terminate()
                try:
                    p.wait(10)
                except subprocess.TimeoutExpired:
                    p.kill()
        try:
            from django.db import connections

            connections.close_all()
        except Exception:  # noqa: BLE001 - Django may not be set up
            pass
        if not args.keep_db:
            try:
                pg.drop()
            except Exception as exc:  # noqa: BLE001
                print(f"could not drop {pg.name}: {exc}")
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
