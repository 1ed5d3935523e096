"""Mail loops: machines get no answer, answers cannot be answered, nobody gets a flood."""

import pytest

from games import services
from games.models import Event
from tests.mail.mails import reply
from tests.play import accepted

pytestmark = pytest.mark.django_db


@pytest.fixture
def game(alice, bob):
    return accepted(services.create_game(creator=alice, kind="knonsters", seats=[{"user": "alice"}, {"user": "bob"}], per_move=None))


def turn_mail(inbox, who):
    return [m for m in inbox() if m.to == [f"{who}@example.com"] and "Your turn" in m.subject][-1]


def first_move(mail):
    return mail.body.split("Your moves:\n")[1].splitlines()[0].split("  —  ")[0].strip()


@pytest.mark.parametrize("headers", [
    [("Auto-Submitted", "auto-replied")],
    [("Auto-Submitted", "auto-generated")],
    [("Precedence", "bulk")],
    [("Precedence", "list")],
    [("Precedence", "junk")],
    [("List-Id", "<games.lists.example.com>")],
    [("Return-Path", "<>")],
    [("X-Autoreply", "yes")],
])
def test_it_drops_machine_mail_without_an_answer(game, inbox, headers):
    mail = turn_mail(inbox, "alice")
    inbox().clear()
    before = Event.objects.filter(game=game).count()
    assert reply(to=mail.reply_to[0], sender="alice@example.com", body=first_move(mail), headers=headers) == "automatic"
    assert Event.objects.filter(game=game).count() == before and inbox() == []


def test_it_takes_a_person_who_says_auto_submitted_no(game, inbox):
    mail = turn_mail(inbox, "alice")
    assert reply(to=mail.reply_to[0], sender="alice@example.com", body=first_move(mail),
                 headers=[("Auto-Submitted", "no")]) == "accepted"


def test_its_answers_are_auto_replies_without_a_reply_token(game, inbox):
    mail = turn_mail(inbox, "alice")
    inbox().clear()
    reply(to=mail.reply_to[0], sender="alice@example.com", body="fly to the moon",
          message_id="<moon@example.com>")
    [answer] = inbox()
    assert answer.extra_headers["Auto-Submitted"] == "auto-replied"
    assert answer.extra_headers["In-Reply-To"] == "<moon@example.com>"
    assert answer.reply_to == [] and "+" not in answer.from_email
    html = answer.alternatives[0][0]
    assert "play+" not in answer.body and "play+" not in html


def test_it_answers_one_address_at_most_n_times_an_hour(game, inbox, settings):
    settings.MAIL_ANSWERS_PER_HOUR = 3
    mail = turn_mail(inbox, "alice")
    inbox().clear()
    for _ in range(5):
        assert reply(to=mail.reply_to[0], sender="alice@example.com", body="fly to the moon") == "refused"
    assert len(inbox()) == 3


def test_turn_emails_say_they_are_automatic_so_vacation_responders_stay_quiet(game, inbox):
    mail = turn_mail(inbox, "alice")
    assert mail.extra_headers["Auto-Submitted"] == "auto-generated"
    assert mail.reply_to  # and a person can still answer them
