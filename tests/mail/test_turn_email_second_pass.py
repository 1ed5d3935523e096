"""The turn email, second pass: the board marks what changed since the player last looked, what
happened is said once, the board fits a phone, a vote says its default; Settings say when quiet
hours hold mail."""

from datetime import UTC, datetime, time, timedelta

import pytest
import time_machine
from django.core.cache import cache

from games.registry import get
from kinplay.accounts.models import Profile
from kinplay.notifications.picture import what_then
from tests.play import alice_moves, alices_turn

pytestmark = pytest.mark.django_db

NOON = datetime(2026, 11, 24, 12, 0, tzinfo=UTC)


@pytest.fixture(autouse=True)
def _no_looks_remembered():
    cache.clear()


def bobs_turn_mail(inbox, game):
    return [m for m in inbox() if m.to == ["bob@example.com"] and f"#{game.pk}" in m.subject][-1]


def html_of(mail) -> str:
    return mail.alternatives[0][0]


def test_it_marks_on_the_emails_board_what_changed_since_the_players_last_look(alice, bob, signed_in, inbox):
    with time_machine.travel(NOON, tick=False) as clock:
        game = alices_turn(alice, kind="project_kin")
        signed_in(bob).get(f"/games/{game.pk}/")
        clock.shift(timedelta(minutes=10))  # he left the table
        inbox().clear()
        alice_moves(game)  # a roll, then a pawn moved
        html = html_of(bobs_turn_mail(inbox, game))
    assert "data-changed" in html and "what changed since you last looked" in html
    board = html[html.index('class="mail-board"'):]
    assert "max-width: 100%" in board[:board.index("</svg>")]  # the board shrinks to a phone's width


@pytest.mark.parametrize("kind,own_log", [("kinapa", "What just happened"), ("knonsters", "Last: ")])
def test_it_says_what_happened_once(alice, bob, inbox, kind, own_log):
    game = alices_turn(alice, kind=kind)
    inbox().clear()
    alice_moves(game)
    mail = bobs_turn_mail(inbox, game)
    assert "What happened since you last looked" in html_of(mail)
    assert own_log not in html_of(mail) and own_log not in mail.body


def test_it_says_what_a_votes_default_answer_is():
    from games.kenta.rules import NO_MARKER

    class Game:
        kind, on_timeout = "kenta", "bot"

    said = what_then(Game(), {"kind": "window", "default": dict(NO_MARKER)}, [])
    assert said == f"then “{get('kenta').default_label(NO_MARKER)}” is answered for you"
    assert "No marker" in said


def test_settings_say_until_when_quiet_hours_hold_mail(alice, bob, signed_in, inbox):
    Profile.objects.filter(user=bob).update(quiet_hours=True, quiet_from=time(23, 0), quiet_to=time(7, 0),
                                            time_zone="Europe/Paris")
    with time_machine.travel(datetime(2026, 11, 24, 23, 30, tzinfo=UTC), tick=False):  # 00:30 in Paris
        game = alices_turn(alice)
        alice_moves(game)
        assert [m for m in inbox() if m.to == ["bob@example.com"] and "Your turn" in m.subject] == []
        page = signed_in(bob).get("/settings/").content.decode()
    assert "held until 07:00 (Europe/Paris)" in page
    with time_machine.travel(datetime(2026, 11, 25, 12, 0, tzinfo=UTC), tick=False):
        assert "held until" not in signed_in(bob).get("/settings/").content.decode()
