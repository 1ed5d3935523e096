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
    """A database restart must not cost one 500 per stale connection (CONN_MAX_AGE)."""
    db = settings_with(DATABASE_URL="postgres://kp@127.0.0.1:5432/kp")["DATABASES"]["default"]
    assert db["CONN_MAX_AGE"] > 0 and db["CONN_HEALTH_CHECKS"] is True
    assert db["OPTIONS"]["connect_timeout"] <= 10


def test_it_bounds_every_network_call_and_keeps_deadlines_off_the_email_queue():
    conf = settings_with(REDIS_URL="redis://127.0.0.1:6399/7")
    assert conf["CELERY_BROKER_TRANSPORT_OPTIONS"]["socket_timeout"] <= 5
    assert conf["EMAIL_TIMEOUT"] <= 30
    routes = conf["CELERY_TASK_ROUTES"]
    assert routes["kinplay.clocks.tasks.*"]["queue"] != routes["kinplay.notifications.tasks.*"]["queue"]
    assert all("expires" in entry.get("options", {}) for entry in conf["CELERY_BEAT_SCHEDULE"].values())
