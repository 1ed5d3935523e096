"""Mail loops: machines get no answer, answers cannot be answered, nobody gets a flood."""

from datetime import timedelta

import pytest
import time_machine
from django.utils import timezone

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
    assert answer.reply_to == [] and "+" not in answer.message()["From"]
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


def test_invitations_say_they_are_automatic_so_vacation_responders_stay_quiet(alice, bob, inbox):
    """An out-of-office answer to an invitation would reach its reply address and be refused as
    no "accept" or "decline", in an answer to the away player."""
    game = services.create_game(creator=alice, kind="knonsters", seats=[{"user": "alice"}, {"user": "bob"}], per_move=None)
    [invitation] = [m for m in inbox() if m.to == ["bob@example.com"] and f"#{game.pk}" in m.subject]
    assert invitation.extra_headers["Auto-Submitted"] == "auto-generated"
    assert invitation.reply_to  # and bob can still answer it


def test_it_answers_every_move_of_a_player_moving_fast_against_bots(alice, inbox, settings):
    """30 legal moves by email in a few minutes, each answered by the bot at once: 30 answers."""
    assert settings.MAIL_ANSWERS_PER_HOUR == 10  # the default the test is about
    game, outcomes = None, []
    while len(outcomes) < 30:
        if game is None or game.is_over:  # the next game when one ends
            game = services.create_game(creator=alice, kind="knonsters", seats=[{"user": "alice"}, {"bot": "heuristic"}],
                                        per_move=None)
        mail = [m for m in inbox() if m.to == ["alice@example.com"] and m.reply_to and f"#{game.pk}" in m.subject][-1]
        outcomes.append(reply(to=mail.reply_to[0], sender="alice@example.com", body=first_move(mail)))
        game.refresh_from_db()
    answers = [m for m in inbox() if m.subject.startswith("Move accepted")]
    assert outcomes == ["accepted"] * 30 and len(answers) == 30


def test_it_still_stops_a_loop_with_an_auto_responder_that_says_it_is_not_one(game, inbox, settings):
    """A vacation responder without Auto-Submitted answers every email it gets (with its own
    Message-ID each time): after MAIL_ANSWERS_PER_HOUR refusals in an hour it gets no more, and an
    hour later it gets answers again."""
    mail = turn_mail(inbox, "alice")
    inbox().clear()
    away = "I am away until Monday and will answer your email when I am back."
    for _ in range(15):
        assert reply(to=mail.reply_to[0], sender="alice@example.com", body=away) == "refused"
    assert len(inbox()) == settings.MAIL_ANSWERS_PER_HOUR
    with time_machine.travel(timezone.now() + timedelta(hours=1, minutes=1)):
        reply(to=mail.reply_to[0], sender="alice@example.com", body=away)
    assert len(inbox()) == settings.MAIL_ANSWERS_PER_HOUR + 1
    assert reply(to=mail.reply_to[0], sender="alice@example.com", body=first_move(mail)) == "accepted"
    assert inbox()[-1].subject.startswith("Move accepted")  # her own move is answered even so
