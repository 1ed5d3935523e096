"""api/throttles.py's leases: a busy player's requests cost the shared counter one round trip
in twenty, and the rate still holds, exactly in one process and within a lease per process
across several."""

from types import SimpleNamespace

import pytest
import time_machine
from django.core.cache import cache

from api import throttles

RATE = 240


@pytest.fixture
def moves(settings):
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": {
        **settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"], "moves": f"{RATE}/min"}}
    cache.clear()
    with time_machine.travel(1_800_000_000 + 5, tick=False):  # early in a minute: one window throughout
        yield
    cache.clear()


class Counted:
    """The test's cache, counting the calls that reach it."""

    def __init__(self):
        self.calls = 0

    def add(self, *args):
        return cache.add(*args)

    def incr(self, *args):
        self.calls += 1
        return cache.incr(*args)


def requests(player, processes, count, monkeypatch, shared):
    """``count`` moves by ``player``, sent in turn to ``processes`` web processes (each its own
    leases): how many were let through."""
    monkeypatch.setattr(throttles.MoveThrottle, "cache", shared)
    leases = [throttles.Lease() for _ in range(processes)]
    request = SimpleNamespace(user=SimpleNamespace(is_authenticated=True, pk=player))
    allowed = 0
    for n in range(count):
        monkeypatch.setattr(throttles, "_lease", leases[n % processes])
        allowed += throttles.MoveThrottle().allow_request(request, None)
    return allowed


def test_it_asks_the_shared_counter_once_in_twenty_requests(moves, monkeypatch):
    shared = Counted()
    assert requests(1, 1, 120, monkeypatch, shared) == 120
    assert shared.calls == 120 // (RATE // throttles.LEASE)


def test_it_refuses_past_the_rate_exactly_in_one_process(moves, monkeypatch):
    assert requests(1, 1, RATE + 30, monkeypatch, Counted()) == RATE


def test_it_never_lets_more_than_the_rate_through_several_processes(moves, monkeypatch):
    # what a process leased and did not use counts in the others: at most a lease each, less one, early
    allowed = requests(1, 3, RATE + 100, monkeypatch, Counted())
    assert RATE - 2 * (RATE // throttles.LEASE - 1) <= allowed <= RATE


def test_it_counts_each_player_on_their_own_counter(moves, monkeypatch):
    shared = Counted()
    assert requests(1, 1, RATE, monkeypatch, shared) == RATE
    assert requests(2, 1, 5, monkeypatch, shared) == 5


class Meanwhile(Counted):
    """The test's cache, whose first round trip lets ``meanwhile`` in before it answers: the
    other thread of the same process (the web server's blocking threads) asking for the same player."""

    def __init__(self, meanwhile):
        super().__init__()
        self.meanwhile = meanwhile

    def incr(self, *args):
        count = super().incr(*args)
        if self.calls == 1:
            self.meanwhile()
        return count


def test_it_keeps_both_leases_when_two_threads_lease_at_once(moves, monkeypatch):
    request = SimpleNamespace(user=SimpleNamespace(is_authenticated=True, pk=1))
    allowed = []
    shared = Meanwhile(lambda: allowed.append(throttles.MoveThrottle().allow_request(request, None)))
    monkeypatch.setattr(throttles.MoveThrottle, "cache", shared)
    monkeypatch.setattr(throttles, "_lease", throttles.Lease())
    allowed += [throttles.MoveThrottle().allow_request(request, None) for _ in range(RATE + 30)]
    assert sum(allowed) == RATE  # exact in one process, however its threads interleave


def test_it_keeps_a_busy_players_lease_when_old_windows_fill_the_memory(moves, monkeypatch):
    """What other players leased in windows gone by fills the process's memory: it is their
    leftovers that go, not the lease of a player in the middle of using it."""
    monkeypatch.setattr(throttles.Lease, "MOST", 3)
    monkeypatch.setattr(throttles, "_lease", throttles.Lease())
    monkeypatch.setattr(throttles.MoveThrottle, "cache", Counted())

    def move(player):
        return throttles.MoveThrottle().allow_request(SimpleNamespace(user=SimpleNamespace(is_authenticated=True, pk=player)), None)

    with time_machine.travel(1_800_000_000 - 30, tick=False):  # the minute before
        move(2), move(3)
    allowed = move(1)
    move(4)  # the memory is full: something must go
    allowed += sum(move(1) for _ in range(RATE + 30))
    assert allowed == RATE
