"""/health tells a monitor whether deadlines are being applied."""

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
    answer = client.get("/health")
    assert answer.status_code == 503 and answer.json()["last_sweep"] is None  # never swept
    sweep()
    answer = client.get("/health")
    assert answer.status_code == 200
    assert answer.json()["status"] == "ok" and answer.json()["last_sweep"] == timezone.now().isoformat()
    clock.shift(60)
    assert client.get("/health").status_code == 200
    clock.shift(timedelta(seconds=1))
    answer = client.get("/health")
    assert answer.status_code == 503 and answer.json()["sweep_age_seconds"] == 61
    assert "worker or beat" in answer.json()["detail"]
