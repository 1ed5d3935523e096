import io
import sys

import pytest
from django.core.management import call_command

from games import services
from games.models import Event
from tests.mail.mails import raw_reply, reply
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
    body = f"{move}\n\nOn Sunday, kinplay wrote:\n> It is your turn\n"
    assert reply(to=mail.reply_to[0], sender="Alice <Alice@Example.com>", body=body) == "accepted"
    assert Event.objects.filter(game=game, command__by="email", seat=0).exists()
    assert [m.subject for m in inbox()] == [f"Move accepted in Knonsters #{game.pk}"]


def test_it_ignores_a_reply_from_someone_else(game, inbox):
    mail = turn_mail(inbox, "alice")
    inbox().clear()
    version = Event.objects.filter(game=game).count()
    assert reply(to=mail.reply_to[0], sender="mallory@example.com", body=first_move(mail)) == "wrong-sender"
    assert Event.objects.filter(game=game).count() == version and inbox() == []


def test_it_refuses_a_forged_token(game, inbox):
    alices = turn_mail(inbox, "alice").reply_to[0]
    bobs = turn_mail(inbox, "bob").reply_to[0]
    alice_row, bob_row = (a.split("+")[1].split("-")[0] for a in (alices, bobs))
    forged = alices.replace(f"+{alice_row}-", f"+{bob_row}-")  # alice's signature on bob's email
    version = Event.objects.filter(game=game).count()
    assert reply(to=forged, sender="bob@example.com", body="anything") == "bad-token"
    assert Event.objects.filter(game=game).count() == version


def test_it_explains_a_move_it_cannot_take(game, inbox):
    mail = turn_mail(inbox, "alice")
    inbox().clear()
    version = Event.objects.filter(game=game).count()
    assert reply(to=mail.reply_to[0], sender="alice@example.com", body="fly to the moon") == "refused"
    assert Event.objects.filter(game=game).count() == version
    [answer] = inbox()
    assert "not accepted" in answer.subject and "fly to the moon" in answer.body


def test_it_reads_a_raw_message_from_an_mta_pipe(game, inbox, monkeypatch, capsys):
    mail = turn_mail(inbox, "bob")
    raw = raw_reply(to=mail.reply_to[0], sender="Bob <bob@example.com>", body=f"{first_move(mail)}\r\n-- \r\nBob")
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(raw)))
    call_command("receive_mail")
    assert capsys.readouterr().out.strip() == "accepted"
    assert Event.objects.filter(game=game, command__by="email", seat=1).exists()


def test_it_believes_an_unauthenticated_pipe_only_when_told_to(game, inbox, monkeypatch, capsys):
    """`manage.py receive_mail --trust-unauthenticated` is the development path without a mail server."""
    mail = turn_mail(inbox, "bob")
    raw = raw_reply(to=mail.reply_to[0], sender="bob@example.com", body=first_move(mail), authenticated=False)
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(raw)))
    call_command("receive_mail")
    assert capsys.readouterr().out.strip() == "unauthenticated"
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(raw)))
    call_command("receive_mail", "--trust-unauthenticated")
    assert capsys.readouterr().out.strip() == "accepted"


def test_it_asks_the_mta_to_retry_when_the_database_is_down(game, inbox, monkeypatch):
    from django.db import OperationalError

    from kinplay.notifications.management.commands import receive_mail

    mail = turn_mail(inbox, "bob")
    raw = raw_reply(to=mail.reply_to[0], sender="bob@example.com", body=first_move(mail))
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(raw)))

    def down(*args, **kwargs):
        raise OperationalError("connection refused")

    monkeypatch.setattr(receive_mail, "receive_message", down)
    with pytest.raises(SystemExit) as exit:
        call_command("receive_mail")
    assert exit.value.code == 75  # EX_TEMPFAIL: the MTA keeps the message and tries again


def test_it_puts_no_traceback_in_what_the_mta_may_bounce(game, inbox, monkeypatch, capsys, settings, tmp_path):
    from kinplay.notifications.management.commands import receive_mail

    settings.VAR_DIR = tmp_path

    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"From: x@y.z\r\n\r\nhi")))

    def bug(*args, **kwargs):
        raise KeyError("secret internals")

    monkeypatch.setattr(receive_mail, "receive_message", bug)
    with pytest.raises(SystemExit) as exit:
        call_command("receive_mail")
    assert exit.value.code == 75
    out = capsys.readouterr()
    assert "secret internals" not in out.out + out.err and "Traceback" not in out.out + out.err
    assert "secret internals" in (tmp_path / "log" / "receive_mail.log").read_text()  # the operator's copy


def test_it_reads_a_reply_written_only_in_html(game, inbox):
    mail = turn_mail(inbox, "alice")
    move = first_move(mail)
    raw = raw_reply(to=mail.reply_to[0], sender="alice@example.com",
                    body=f"<div dir=\"ltr\">{move}<br></div><br><div class=\"gmail_quote\">On Tue, kinplay wrote:<br>"
                         f"<blockquote>It is your turn</blockquote></div>")
    raw = raw.replace(b"Content-Type: text/plain", b"Content-Type: text/html")
    from kinplay.notifications.replies import receive_message
    from tests.mail.mails import parse

    assert receive_message(parse(raw), raw=raw) == "accepted"


def test_it_posts_say_lines_to_the_game_chat_and_plays_the_move(game, inbox):
    from games.models import ChatMessage

    mail = turn_mail(inbox, "alice")
    move = first_move(mail)
    body = f"say: nice try, bob\n{move}\nSAY:  see you at the finish\n\nOn Sunday, kinplay wrote:\n> say: quoted\n"
    assert reply(to=mail.reply_to[0], sender="alice@example.com", body=body) == "accepted"
    assert [(m.user.username, m.channel, m.text) for m in ChatMessage.objects.order_by("seq")] == [
        ("alice", "players", "nice try, bob"), ("alice", "players", "see you at the finish")]
    assert Event.objects.filter(game=game, command__by="email", seat=0).exists()


def test_it_takes_a_reply_with_only_table_talk(game, inbox):
    from games.models import ChatMessage

    mail = turn_mail(inbox, "alice")
    inbox().clear()
    assert reply(to=mail.reply_to[0], sender="alice@example.com", body="say: thinking, give me a day") == "accepted"
    assert ChatMessage.objects.get().text == "thinking, give me a day"
    assert not Event.objects.filter(game=game, command__by="email").exists()
    assert "thinking, give me a day" in inbox()[-1].body  # the answer says what was posted
