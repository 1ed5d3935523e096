#!/usr/bin/env python3
"""make bench-peer: kinplay's durable move next to boardgame.io's, in one run (issue 18).

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres bench/peer/run.py [--seconds 20]

One after the other, with the same clients (--clients, 8) and the same warm-up and measured
window (--seconds, default 20; --seconds 5 for a quick look):

1. kinplay: bench/api.py's moves phase (granian as bin/run starts it, PostgreSQL, a bot
   answering each move in the same transaction), database kp_peer_<pid>;
2. boardgame.io 0.50 (bench/peer/server.js, game.js) with its in-memory storage, FlatFile
   (a temporary folder) and bgio-postgres (database kp_peer_bgio_<pid> on the same server), driven by
   bench/peer/driver.js: its socket.io clients, one move at a time each, the bot's answer made
   in the same update.

The two drivers are written to be equivalent (not one program): N clients, one connection and
one game each, the next move sent only when the answer to the last arrived, latency from
sending to the answer, finished games replaced outside the count. Per move it records the CPU of
the server processes (granian's main process and workers / the node process) and of the
PostgreSQL backends serving the bench database (/proc/<pid>/stat), commits
(pg_stat_database.xact_commit), bytes the clients sent and received and TCP connections they
opened, and the CPU of the clients themselves (the bench's process of Python threads / the node
driver), which share the machine with the server but are not counted in its figure. Prints one
table with ratios to kinplay's row. Both bench databases are created here and dropped at the
end. Loopback only.
"""

from __future__ import annotations

import argparse
import json
import operator
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path.insert(0, str(ROOT))
from bench.api import Postgres, children, free_port, proc_cpu, wait_port  # noqa: E402

# This run's own databases (the process id in the name), so two runs at once do not drop each
# other's; each is dropped when its system's turn ends.
KINPLAY_DB = f"kp_peer_{os.getpid()}"
BGIO_DB = f"kp_peer_bgio_{os.getpid()}"


def npm_install():
    if not (HERE / "node_modules" / "boardgame.io").exists():
        print("bench/peer: npm ci (boardgame.io 0.50.2, bgio-postgres) ...", flush=True)
        subprocess.run(["npm", "ci", "--no-audit", "--no-fund", "--loglevel=error"], cwd=HERE, check=True)


def backends(pg, db):
    out = subprocess.run(["psql", *pg.cli, "-tAc",
                          f"SELECT pid FROM pg_stat_activity WHERE datname = '{db}' AND pid <> pg_backend_pid()", db],
                         env=pg.env, capture_output=True, text=True)
    return [int(x) for x in out.stdout.split() if x.strip().isdigit()]


def commits(pg, db):
    out = subprocess.run(["psql", *pg.cli, "-tAc", f"SELECT xact_commit FROM pg_stat_database WHERE datname = '{db}'", db],
                         env=pg.env, capture_output=True, text=True)
    return int(out.stdout.strip() or 0)


def sample(server_pid, pg, db, driver_pid):
    s = {"server": {p: proc_cpu(p) for p in [server_pid, *children(server_pid)]}, "t": time.monotonic(),
         "clients": {driver_pid: proc_cpu(driver_pid)}}
    if db:
        s["db"] = {p: proc_cpu(p) for p in backends(pg, db)}
        s["commits"] = commits(pg, db)
    return s


def spent(a, b, key):
    return sum(cpu - a.get(key, {}).get(pid, 0.0) for pid, cpu in b.get(key, {}).items())


def run_kinplay(args, pg, tmp):
    out = tmp / "kinplay.json"
    env = dict(os.environ, DATABASE_URL=pg.bench_url)
    cmd = [sys.executable, str(ROOT / "bench" / "api.py"), "--moves-only", "--json", str(out),
           "--seconds", str(args.seconds), "--warmup", str(args.warmup), "--clients", str(args.clients)]
    if args.workers:
        cmd += ["--workers", str(args.workers)]
    if args.threads:
        cmd += ["--threads", str(args.threads)]
    print(f"\n== kinplay: {' '.join(cmd[1:])}", flush=True)
    subprocess.run(cmd, cwd=ROOT, env=env, check=True, stdin=subprocess.DEVNULL)
    r = json.loads(out.read_text())
    r["cpu_ms"] = r["server_cpu_ms"] + r["db_cpu_ms"]
    return r


def run_bgio(storage, args, pg, tmp):
    port = free_port()
    where, db = "", None
    if storage == "flatfile":
        where = str(tmp / "flatfile")
    elif storage == "postgres":
        db = BGIO_DB
        pg.run("dropdb", "--if-exists", "--force", db)
        pg.run("createdb", db)
        where = pg.url_for(db)
    print(f"\n== boardgame.io {storage}: node server.js {storage} {port}; node driver.js {port} {args.clients} "
          f"{args.seconds:g} {args.warmup:g}", flush=True)
    log = open(tmp / f"bgio-{storage}.log", "wb")
    server = subprocess.Popen(["node", "server.js", storage, str(port), where], cwd=HERE, stdout=log,
                              stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    try:
        wait_port(port, server)
        load_before = os.getloadavg()[0]
        driver = subprocess.Popen(["node", "driver.js", str(port), str(args.clients), str(args.seconds), str(args.warmup)],
                                  cwd=HERE, stdout=subprocess.PIPE, text=True, stdin=subprocess.DEVNULL)
        samples, result = [], None
        for line in driver.stdout:
            if line.startswith("WINDOW"):
                samples.append(sample(server.pid, pg, db, driver.pid))
            elif line.startswith("{"):
                result = json.loads(line)
        if driver.wait() != 0 or result is None or len(samples) != 2:
            raise RuntimeError(f"driver failed for {storage} (exit {driver.returncode}); see {tmp}/bgio-{storage}.log")
    finally:
        server.terminate()
        try:
            server.wait(10)
        except subprocess.TimeoutExpired:
            server.kill()
        if db:
            pg.run("dropdb", "--if-exists", "--force", db)
    a, b = samples
    n = max(1, result["moves"])
    result.update(
        moves_per_s=result["moves"] / args.seconds, load_before=load_before,
        server_cpu_ms=spent(a, b, "server") / n * 1000, db_cpu_ms=spent(a, b, "db") / n * 1000,
        clients_cpu_ms=spent(a, b, "clients") / n * 1000,
        commits=(b["commits"] - a["commits"]) if db else 0,
    )
    result["cpu_ms"] = result["server_cpu_ms"] + result["db_cpu_ms"]
    return result


ROWS = [
    ("kinplay", "PostgreSQL", "yes"),
    ("boardgame.io", "in memory", "no"),
    ("boardgame.io", "FlatFile", "no (written after the answer, no fsync)"),
    ("boardgame.io", "PostgreSQL (bgio-postgres)", "no (commits after the answer)"),
]


def table(results):
    k = results[0]
    lines = [
        "| system | storage | durable before the answer? | moves/s | p50 | p99 | CPU per move (server + DB, Redis) "
        "| clients' CPU per move | bytes out / in per move | TCP connects per move | commits per move | load avg before |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for (system, storage, durable), r in zip(ROWS, results):
        n = max(1, r["moves"])
        lines.append(
            f"| {system} | {storage} | {durable} | {r['moves_per_s']:.0f} | {r['p50_ms']:.1f} ms | {r['p99_ms']:.1f} ms "
            f"| {r['cpu_ms']:.2f} ms ({r['server_cpu_ms']:.2f} + {r['db_cpu_ms']:.2f}) | {r['clients_cpu_ms']:.2f} ms "
            f"| {r['bytes_out'] / n:.0f} / {r['bytes_in'] / n:.0f} | {r['connections'] / n:.3f} "
            f"| {r['commits'] / n:.2f} | {r['load_before']:.1f} |")
    lines += ["", "Ratios, kinplay / boardgame.io (the issue's targets in brackets):", ""]
    for system_key, (system, storage, _), r in zip(SYSTEMS[1:], ROWS[1:], results[1:]):
        wanted = {metric: f" [{op} {limit:g}]" for key, metric, op, limit in TARGETS if key == system_key}
        cpu_t, mps_t, p99_t = (wanted.get(m, "") for m in ("cpu_ms", "moves_per_s", "p99_ms"))
        lines.append(f"- vs {storage}: CPU per move {k['cpu_ms'] / r['cpu_ms']:.2f}x{cpu_t}, "
                     f"moves/s {k['moves_per_s'] / r['moves_per_s']:.2f}x{mps_t}, "
                     f"p99 {k['p99_ms'] / r['p99_ms']:.2f}x{p99_t}")
    return "\n".join(lines)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seconds", type=float, default=20, help="measured seconds per system (default 20)")
    ap.add_argument("--warmup", type=float, default=3)
    ap.add_argument("--clients", type=int, default=8)
    ap.add_argument("--workers", type=int, help="kinplay: web worker processes (default kinplay/server.py's)")
    ap.add_argument("--threads", type=int, help="kinplay: threads per worker (default kinplay/server.py's)")
    ap.add_argument("--rounds", type=int, default=1,
                    help="run every system this many times, round after round, and print each target's median ratio")
    ap.add_argument("--only", choices=["kinplay", "memory", "flatfile", "postgres"], action="append",
                    help="run only these (repeatable); the table needs all four")
    args = ap.parse_args(argv)
    if shutil.which("node") is None:
        raise SystemExit("make bench-peer needs node (20+) and npm")
    # The server of DATABASE_URL; the two bench databases are named here.
    server = urlsplit(os.environ.get("DATABASE_URL") or "postgres://postgres@127.0.0.1:5432/postgres")
    pg = Postgres(urlunsplit(server._replace(path=f"/{KINPLAY_DB}")))
    npm_install()
    tmp = Path(tempfile.mkdtemp(prefix="kinplay-bench-peer-"))
    print(f"{os.cpu_count()} CPUs; load average {' '.join(f'{x:.1f}' for x in os.getloadavg())}; "
          f"{args.clients} clients, {args.warmup:g}s warm-up + {args.seconds:g}s measured each")
    wanted = args.only or SYSTEMS
    rounds = []
    try:
        for n in range(1, args.rounds + 1):
            if args.rounds > 1:
                print(f"\n#### round {n} of {args.rounds}", flush=True)
            results = {}
            if "kinplay" in wanted:
                results["kinplay"] = run_kinplay(args, pg, tmp)
            for storage in SYSTEMS[1:]:
                if storage in wanted:
                    results[storage] = run_bgio(storage, args, pg, tmp)
                    r = results[storage]
                    print(f"  {r['moves_per_s']:.0f} moves/s, p50 {r['p50_ms']:.1f} ms, p99 {r['p99_ms']:.1f} ms, "
                          f"CPU per move {r['cpu_ms']:.2f} ms; its clients' {r['clients_cpu_ms']:.2f} ms", flush=True)
            print(f"\nload average after: {' '.join(f'{x:.1f}' for x in os.getloadavg())}\n")
            if len(results) == 4:
                print(table([results[k] for k in SYSTEMS]), flush=True)
            else:
                print(json.dumps(results, indent=1), flush=True)
            rounds.append(results)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if len(rounds) > 1 and "kinplay" in rounds[0]:
        print(f"\n{summary(rounds)}")
    return 0


def summary(rounds) -> str:
    """Each target's ratio over the rounds: the median, the range, and in how many it was met.
    Run-to-run noise on a 2-core machine is about 10 % for each system, so one round can land
    on either side of a target that is met by a few per cent."""
    lines = [f"Over {len(rounds)} rounds (median, lowest-highest, rounds that met the target):", ""]
    for key, metric, op, limit in (t for t in TARGETS if t[0] in rounds[0]):  # the systems run (--only)
        values = sorted(r["kinplay"][metric] / r[key][metric] for r in rounds)
        hits = sum(MET[op](v, limit) for v in values)
        lines.append(f"- {NAMES[metric]} vs {NAMES[key]} [{op} {limit:g}]: {statistics.median(values):.2f}x "
                     f"({values[0]:.2f}-{values[-1]:.2f}), met in {hits} of {len(values)}")
    return "\n".join(lines)


SYSTEMS = ["kinplay", "memory", "flatfile", "postgres"]
# The targets: kinplay's figure over boardgame.io's (system, metric), and the bound.
TARGETS = [("memory", "cpu_ms", "<=", 3), ("postgres", "cpu_ms", "<=", 0.5),
           ("postgres", "moves_per_s", ">=", 2), ("postgres", "p99_ms", "<", 1)]
NAMES = {"memory": "in memory", "postgres": "bgio-postgres", "cpu_ms": "CPU per move", "moves_per_s": "moves/s",
         "p99_ms": "p99"}
MET = {"<=": operator.le, ">=": operator.ge, "<": operator.lt}


if __name__ == "__main__":
    sys.exit(main())
