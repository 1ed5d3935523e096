"""No turn email while the player is at the table (the game's page or the lobby open): it is
held, dropped once they look or act, sent as usual once they have gone (presence)."""

from datetime import UTC, datetime, timedelta

import pytest
import time_machine
from django.core.cache import cache

from kinplay.accounts.models import Profile
from kinplay.notifications.held import release_held
from kinplay.notifications.models import Look, Outbox
from tests.play import alice_moves, alices_turn, step

pytestmark = pytest.mark.django_db

NOON = datetime(2026, 11, 24, 12, 0, tzinfo=UTC)


@pytest.fixture(autouse=True)
def _no_looks_remembered():
    cache.clear()  # the looks written lately (presence.LOOK_EVERY) are remembered in the cache


def turn_mails(inbox, game):
    return [m for m in inbox() if m.to == ["bob@example.com"] and f"#{game.pk}" in m.subject and "Your turn" in m.subject]


def test_it_sends_no_turn_email_about_a_game_the_player_watches(alice, bob, signed_in, inbox):
    with time_machine.travel(NOON, tick=False) as clock:
        game = alices_turn(alice)
        page = signed_in(bob)
        inbox().clear()
        assert page.get(f"/games/{game.pk}/").status_code == 200
        clock.shift(5)
        alice_moves(game)
        assert turn_mails(inbox, game) == []  # held while bob is at the table
        clock.shift(40)
        assert page.get(f"/games/{game.pk}/live/").status_code == 200  # his page polls and sees the move
        release_held()
        clock.shift(timedelta(minutes=10))
        release_held()
        assert turn_mails(inbox, game) == []
    row = Outbox.objects.filter(game=game, user=bob, kind=Outbox.YOUR_TURN).latest("pk")
    assert row.error == "not sent: seen on the site"


def test_it_holds_it_while_the_player_is_in_the_lobby_too(alice, bob, signed_in, inbox):
    with time_machine.travel(NOON, tick=False) as clock:
        game = alices_turn(alice)
        lobby = signed_in(bob)
        inbox().clear()
        assert lobby.get("/lobby/live/").status_code == 200
        alice_moves(game)
        assert turn_mails(inbox, game) == []
        clock.shift(40)
        lobby.get("/lobby/live/")
        clock.shift(timedelta(minutes=10))
        release_held()
        assert turn_mails(inbox, game) == []


def test_it_sends_the_turn_email_of_a_game_nobody_watches(alice, bob, inbox):
    with time_machine.travel(NOON, tick=False):
        game = alices_turn(alice)
        inbox().clear()
        alice_moves(game)
        assert len(turn_mails(inbox, game)) == 1


def test_it_sends_it_after_the_hold_when_the_player_stops_looking(alice, bob, signed_in, inbox):
    with time_machine.travel(NOON, tick=False) as clock:
        game = alices_turn(alice)
        signed_in(bob).get(f"/games/{game.pk}/")
        inbox().clear()
        clock.shift(5)
        alice_moves(game)  # bob closed the tab just before
        assert turn_mails(inbox, game) == []
        clock.shift(timedelta(minutes=4))
        release_held()
        assert turn_mails(inbox, game) == []  # still within the hold
        clock.shift(timedelta(minutes=2))
        release_held()
        assert len(turn_mails(inbox, game)) == 1


def test_it_drops_it_when_the_player_moves_on_the_page(alice, bob, signed_in, inbox):
    with time_machine.travel(NOON, tick=False) as clock:
        game = alices_turn(alice)
        signed_in(bob).get(f"/games/{game.pk}/")
        inbox().clear()
        alice_moves(game)
        assert turn_mails(inbox, game) == []
        step(game, seat=1)  # bob's move (as his page posts it)
        clock.shift(timedelta(minutes=10))
        release_held()
        assert turn_mails(inbox, game) == []


def test_it_emails_a_player_who_wants_it_even_while_on_the_site(alice, bob, signed_in, inbox):
    Profile.objects.filter(user=bob).update(email_on_site=True)
    with time_machine.travel(NOON, tick=False):
        game = alices_turn(alice)
        signed_in(bob).get(f"/games/{game.pk}/")
        inbox().clear()
        alice_moves(game)
        assert len(turn_mails(inbox, game)) == 1


def test_it_takes_the_setting_from_the_settings_page(bob, signed_in):
    page = signed_in(bob)
    assert "Not while I am on the site" in page.get("/settings/").content.decode()
    page.post("/settings/", {"email_on_site": "True", "email_turns": "on", "time_zone": "UTC"})
    assert Profile.of(bob).email_on_site is True
    page.post("/settings/", {"email_on_site": "False", "email_turns": "on", "time_zone": "UTC"})
    assert Profile.of(bob).email_on_site is False


def test_it_holds_reminders_and_digests_the_same_way(alice, bob, signed_in, inbox):
    from kinplay.notifications.services import remind

    with time_machine.travel(NOON, tick=False):
        game = alices_turn(alice)
        alice_moves(game)
        inbox().clear()
        signed_in(bob).get("/lobby/live/")
        assert remind(game.pk, 1) == "reminded"
        assert [m for m in inbox() if m.to == ["bob@example.com"]] == []
        assert Outbox.objects.get(kind=Outbox.REMINDER).error == "held: at the table"
        other = alices_turn(alice)
        alice_moves(other)
        Outbox.objects.filter(user=bob).delete()
        digest = Outbox.objects.create(kind=Outbox.DIGEST, user=bob, version=0,
                                       games={str(game.pk): game.version, str(other.pk): other.version})
        assert [m for m in inbox() if m.to == ["bob@example.com"]] == []
        digest.refresh_from_db()
        assert digest.error == "held: at the table"


def test_it_writes_a_look_at_most_every_30_seconds_while_nothing_changes(alice, bob, signed_in):
    with time_machine.travel(NOON, tick=False) as clock:
        game = alices_turn(alice)
        page = signed_in(bob)
        page.get(f"/games/{game.pk}/live/")
        first = Look.objects.get(user=bob, game=game).seen_at
        clock.shift(15)
        page.get(f"/games/{game.pk}/live/")
        assert Look.objects.get(user=bob, game=game).seen_at == first
        clock.shift(20)
        page.get(f"/games/{game.pk}/live/")
        assert Look.objects.get(user=bob, game=game).seen_at == first + timedelta(seconds=35)


def test_it_remembers_the_version_the_page_showed(alice, bob, signed_in):
    game = alices_turn(alice)
    page = signed_in(bob)
    page.get(f"/games/{game.pk}/")
    assert Look.objects.get(user=bob, game=game).version == game.version
    alice_moves(game)
    page.get(f"/games/{game.pk}/live/")  # a poll sees the move but shows nothing of it
    assert Look.objects.get(user=bob, game=game).version < game.version
    page.get(f"/api/games/{game.pk}/")  # a client of the API reading the game shows it
    assert Look.objects.get(user=bob, game=game).version == game.version


def test_it_costs_a_poll_no_write_while_its_look_is_fresh(alice, bob, signed_in):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with time_machine.travel(NOON, tick=False) as clock:
        game = alices_turn(alice)
        page = signed_in(bob)
        page.get(f"/games/{game.pk}/live/")
        clock.shift(15)
        with CaptureQueriesContext(connection) as fresh:
            page.get(f"/games/{game.pk}/live/")
        clock.shift(20)
        with CaptureQueriesContext(connection) as stale:
            page.get(f"/games/{game.pk}/live/")
    writes = [q["sql"] for q in fresh.captured_queries if "notifications_look" in q["sql"]]
    assert writes == []
    assert [q["sql"] for q in stale.captured_queries if "notifications_look" in q["sql"]][0].startswith("UPDATE")
    assert len(stale.captured_queries) == len(fresh.captured_queries) + 1
