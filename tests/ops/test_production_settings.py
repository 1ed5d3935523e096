"""Settings that decide how kinplay behaves when a service misbehaves (read as a fresh
process would, from the environment)."""

import importlib

import pytest


def settings_with(**env):
    import kinplay.settings as conf

    monkey = pytest.MonkeyPatch()
    for k, v in env.items():
        monkey.setenv(k, v)
    try:
        return vars(importlib.reload(conf)).copy()
    finally:
        monkey.undo()
        importlib.reload(conf)


def test_it_checks_a_kept_database_connection_before_using_it_again():
    """A database restart must not cost one 500 per stale connection: a pooled one is checked
    when borrowed (kinplay.infra.postgres, tests/infra/test_health_check.py), a kept one
    (PG_POOL=false, CONN_MAX_AGE) by Django's health check."""
    db = settings_with(DATABASE_URL="postgres://kp@127.0.0.1:5432/kp")["DATABASES"]["default"]
    assert db["ENGINE"] == "kinplay.infra.postgres" and db["CONN_MAX_AGE"] == 0
    assert db["OPTIONS"]["pool"]["max_size"] >= 1 and db["OPTIONS"]["pool"]["timeout"] <= 10
    assert db["OPTIONS"]["connect_timeout"] <= 10
    kept = settings_with(DATABASE_URL="postgres://kp@127.0.0.1:5432/kp", PG_POOL="false")["DATABASES"]["default"]
    assert kept["CONN_MAX_AGE"] > 0 and kept["CONN_HEALTH_CHECKS"] is True and "pool" not in kept["OPTIONS"]


def test_it_bounds_every_network_call_and_keeps_deadlines_off_the_email_queue():
    conf = settings_with(REDIS_URL="redis://127.0.0.1:6399/7")
    assert conf["CELERY_BROKER_TRANSPORT_OPTIONS"]["socket_timeout"] <= 5
    assert conf["CACHES"]["default"]["OPTIONS"]["socket_timeout"] <= 1  # the throttle counters
    assert conf["EMAIL_TIMEOUT"] <= 30
    routes = conf["CELERY_TASK_ROUTES"]
    assert routes["kinplay.clocks.tasks.*"]["queue"] != routes["kinplay.notifications.tasks.*"]["queue"]
    assert routes["games.tasks.*"]["queue"] == routes["kinplay.clocks.tasks.*"]["queue"]
    assert all("expires" in entry.get("options", {}) for entry in conf["CELERY_BEAT_SCHEDULE"].values())


@pytest.mark.django_db
def test_it_answers_a_move_when_the_throttle_counters_cannot_be_reached(alice, bob, api, monkeypatch):
    """Redis (the shared throttle counters) hangs or is down: moves are let through, and the
    next requests do not each wait for the cache's timeout."""
    from redis.exceptions import TimeoutError as RedisTimeout
    from rest_framework import throttling

    import api.throttles as throttles
    from games import services
    from tests.play import accepted, bot_action

    calls = []

    class HungCache:
        def get(self, *args, **kwargs):
            calls.append(1)
            raise RedisTimeout("Timeout reading from socket")

        hit = add = incr = get

    monkeypatch.setattr(throttling.SimpleRateThrottle, "cache", HungCache())
    monkeypatch.setattr(throttles, "_cache_down_until", 0.0)
    game = accepted(services.create_game(creator=alice, kind="knonsters", per_move=None,
                                         seats=[{"user": "alice"}, {"user": "bob"}]))
    for seat, user in ((0, alice), (1, bob)):
        answer = api(user).post(f"/api/games/{game.pk}/actions/", {"action": bot_action(game, seat)}, format="json")
        assert answer.status_code == 201, answer.content
    assert len(calls) == 1  # the second move did not try the hung cache again
