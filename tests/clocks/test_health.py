"""/health/scheduling tells a monitor whether deadlines are being applied; /health/live and
/health/ready tell a load balancer whether a web node can serve."""

from datetime import timedelta

import pytest
from django.utils import timezone

from kinplay.clocks.services import sweep

pytestmark = pytest.mark.django_db


@pytest.fixture
def clock(time_machine):
    time_machine.move_to(timezone.now(), tick=False)
    return time_machine


def test_it_reports_the_last_sweep_and_fails_when_it_is_over_a_minute_old(clock, client):
    answer = client.get("/health/scheduling")
    assert answer.status_code == 503 and answer.json()["last_sweep"] is None  # never swept
    sweep()
    answer = client.get("/health/scheduling")
    assert answer.status_code == 200
    assert answer.json()["status"] == "ok" and answer.json()["last_sweep"] == timezone.now().isoformat()
    clock.shift(60)
    assert client.get("/health/scheduling").status_code == 200
    clock.shift(timedelta(seconds=1))
    answer = client.get("/health/scheduling")
    assert answer.status_code == 503 and answer.json()["sweep_age_seconds"] == 61
    assert "worker or beat" in answer.json()["detail"]


def test_it_says_a_node_is_live_and_ready_while_its_database_answers(client):
    assert client.get("/health/live").json() == {"status": "ok"}
    answer = client.get("/health/ready")
    assert answer.status_code == 200 and answer.json()["database"] == "ok"
    assert answer.json()["redis"] in ("ok", "not used")


def test_it_takes_a_node_out_of_rotation_when_its_database_fails(client):
    from django.db import OperationalError, connection

    def refuse(execute, sql, params, many, context):
        raise OperationalError("connection refused")

    with connection.execute_wrapper(refuse):
        answer = client.get("/health/ready")
        assert client.get("/health/live").status_code == 200
    assert answer.status_code == 503
    assert answer.json()["status"] == "down" and "connection refused" in answer.json()["database"]


def test_it_names_the_scheduler_holding_the_lease(clock, client):
    from kinplay.clocks.models import Lease

    sweep()
    assert client.get("/health/scheduling").json()["scheduler"] is None
    assert Lease.hold("beat", "node-a:12", 20)
    assert client.get("/health/scheduling").json()["scheduler"] == "node-a:12"
    clock.shift(21)
    assert client.get("/health/scheduling").json()["scheduler"] is None  # ran out: nobody schedules
