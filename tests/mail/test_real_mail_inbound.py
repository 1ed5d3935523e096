"""Replies through real mail servers (tests/mail/servers.py): the player's server signs a reply,
kinplay's Postfix verifies it (OpenDKIM), checks DMARC (OpenDMARC) and pipes it into
``manage.py receive_mail``, which plays the move once, and never a forged one.

The pipe runs as Postfix's unprivileged user, in a process of its own that reaches the test's
database over TCP: these tests run on PostgreSQL (CI's PostgreSQL run has them)."""

import smtplib
import subprocess
from email.message import EmailMessage

import pytest
from django.db import connection

from games.models import Event
from kinplay.notifications.models import InboundMail
from kinplay.notifications.services import relay
from tests.conftest import wait_for
from tests.mail.servers import wait_mail
from tests.play import accepted

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.services, pytest.mark.postgresql]


@pytest.fixture
def game(through_postfix, alice, bob):
    from games import services

    game = accepted(services.create_game(creator=alice, kind="knonsters", seats=[{"user": "alice"}, {"user": "bob"}], per_move=None))
    relay()
    return game


def turn_email(system, who):
    return wait_mail(system, who, subject="Your turn")[0]


def first_move(mail) -> str:
    text = next(part for part in mail.walk() if part.get_content_type() == "text/plain")
    body = text.get_payload(decode=True).decode()
    return body.split("Your moves:\n")[1].splitlines()[0].split("  —  ")[0].strip()


def written_reply(mail, sender: str, message_id: str) -> EmailMessage:
    reply = EmailMessage()
    reply["From"], reply["To"] = sender, mail["Reply-To"]
    reply["Subject"], reply["Message-ID"] = f"Re: {mail['Subject']}", message_id
    reply.set_content(f"{first_move(mail)}\n\nOn Monday, kinplay wrote:\n> Your turn\n")
    return reply


def send(port: int, reply: EmailMessage, *, mail_from: str, source: str = "127.0.0.1"):
    """Hand ``reply`` to a server on ``port``, connecting from ``source`` (127.0.0.1: a user of
    that server, whose mail it signs)."""
    with smtplib.SMTP("127.0.0.1", port, source_address=(source, 0)) as smtp:
        smtp.send_message(reply, from_addr=mail_from)


def moves_by_email(game, seat: int) -> int:
    return Event.objects.filter(game=game, seat=seat, command__by="email").count()


def piped(system, count: int):
    """Until kinplay's Postfix has handed ``count`` messages to receive_mail (and it exited 0)."""
    wait_for(lambda: system.kinplay_log().count("delivered to command") >= count,
             f"{count} message(s) piped into receive_mail", on_fail=system.logs)


def test_it_plays_a_reply_signed_by_the_players_server_once(game, through_postfix):
    system = through_postfix
    reply = written_reply(turn_email(system, "alice"), "Alice <alice@players.test>", "<reply-1@players.test>")
    send(system.players.port, reply, mail_from="alice@players.test")
    wait_for(lambda: moves_by_email(game, 0) == 1, "alice's move played", on_fail=system.logs)
    send(system.players.port, reply, mail_from="alice@players.test")  # the same message again, as a retry sends it
    piped(system, 2)
    assert moves_by_email(game, 0) == 1
    assert list(InboundMail.objects.values_list("message_id", "outcome")) == [("<reply-1@players.test>", "accepted")]


def test_it_does_not_play_a_reply_forged_from_another_domain(game, through_postfix):
    system = through_postfix
    forged = written_reply(turn_email(system, "alice"), "Alice <alice@players.test>", "<forged-1@evil.test>")
    # Mallory's own server (127.25.0.3, evil.test's SPF) sends it straight to kinplay's, unsigned.
    send(system.kinplay.port, forged, mail_from="mallory@evil.test", source="127.25.0.3")
    piped(system, 1)
    assert moves_by_email(game, 0) == 0
    assert not InboundMail.objects.exists()
    # The same words from alice's own server are played: only the forged one's authentication failed.
    genuine = written_reply(turn_email(system, "alice"), "Alice <alice@players.test>", "<reply-3@players.test>")
    send(system.players.port, genuine, mail_from="alice@players.test")
    wait_for(lambda: moves_by_email(game, 0) == 1, "alice's own reply played", on_fail=system.logs)


def allow_connections(allowed: bool):
    """Open or close the test database to new connections (the test's own stays open), from a
    connection to another database: PostgreSQL will not close the one it is connected to."""
    db = connection.settings_dict
    subprocess.run(["psql", "-h", db["HOST"], "-p", str(db["PORT"]), "-U", db["USER"], "-d", "postgres", "-qc",
                    f'ALTER DATABASE "{db["NAME"]}" WITH ALLOW_CONNECTIONS {str(allowed).lower()}'], check=True)


def test_it_plays_a_reply_that_came_while_the_database_was_down_once_it_is_back(game, through_postfix):
    system = through_postfix
    reply = written_reply(turn_email(system, "bob"), "bob@players.test", "<reply-2@players.test>")
    allow_connections(False)
    try:
        send(system.players.port, reply, mail_from="bob@players.test")
        wait_for(lambda: "status=deferred" in system.kinplay_log() and "database unavailable" in system.kinplay_log(),
                 "receive_mail's temporary failure (exit 75)", on_fail=system.logs)
        assert moves_by_email(game, 1) == 0
    finally:
        allow_connections(True)
    # No flush: Postfix's own retry (its backoff is a second or two here) brings it.
    wait_for(lambda: moves_by_email(game, 1) == 1, "bob's move played after the retry", on_fail=system.logs)
