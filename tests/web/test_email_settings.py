"""The email settings: how often, time zone, quiet hours."""

from datetime import time

import pytest
from django.urls import reverse

from kinplay.accounts.models import Profile

pytestmark = pytest.mark.django_db


def test_it_saves_how_often_my_time_zone_and_quiet_hours(signed_in, alice):
    c = signed_in(alice)
    page = c.get(reverse("settings")).content.decode()
    assert "How often" in page and "My time zone" in page and "Quiet hours" in page
    assert "Deadlines do not stop during quiet hours" in page
    r = c.post(reverse("settings"), {
        "email": "alice@example.com", "email_turns": "on", "email_every": "1440",
        "time_zone": "Europe/Berlin", "quiet_hours": "on", "quiet_from": "22:30", "quiet_to": "06:45",
    })
    assert r.status_code == 302
    p = Profile.of(alice)
    assert (p.email_every, p.time_zone, p.quiet_hours, p.quiet_from, p.quiet_to) == (
        Profile.DAILY, "Europe/Berlin", True, time(22, 30), time(6, 45))
    page = c.get(reverse("settings")).content.decode()
    assert 'value="22:30"' in page and '<option value="Europe/Berlin" selected>' in page
    assert '<input type="radio" name="email_every" value="1440" checked>' in page


def test_it_refuses_an_unknown_time_zone_and_keeps_my_settings(signed_in, alice):
    c = signed_in(alice)
    r = c.post(reverse("settings"), {"email": "alice@example.com", "time_zone": "Mars/Olympus", "quiet_from": "25:00"})
    assert r.status_code == 200
    page = r.content.decode()
    assert "Mars/Olympus is not one of the available choices" in page and "Enter a valid time" in page
    assert Profile.of(alice).time_zone == "UTC"
