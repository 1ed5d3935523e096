"""Scheduling without a single point: two beats on two "nodes" and a worker; the beat holding
the lease is killed mid-game, the other takes over, and every deadline still fires exactly once
and on time."""

from __future__ import annotations

import os
import signal
import time
from datetime import timedelta

import pytest
from django.utils import timezone

from games import services
from kinplay.clocks.beat import LEASE
from kinplay.clocks.models import Deadline, Lease
from tests.conftest import wait_for
from tests.services.conftest import Beat
from tests.services.test_worker import _assert_each_deadline_applied_once, _timeout_events

pytestmark = [pytest.mark.services, pytest.mark.slow, pytest.mark.django_db(transaction=True)]
LAG = 60  # seconds: the longest a deadline may wait past its time (p99 and max alike here)


def holder() -> str | None:
    lease = Lease.current(LEASE)
    return lease["holder"] if lease else None


def test_it_fires_every_deadline_once_when_the_scheduling_beat_is_killed(start_worker, broker, alice):
    worker = start_worker(broker, beat=False)
    beats = {b.proc.pid: b for b in (start_worker(broker, name=f"beat-{i}", kind=Beat) for i in (1, 2))}
    games = [services.create_game(creator=alice, kind="knonsters", options={}, per_move=2, on_timeout="bot",
                                  seats=[{"user": "alice"}, {"bot": "heuristic"}]) for _ in range(3)]
    first = wait_for(holder, "a beat to take the lease")
    leader = beats[int(first.rsplit(":", 1)[1])]
    wait_for(lambda: all(_timeout_events(g) for g in games), "a timeout in every game", on_fail=worker.dump)

    standby = next(b for b in beats.values() if b is not leader)
    assert "Sending due task" in leader.log() and "Sending due task" not in standby.log(), "one beat schedules at a time"
    os.killpg(leader.proc.pid, signal.SIGKILL)  # no goodbye: the lease must run out
    killed_at = time.monotonic()
    second = wait_for(lambda: (holder() or first) != first and holder(), "the other beat to take over", timeout=30)
    assert second.rsplit(":", 1)[1] != first.rsplit(":", 1)[1]
    took_over = time.monotonic() - killed_at
    assert took_over <= 30, f"the lease changed hands {took_over:.0f} s after its holder died"
    before = {g.pk: len(_timeout_events(g)) for g in games}
    wait_for(lambda: all(len(_timeout_events(g)) > before[g.pk] for g in games),
             "timeouts scheduled by the second beat", on_fail=worker.dump)

    assert "Sending due task" in standby.log()
    for game in games:
        wait_for(lambda game=game: not Deadline.objects.filter(game=game, outcome="claimed").exists() or None,
                 "in-flight deadlines to finish", timeout=10)
        _assert_each_deadline_applied_once(game)
    done = Deadline.objects.filter(game__in=games, kind=Deadline.MOVE, outcome__startswith="timeout")
    lags = sorted((d.done_at - d.due_at).total_seconds() for d in done)
    assert lags and lags[-1] <= LAG, f"deadline lags (s): {lags}"
    overdue = Deadline.objects.filter(game__in=games, done_at__isnull=True, due_at__lt=timezone.now() - timedelta(seconds=LAG))
    assert not overdue.exists(), "a deadline waits longer than a minute past its time"
