"""bin/run (make run's last step): Ctrl-C stops the web server, both Celery workers and beat,
promptly. A granian worker that got the terminal's SIGINT itself sometimes held up its stop for
30 s (kinplay/server.py); bin/run hands Ctrl-C to granian's main process only."""

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import free_port

ROOT = Path(__file__).resolve().parents[2]
STOPS_WITHIN = 15  # seconds: Celery's warm shutdown takes a few


def descendants(pid: int) -> set[int]:
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(ppid, []).append(int(entry.name))
    found, todo = set(), [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.add(child)
            todo.append(child)
    return found


def argv(pid: int) -> list[str] | None:
    """A process's command line, None once it is gone."""
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().decode().split("\0")[:-1]
    except OSError:
        return None


def commands(pids) -> list[str]:
    """Each process's command line, for a failure to name what did not stop."""
    return [f"{pid}: " + (" ".join(argv(pid) or ["(gone)"]))[:200] for pid in sorted(pids)]


def longest_wait(run) -> int:
    """The longest sleep among bin/run's processes (a supervisor waiting to restart its process), in seconds."""
    waits = [args[1] for args in map(argv, descendants(run.pid)) if args and args[0] == "sleep" and len(args) == 2]
    return max((int(w) for w in waits if w.isdigit()), default=0)


def alive(pids) -> set[int]:
    out = set()
    for pid in pids:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if state != "Z":
            out.add(pid)
    return out


def start(tmp_path, **env) -> tuple[subprocess.Popen, int]:
    """bin/run as a terminal runs it (its own process group, SIGINT not ignored, as under a
    shell's job control), on the embedded default, with ``env``; and its port."""
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL", "EMAIL_URL")} | env
    env.update(KINPLAY_VAR=str(tmp_path), PORT=str(port))

    def as_a_terminal_runs_it():
        signal.signal(signal.SIGINT, signal.SIG_DFL)

    run = subprocess.Popen(["bin/run"], cwd=ROOT, env=env, start_new_session=True, preexec_fn=as_a_terminal_runs_it,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL)
    return run, port


def ctrl_c(run) -> None:
    """Ctrl-C (the terminal signals the whole foreground group): every process bin/run started
    must be gone within STOPS_WITHIN."""
    started = descendants(run.pid)
    try:
        os.killpg(run.pid, signal.SIGINT)
        deadline = time.monotonic() + STOPS_WITHIN
        while alive(started | {run.pid}) and time.monotonic() < deadline:
            time.sleep(0.2)
        left = alive(started | {run.pid})
        assert not left, f"still running {STOPS_WITHIN} s after Ctrl-C: {commands(left)}"
    finally:
        for pid in alive(started | {run.pid}):
            os.kill(pid, signal.SIGKILL)


@pytest.mark.slow
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_it_stops_everything_it_started_on_ctrl_c(tmp_path):
    run, port = start(tmp_path, WEB_WORKERS="2")
    try:
        deadline = time.monotonic() + 60
        while True:
            started = descendants(run.pid)
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                if len(started) >= 9:  # 3 supervisors, 2 workers, beat, granian and its 2 workers
                    break
            except OSError:
                pass
            assert run.poll() is None and time.monotonic() < deadline, f"bin/run did not come up ({len(started)} processes)"
            time.sleep(0.5)
        time.sleep(2)  # the Celery processes past their start-up
    finally:
        ctrl_c(run)


@pytest.mark.slow
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_it_stops_a_supervisor_waiting_to_restart_its_process_on_ctrl_c(tmp_path):
    """beat cannot start (NODE_NAME puts its schedule file in a folder that does not exist), so
    its supervisor waits longer and longer between restarts: Ctrl-C ends that wait too. The
    wait is a background sleep, which ignores SIGINT: one of 16 s outlives STOPS_WITHIN."""
    run, _ = start(tmp_path, WEB_WORKERS="1", NODE_NAME="no/such")
    try:
        deadline = time.monotonic() + 90
        while longest_wait(run) < 16:
            assert run.poll() is None and time.monotonic() < deadline, "beat's supervisor never waited 16 s to restart it"
            time.sleep(0.2)
    finally:
        ctrl_c(run)
