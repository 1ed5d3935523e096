"""Delivery reports and the one-click unsubscribe in-process (the same paths through real mail
servers: test_real_mail_bounces and test_real_mail_outbound): what is forged or malformed changes
nothing."""

import re

import pytest
from django.test import Client

from games import services
from kinplay.notifications import tokens
from kinplay.notifications.models import Bounce, Outbox
from kinplay.notifications.replies import receive_message
from kinplay.notifications.services import wants_turn_mail
from tests.mail.mails import parse
from tests.play import accepted

pytestmark = pytest.mark.django_db


def report(to: str, action: str, status: str, recipient="bob@example.com", message_id="<dsn-1@mx.example.com>") -> bytes:
    """A delivery status notification (RFC 3464) as Postfix writes one."""
    return (f"From: MAILER-DAEMON@mx.example.com (Mail Delivery System)\r\nTo: {to}\r\nSubject: Undelivered Mail\r\n"
            f"Message-ID: {message_id}\r\nAuto-Submitted: auto-replied\r\nMIME-Version: 1.0\r\n"
            "Content-Type: multipart/report; report-type=delivery-status; boundary=B\r\n\r\n"
            "--B\r\nContent-Type: text/plain\r\n\r\nI'm sorry to have to inform you...\r\n\r\n"
            "--B\r\nContent-Type: message/delivery-status\r\n\r\nReporting-MTA: dns; mx.example.com\r\n\r\n"
            f"Final-Recipient: rfc822; {recipient}\r\nOriginal-Recipient: rfc822;{recipient}\r\n"
            f"Action: {action}\r\nStatus: {status}\r\nDiagnostic-Code: smtp; 550 5.1.1 User unknown\r\n\r\n"
            "--B--\r\n").encode()


@pytest.fixture
def sent(alice, bob, inbox):
    """bob's turn email, sent: its outbox row and the message."""
    accepted(services.create_game(creator=alice, kind="knonsters", seats=[{"user": "alice"}, {"user": "bob"}], per_move=None))
    mail = next(m for m in inbox() if m.to == ["bob@example.com"] and "Your turn" in m.subject)
    return Outbox.objects.get(pk=int(re.search(r"outbox\.(\d+)\.", mail.extra_headers["Message-ID"]).group(1))), mail


def test_it_sends_every_email_from_its_own_signed_bounce_address(sent):
    row, mail = sent
    assert mail.from_email == tokens.bounce_address(row) and mail.message()["From"] == "kinplay <turns@kinplay.local>"


def test_it_counts_a_hard_bounce_once_and_a_delay_as_soft(sent):
    row, _ = sent
    hard = report(tokens.bounce_address(row), "failed", "5.1.1")
    assert receive_message(parse(hard), raw=hard) == "bounce-hard"
    assert receive_message(parse(hard), raw=hard) == "duplicate"  # the same report delivered again
    late = report(tokens.bounce_address(row), "delayed", "4.2.1", message_id="<dsn-2@mx.example.com>")
    assert receive_message(parse(late), raw=late) == "bounce-soft"
    assert [(b.address, b.hard) for b in Bounce.objects.order_by("pk")] == [("bob@example.com", True), ("bob@example.com", False)]


def test_it_ignores_a_report_to_a_forged_bounce_address(sent):
    row, _ = sent
    forged = report(tokens.bounce_address(row).replace("+", "+9"), "failed", "5.1.1")
    assert receive_message(parse(forged), raw=forged) == "automatic"  # a machine's mail to no email of ours
    reply_token = tokens.reply_address(row).replace("play+", "bounces+")  # a reply token is not a bounce token
    assert receive_message(parse(report(reply_token, "failed", "5.1.1")), raw=None) == "automatic"
    assert not Bounce.objects.exists()


def test_it_stops_at_the_limit_and_a_confirmed_address_writes_again(sent, settings, alice, bob, inbox):
    from kinplay.notifications import bounces

    row, _ = sent
    settings.MAIL_HARD_BOUNCES = 2
    for n in (1, 2):
        dsn = report(tokens.bounce_address(row), "failed", "5.1.1", message_id=f"<dsn-{n}@mx.example.com>")
        receive_message(parse(dsn), raw=dsn)
    inbox().clear()
    accepted(services.create_game(creator=alice, kind="knonsters", seats=[{"user": "alice"}, {"user": "bob"}], per_move=None))
    assert [m.to for m in inbox()] == [["alice@example.com"]] * len(inbox()) and inbox()
    bounces.confirmed("Bob@Example.com")
    accepted(services.create_game(creator=alice, kind="knonsters", seats=[{"user": "alice"}, {"user": "bob"}], per_move=None))
    assert ["bob@example.com"] in [m.to for m in inbox()]


def test_it_refuses_a_forged_one_click_link_and_changes_nothing(sent, bob):
    provider = Client(enforce_csrf_checks=True)
    url = re.search(r"<https?://[^/]+(/[^>]+)>", sent[1].extra_headers["List-Unsubscribe"]).group(1)
    forged = url.replace(f"/{bob.pk}:", f"/{bob.pk + 1}:")
    assert forged != url
    assert provider.post(forged, {"List-Unsubscribe": "One-Click"}).status_code == 400
    assert provider.get(url).status_code == 200  # a person (or a mail scanner) opening it: a button, nothing more
    assert wants_turn_mail(bob)
    assert provider.post(url, {"List-Unsubscribe": "One-Click"}).status_code == 200
    assert not wants_turn_mail(bob)
