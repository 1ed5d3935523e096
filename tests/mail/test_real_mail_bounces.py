"""Delivery reports through real mail servers (tests/mail/servers.py): an email to a mailbox that
does not exist comes back to its VERP address, ``receive_mail`` (piped by kinplay's Postfix)
records it, and after MAIL_HARD_BOUNCES of them the address gets no more email until its owner
confirms one. A mailbox that only refuses for now is retried by Postfix and is not failing.

Like test_real_mail_inbound, these run on PostgreSQL: the pipe reaches the database over TCP."""

import re

import pytest
from django.urls import reverse

from games import services
from kinplay.notifications.models import Bounce, Outbox
from kinplay.notifications.services import relay
from tests.conftest import wait_for
from tests.mail.servers import wait_mail
from tests.play import accepted

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.services, pytest.mark.postgresql]


def new_game(alice, other):
    accepted(services.create_game(creator=alice, kind="knonsters", seats=[{"user": "alice"}, {"user": other.username}],
                                  per_move=None))
    relay()


def bounces(address: str, hard: bool) -> int:
    return Bounce.objects.filter(address=address, hard=hard).count()


def test_it_stops_emailing_an_address_after_hard_bounces_until_a_new_one_is_confirmed(
        through_postfix, settings, alice, charlie, client, admin_client):
    system, settings.MAIL_HARD_BOUNCES = through_postfix, 2
    new_game(alice, charlie)  # an invitation and a turn email, to a mailbox the players' server does not have
    assert Outbox.objects.filter(user=charlie, sent_at__isnull=False, error="").count() == 2
    wait_for(lambda: bounces("charlie@players.test", hard=True) == 2, "2 hard bounces recorded", on_fail=system.logs)
    new_game(alice, charlie)
    stopped = Outbox.objects.filter(user=charlie, error="not sent: the address bounced")
    assert stopped.count() == 2  # the next invitation and turn email
    assert not any(f"message-id=<outbox.{pk}." in system.kinplay_log() for pk in stopped.values_list("pk", flat=True))
    client.force_login(charlie)
    page = client.get(reverse("settings")).content.decode()
    assert "charlie@players.test</strong> is failing" in page
    admin = admin_client.get("/admin/notifications/bounce/").content.decode()
    assert "charlie@players.test" in admin and "icon-yes.svg" in admin  # failing: yes

    client.post(reverse("settings"), {"email": "charlie.new@players.test", "email_turns": "on"})
    relay()  # the confirmation goes to the new address, which works
    link = re.search(r"https://kinplay\.test(/\S+)", wait_mail(system, "charlie.new")[0].get_payload(decode=True).decode())
    client.get(link.group(1), HTTP_HOST="kinplay.test")
    charlie.refresh_from_db()
    assert charlie.email == "charlie.new@players.test"
    assert "is failing" not in client.get(reverse("settings")).content.decode()
    new_game(alice, charlie)
    wait_mail(system, "charlie.new", subject="Your turn")


def test_it_lets_postfix_retry_a_mailbox_that_refuses_for_now_and_counts_no_hard_bounce(through_postfix, alice, bob):
    system = through_postfix
    system.set_access(system.players, {"bob@players.test": "450 4.2.1 Mailbox busy, try again later"})
    new_game(alice, bob)
    # Postfix keeps it queued and, past delay_warning_time, tells the envelope sender it is late.
    wait_for(lambda: bounces("bob@players.test", hard=False) >= 1, "a delay report recorded as a soft bounce",
             on_fail=system.logs)
    assert system.messages("bob") == [] and bounces("bob@players.test", hard=True) == 0
    system.set_access(system.players, {})
    system.flush(system.kinplay)
    wait_mail(system, "bob", subject="Your turn")
    assert not Bounce.failing("bob@players.test")
