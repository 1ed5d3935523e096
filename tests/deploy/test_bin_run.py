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


def commands(pids) -> list[str]:
    """Each process's command line, for a failure to name what did not stop."""
    out = []
    for pid in sorted(pids):
        try:
            out.append(f"{pid}: " + Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()[:200])
        except OSError:
            out.append(f"{pid}: (gone)")
    return out


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


@pytest.mark.slow
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_it_stops_everything_it_started_on_ctrl_c(tmp_path):
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL", "EMAIL_URL")}
    env.update(KINPLAY_VAR=str(tmp_path), PORT=str(port), WEB_WORKERS="2")

    def as_a_terminal_runs_it():  # its own process group, SIGINT not ignored (as under a shell's job control)
        signal.signal(signal.SIGINT, signal.SIG_DFL)

    run = subprocess.Popen(["bin/run"], cwd=ROOT, env=env, start_new_session=True, preexec_fn=as_a_terminal_runs_it,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL)
    started = set()
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
        started = descendants(run.pid)
        os.killpg(run.pid, signal.SIGINT)  # Ctrl-C: the terminal signals the whole foreground group
        deadline = time.monotonic() + STOPS_WITHIN
        while alive(started | {run.pid}) and time.monotonic() < deadline:
            time.sleep(0.2)
        left = alive(started | {run.pid})
        assert not left, f"still running {STOPS_WITHIN} s after Ctrl-C: {commands(left)}"
    finally:
        for pid in alive(started | {run.pid}):
            os.kill(pid, signal.SIGKILL)
