"""Turn emails through real mail servers (tests/mail/servers.py): kinplay's Postfix signs them
with OpenDKIM, the players' Postfix verifies them with OpenDKIM and OpenDMARC, as Gmail and
Yahoo do before they take bulk mail; the one-click unsubscribe they ask for works."""

import re
from urllib.parse import urlsplit

import pytest
from django.test import Client

from games import services
from kinplay.notifications.services import relay, wants_turn_mail
from tests.mail.servers import wait_mail
from tests.play import accepted

pytestmark = [pytest.mark.django_db, pytest.mark.services]


def results_by(message, authserv_id: str) -> str:
    """The Authentication-Results the players' server wrote, in one line."""
    found = [" ".join(str(v).split()) for v in message.get_all("Authentication-Results", [])]
    return " ; ".join(v for v in found if v.startswith(f"{authserv_id};"))


def first_turn_email(through_postfix, alice, bob):
    accepted(services.create_game(creator=alice, kind="knonsters", seats=[{"user": "alice"}, {"user": "bob"}], per_move=None))
    assert relay() >= 1
    return wait_mail(through_postfix, "bob", subject="Your turn")[0]


def test_it_delivers_turn_emails_that_pass_dkim_and_dmarc_at_the_players_server(through_postfix, alice, bob):
    mail = first_turn_email(through_postfix, alice, bob)
    verdict = results_by(mail, "mx.players.test")
    assert re.search(r"dkim=pass [^;]*header\.d=kinplay\.test", verdict), verdict
    assert "dmarc=pass" in verdict and "header.from=kinplay.test" in verdict, verdict
    signed = " ".join(mail["DKIM-Signature"].split()).replace(" ", "")
    listed = {h.lower() for h in re.search(r"(?:^|;)h=([^;]*)", signed).group(1).split(":")}
    assert {"from", "subject", "list-unsubscribe", "list-unsubscribe-post"} <= listed  # RFC 8058 §3.1


def test_it_sends_each_email_from_a_bounce_address_that_names_it(through_postfix, alice, bob):
    mail = first_turn_email(through_postfix, alice, bob)
    assert re.fullmatch(r"<bounces\+\d+-[a-z2-7]{24}@kinplay\.test>", mail["Return-Path"]), mail["Return-Path"]
    assert mail["From"] == "kinplay <turns@kinplay.test>"  # the From stays; only the envelope differs


def test_it_offers_a_one_click_unsubscribe_that_works_without_cookie_or_csrf_token(through_postfix, alice, bob):
    mail = first_turn_email(through_postfix, alice, bob)
    links = re.findall(r"<([^>]+)>", " ".join(mail["List-Unsubscribe"].split()))
    mailto = [link for link in links if link.startswith("mailto:play+")]
    https = [link for link in links if link.startswith("https://kinplay.test/")]
    assert len(mailto) == 1 and len(https) == 1, links
    assert mail["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    provider = Client(enforce_csrf_checks=True)  # as the mail provider posts: no session, no token
    response = provider.post(urlsplit(https[0]).path, {"List-Unsubscribe": "One-Click"}, HTTP_HOST="kinplay.test")
    assert response.status_code == 200
    assert not wants_turn_mail(bob) and wants_turn_mail(alice)
