"""Vacation: a player's switch that pauses their move clocks in friendly games, up to an allowance."""

from datetime import timedelta

import pytest
import time_machine
from django.urls import reverse
from django.utils import timezone

from games import services
from games.models import Event, Game
from games.store import load_state
from kinplay.accounts.models import Profile
from kinplay.clocks import vacation
from kinplay.clocks.models import Deadline
from kinplay.clocks.services import sweep
from tests.play import accepted, step
from tests.windows.helpers import open_stop_window, stop_window, window_deadlines

pytestmark = pytest.mark.django_db

HOUR = timedelta(hours=1)


def timed_out(game, seat):
    return [e for e in Event.objects.filter(game=game, seat=seat, command__isnull=False)
            if e.command.get("by", "").startswith("timeout")]


@pytest.fixture
def clock():
    with time_machine.travel(timezone.now(), tick=False) as traveller:
        yield traveller


@pytest.fixture
def game(alice, bob, clock):
    # Knonsters opens with a simultaneous choice: alice and bob both have a running clock.
    g = accepted(services.create_game(creator=alice, kind="knonsters", seats=[{"user": "alice"}, {"user": "bob"}],
                                      per_move=3600))
    assert sorted(g.to_act) == [0, 1]
    return g


def test_it_pauses_a_players_clock_and_resumes_it_with_the_time_left(game, alice, clock):
    clock.shift(timedelta(minutes=10))
    vacation.start(alice)
    clock.shift(timedelta(days=3))
    sweep()
    assert timed_out(game, 1) and not timed_out(game, 0)  # bob's clock ran out, alice's waited
    vacation.end(alice)
    clock.shift(timedelta(minutes=49))
    sweep()
    assert not timed_out(game, 0)  # 50 minutes were left when she left
    clock.shift(timedelta(minutes=2))
    sweep()
    assert timed_out(game, 0)


def test_it_holds_a_clock_set_while_the_player_is_away(alice, clock, client):
    game = services.create_game(creator=alice, kind="knonsters", seats=[{"user": "alice"}, {"bot": "heuristic"}], per_move=3600)
    vacation.start(alice)
    step(game, seat=0)  # she may still play while away; the bot answers and her next clock starts held
    game.refresh_from_db()
    assert game.to_act == [0] and game.deadline is None
    client.force_login(alice)
    assert "Clock paused" in client.get(reverse("game", args=[game.pk])).content.decode()
    clock.shift(timedelta(days=2))
    sweep()
    assert not timed_out(game, 0)
    vacation.end(alice)
    assert Deadline.objects.get(game=game, seat=0, kind=Deadline.MOVE, done_at__isnull=True).due_at == timezone.now() + HOUR
    game.refresh_from_db()
    assert game.deadline == timezone.now() + HOUR


def test_it_shows_the_opponents_that_the_clock_is_paused(game, alice, bob, client):
    vacation.start(alice)
    game.refresh_from_db()
    bobs = Deadline.objects.get(game=game, seat=1, kind=Deadline.MOVE, done_at__isnull=True)
    assert game.deadline == bobs.due_at  # the game shows the clock that runs
    client.force_login(bob)
    page = client.get(reverse("game", args=[game.pk])).content.decode()
    assert "alice is on vacation until" in page and "their clock is paused" in page


def test_it_ends_a_vacation_when_the_allowance_is_used_up(alice, bob, settings, clock, inbox):
    settings.VACATION_DAYS_PER_YEAR = 2
    vacation.start(alice)
    clock.shift(timedelta(days=2) - timedelta(minutes=1))
    assert vacation.sweep() == 0
    clock.shift(timedelta(minutes=2))
    assert vacation.sweep() == 1
    profile = Profile.of(alice)
    assert not profile.on_vacation and vacation.used(profile) == timedelta(days=2)
    mail = [m for m in inbox() if m.to == ["alice@example.com"]]
    assert len(mail) == 1 and "vacation is over" in mail[0].subject and "used your 2 vacation days" in mail[0].body
    with pytest.raises(vacation.VacationRefused, match="used your 2 vacation days"):
        vacation.start(alice)


def test_it_counts_the_days_used_and_shows_them_on_the_settings_page(alice, client, clock):
    client.force_login(alice)
    r = client.post(reverse("settings-vacation"), {"vacation": "on"})
    assert r.status_code == 302 and Profile.of(alice).on_vacation
    clock.shift(timedelta(days=3))
    page = client.get(reverse("settings")).content.decode()
    assert "You are on vacation" in page and "3 of 30 days used, 27 left" in page
    client.post(reverse("settings-vacation"), {"vacation": "off"})
    clock.shift(timedelta(days=1))
    page = client.get(reverse("settings")).content.decode()
    assert "You are on vacation" not in page and "3 of 30 days used" in page
    r = client.post(reverse("settings-vacation"), {"vacation": "off"}, follow=True)
    assert "You are not on vacation." in r.content.decode()


def test_it_leaves_the_clocks_of_games_that_are_not_friendly(game, alice, clock, monkeypatch):
    monkeypatch.setattr(Game, "tournament_id", 7, raising=False)  # a tournament game, once they exist
    vacation.start(alice)
    clock.shift(2 * HOUR)
    sweep()
    assert timed_out(game, 0)


def test_it_switches_vacation_through_the_api(api, game, alice, clock):
    client = api(alice)
    assert client.get("/api/accounts/vacation/").json()["on"] is False
    r = client.post("/api/accounts/vacation/", {"on": True}, format="json")
    assert r.status_code == 200 and r.json()["on"] is True and r.json()["allowance_days"] == 30
    assert Deadline.objects.get(game=game, seat=0, kind=Deadline.MOVE, done_at__isnull=True).paused_left == 3600
    again = client.post("/api/accounts/vacation/", {"on": True}, format="json")
    assert again.status_code == 409 and again.json() == {"error": "conflict", "detail": "You are already on vacation."}
    clock.shift(timedelta(hours=12))
    r = client.post("/api/accounts/vacation/", {"on": False}, format="json")
    assert r.json()["on"] is False and r.json()["used_days"] == 0.5 and r.json()["left_days"] == 29.5
    assert client.post("/api/accounts/vacation/", {}, format="json").status_code == 400


# A reaction window's answers are sealed: were one seat's clock held, the others' timeouts ("bob did
# not answer in time: nothing") would be in its log while its own window was still open.


def test_it_never_holds_a_reaction_window_so_the_player_away_learns_nothing_of_the_others(monkeypatch, clock, alice,
                                                                                          bob, charlie):
    game, _, seats = open_stop_window(monkeypatch, [alice, bob, charlie])
    away = game.seats.get(index=seats[0]).user
    vacation.start(away)
    assert all(d == timezone.now() + timedelta(days=2) for d in window_deadlines(game, seats).values())
    clock.shift(timedelta(days=2, seconds=1))
    sweep()
    game.refresh_from_db()
    assert not stop_window(load_state(game))  # closed for everyone at once, the absent seat included
    assert sorted(e.data["seat"] for e in Event.objects.filter(game=game, type="timed_out")) == seats


def test_it_does_not_hold_a_window_that_opens_while_the_player_is_away(monkeypatch, clock, alice, bob, charlie):
    vacation.start(charlie)
    game, _, seats = open_stop_window(monkeypatch, [alice, bob, charlie], want=lambda state, seats: 2 in seats)
    due = window_deadlines(game, seats)
    assert set(due) == set(seats) and all(d == timezone.now() + timedelta(days=2) for d in due.values())
    reminders = Deadline.objects.filter(game=game, seat=2, kind=Deadline.REMINDER, done_at__isnull=True)
    assert reminders and all(r.paused_left is None for r in reminders)
