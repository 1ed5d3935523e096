import io
import sys

import pytest
from django.core.management import call_command

from games import services
from games.models import Event
from kinplay.notifications.replies import receive
from tests.play import accepted

pytestmark = pytest.mark.django_db


@pytest.fixture
def game(alice, bob):
    return accepted(services.create_game(creator=alice, kind="knonsters", seats=[{"user": "alice"}, {"user": "bob"}], per_move=None))


def turn_mail(inbox, who):
    return next(m for m in inbox() if m.to == [f"{who}@example.com"] and "Your turn" in m.subject)


def first_move(mail):
    return mail.body.split("Your moves:\n")[1].splitlines()[0].split("  —  ")[0].strip()


def test_it_takes_a_move_from_a_reply_to_the_turn_email(game, inbox):
    mail = turn_mail(inbox, "alice")
    move = first_move(mail)
    inbox().clear()
    reply = f"{move}\n\nOn Sunday, kinplay wrote:\n> It is your turn\n"
    outcome = receive(
        sender="Alice@Example.com", recipients=mail.reply_to, text=reply)
    assert outcome == "accepted"
    assert Event.objects.filter(game=game, command__by="email", seat=0).exists()
    assert [m.subject for m in inbox()] == [f"Move accepted in Knonsters #{game.pk}"]


def test_it_ignores_a_reply_from_someone_else(game, inbox):
    mail = turn_mail(inbox, "alice")
    inbox().clear()
    version = Event.objects.filter(game=game).count()
    assert receive(sender="mallory@example.com", recipients=mail.reply_to, text=first_move(mail)) == "wrong-sender"
    assert Event.objects.filter(game=game).count() == version and inbox() == []


def test_it_refuses_a_forged_token(game, inbox):
    alices = turn_mail(inbox, "alice").reply_to[0]
    forged = alices.replace(f"+{game.pk}-0.", f"+{game.pk}-1.")
    version = Event.objects.filter(game=game).count()
    assert receive(sender="bob@example.com", recipients=[forged], text="anything") == "bad-token"
    assert Event.objects.filter(game=game).count() == version


def test_it_explains_a_move_it_cannot_take(game, inbox):
    mail = turn_mail(inbox, "alice")
    inbox().clear()
    version = Event.objects.filter(game=game).count()
    assert receive(sender="alice@example.com", recipients=mail.reply_to, text="fly to the moon") == "refused"
    assert Event.objects.filter(game=game).count() == version
    [answer] = inbox()
    assert "not accepted" in answer.subject and "fly to the moon" in answer.body


def test_it_reads_a_raw_message_from_an_mta_pipe(game, inbox, monkeypatch, capsys):
    mail = turn_mail(inbox, "bob")
    raw = (
        f"From: Bob <bob@example.com>\r\nTo: {mail.reply_to[0]}\r\nSubject: Re: {mail.subject}\r\n"
        f"Content-Type: text/plain; charset=utf-8\r\n\r\n{first_move(mail)}\r\n-- \r\nBob\r\n"
    ).encode()
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(raw)))
    call_command("receive_mail")
    assert capsys.readouterr().out.strip() == "accepted"
    assert Event.objects.filter(game=game, command__by="email", seat=1).exists()


def test_it_posts_say_lines_to_the_game_chat_and_plays_the_move(game, inbox):
    from games.models import ChatMessage

    mail = turn_mail(inbox, "alice")
    move = first_move(mail)
    reply = f"say: nice try, bob\n{move}\nSAY:  see you at the finish\n\nOn Sunday, kinplay wrote:\n> say: quoted\n"
    assert receive(sender="alice@example.com", recipients=mail.reply_to, text=reply) == "accepted"
    assert [(m.user.username, m.channel, m.text) for m in ChatMessage.objects.order_by("seq")] == [
        ("alice", "players", "nice try, bob"), ("alice", "players", "see you at the finish")]
    assert Event.objects.filter(game=game, command__by="email", seat=0).exists()


def test_it_takes_a_reply_with_only_table_talk_without_a_refusal(game, inbox):
    from games.models import ChatMessage

    mail = turn_mail(inbox, "alice")
    inbox().clear()
    assert receive(sender="alice@example.com", recipients=mail.reply_to, text="say: thinking, give me a day") == "said"
    assert ChatMessage.objects.get().text == "thinking, give me a day"
    assert not inbox() and not Event.objects.filter(game=game, command__by="email").exists()
