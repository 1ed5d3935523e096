"""Accounts (issue 11): one username rule on the page and the API, passwords unlike the name,
an email change confirmed from the new address, sign-in lockout, and the pages' own attacks."""

import re

import pytest
import time_machine
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from games import services
from games.models import Event
from tests.play import accepted

pytestmark = pytest.mark.django_db

User = get_user_model()


def register(api, username, password="a-long-password", email="new@example.com"):
    return api().post("/api/accounts/register/", {"username": username, "email": email, "password": password},
                      format="json")


def test_it_takes_a_fullwidth_name_as_its_plain_form(api, alice):
    r = register(api, "ａｌｉｃｅ")
    assert r.status_code == 409 and "taken" in r.json()["detail"]
    r = register(api, "ｄｏｒａ")
    assert r.status_code == 201 and r.json()["username"] == "dora"
    # and signs in as typed, as the login page's form does
    r = api().post("/api/accounts/token/", {"username": "ｄｏｒａ", "password": "a-long-password"}, format="json")
    assert r.status_code == 200


@pytest.mark.parametrize("lookalike", ["\u0430lice", "ALICE", "al\u0456ce"])  # Cyrillic а, upper case, Ukrainian і
def test_it_refuses_a_name_that_looks_like_a_taken_one(api, client, alice, lookalike):
    r = register(api, lookalike)
    assert r.status_code == 409 and "taken" in r.json()["detail"]
    page = client.post(reverse("signup"), {"username": lookalike, "email": "x@example.com", "password": "a-long-password"})
    assert page.status_code == 200 and "taken" in page.content.decode()
    assert User.objects.count() == 1


def test_the_page_and_the_api_share_one_rule(api, client):
    assert register(api, "a b").status_code == 400
    page = client.post(reverse("signup"), {"username": "a b", "email": "x@example.com", "password": "a-long-password"})
    assert page.status_code == 200 and not User.objects.exists()


def test_it_refuses_a_password_like_the_name(api):
    r = register(api, "charlie-brown", password="charlie-brown1")
    assert r.status_code == 422 and "password" in r.json()["detail"]


def _change_email(client, user, new, inbox):
    client.force_login(user)
    client.post(reverse("settings"), {"email": new, "email_turns": "on"})
    return re.search(r"https?://\S+", inbox()[-1].body).group(0)


def test_an_email_change_waits_for_the_new_addresss_confirmation(client, alice, bob, inbox):
    link = _change_email(client, alice, "alice@new.example", inbox)
    alice.refresh_from_db()
    assert alice.email == "alice@example.com"  # nothing goes there yet
    client.force_login(bob)
    client.get(link)  # another player's link changes nothing for them
    bob.refresh_from_db()
    assert bob.email == "bob@example.com"
    client.force_login(alice)
    client.get(link)
    alice.refresh_from_db()
    assert alice.email == "alice@new.example"


def test_it_confirms_an_address_again_when_its_link_is_followed_twice(client, alice, inbox):
    link = _change_email(client, alice, "alice@new.example", inbox)
    client.get(link)
    # a second click (or a mail scanner that opened it first) is not "your address changed"
    page = client.get(link, follow=True).content.decode()
    alice.refresh_from_db()
    assert alice.email == "alice@new.example"
    assert "Your email address is now alice@new.example." in page
    assert "changed since this link was sent" not in page


def test_an_email_change_link_expires_and_dies_with_a_newer_change(client, alice, inbox):
    old_link = _change_email(client, alice, "one@example.com", inbox)
    with time_machine.travel(timezone.now() + timezone.timedelta(days=4)):
        client.get(old_link)
    alice.refresh_from_db()
    assert alice.email == "alice@example.com"
    first = _change_email(client, alice, "two@example.com", inbox)
    second = _change_email(client, alice, "three@example.com", inbox)
    client.get(second)
    client.get(first)  # sent for the address alice had before
    alice.refresh_from_db()
    assert alice.email == "three@example.com"


def test_two_confirmations_of_one_address_racing_leave_it_with_one_account(client, alice, bob, inbox, monkeypatch):
    from kinplay.accounts import emails

    alice_link = _change_email(client, alice, "shared@example.com", inbox)
    bob_link = _change_email(client, bob, "Shared@Example.com", inbox)
    client.force_login(alice)
    client.get(alice_link)
    # bob's request checked the address before alice's confirmation landed
    monkeypatch.setattr(emails, "owner_of", lambda address, besides=None: None)
    client.force_login(bob)
    page = client.get(bob_link, follow=True).content.decode()
    bob.refresh_from_db()
    assert bob.email == "bob@example.com"
    assert "an address serves one account" in page
    assert User.objects.filter(email__iexact="shared@example.com").count() == 1


def test_no_way_of_saving_a_user_gives_them_an_address_another_account_has(alice, bob):
    from django.db import IntegrityError, transaction

    bob.email = " ALICE@example.com"  # as the admin or createsuperuser would save it
    with pytest.raises(IntegrityError), transaction.atomic():
        bob.save()
    bob.email = ""
    bob.save()  # no address: nothing to share
    User.objects.create_user("charlie", "", "a-long-password")


def test_existing_accounts_sharing_an_address_leave_it_to_the_older(alice, bob, charlie):
    from importlib import import_module

    from django.apps import apps

    from kinplay.accounts.models import Profile

    fill_keys = import_module("kinplay.accounts.migrations.0006_email_key").fill_keys
    User.objects.filter(pk=charlie.pk).update(email="Alice@Example.com")  # as a race once left them
    Profile.objects.update(email_key=None)
    fill_keys(apps, None)
    keys = dict(Profile.objects.values_list("user__username", "email_key"))
    assert keys == {"alice": "alice@example.com", "bob": "bob@example.com", "charlie": None}


def test_the_login_page_locks_out_repeated_failures(client, alice, settings):
    for _ in range(settings.LOGIN_FAILURE_LIMIT):  # the last of them too is answered as a failure
        assert client.post(reverse("login"), {"username": "alice", "password": "guess"}).status_code == 200
    r = client.post(reverse("login"), {"username": "alice", "password": "guess"})
    assert r.status_code == 429 and int(r["Retry-After"]) > 0 and "Try again" in r.content.decode()
    r = client.post(reverse("login"), {"username": "alice", "password": "a-long-password"})
    assert r.status_code == 429


def test_it_signs_in_with_the_name_in_another_case_on_the_page_and_for_a_token(client, alice):
    r = client.post(reverse("login"), {"username": "Alice", "password": "a-long-password"})
    assert r.status_code == 302 and client.get(reverse("settings")).status_code == 200
    r = client.post("/api/accounts/token/", {"username": "ALICE", "password": "a-long-password"},
                    content_type="application/json")
    assert r.status_code == 200 and r.json()["token"]
    r = Client().post(reverse("login"), {"username": "Alice", "password": "guess"})
    assert r.status_code == 200  # the wrong password stays wrong


def test_it_counts_the_failures_of_a_name_in_every_case_together(client, alice, settings):
    for name in ["ALICE", "Alice", "aLiCe", "alicE", "aliCE"][: settings.LOGIN_FAILURE_LIMIT]:
        assert client.post(reverse("login"), {"username": name, "password": "guess"}).status_code == 200
    r = client.post(reverse("login"), {"username": "alice", "password": "guess"})
    assert r.status_code == 429
    assert client.post(reverse("login"), {"username": "ALICE", "password": "a-long-password"}).status_code == 429


def test_the_pages_answer_odd_numbers_without_crashing(client, alice, bob):
    game = accepted(services.create_game(creator=alice, kind="knonsters", seats=[{"user": "alice"}, {"user": "bob"}],
                                         per_move=None))
    client.force_login(alice)
    assert client.get("/games/99999999999999999999999/").status_code == 404
    assert client.get(f"/games/{game.pk}/?at=²").status_code == 200
    r = client.post(reverse("game-act", args=[game.pk]), {"notation": "x", "expected_version": "²"})
    assert r.status_code == 302


def test_every_kinapa_log_link_opens(client, alice, bob):
    """The first lines of a Kinapa log link to ?at=1, inside the deal: it used to crash."""
    game = accepted(services.create_game(creator=alice, kind="kinapa", seats=[{"user": "alice"}, {"user": "bob"}],
                                         per_move=None))
    client.force_login(alice)
    for at in range(1, game.version + 1):
        assert client.get(f"/games/{game.pk}/?at={at}").status_code == 200


def test_the_pages_move_key_cannot_be_computed_by_another_player(client, alice, bob, settings):
    """The web page's idempotency key is keyed with the server's secret (it was a plain hash of
    seat, version and move)."""
    import hashlib

    game = accepted(services.create_game(creator=alice, kind="knonsters", seats=[{"user": "alice"}, {"user": "bob"}],
                                         per_move=None))
    client.force_login(alice)
    from games.registry import get
    from games.store import load_state

    move = get("knonsters").rules.legal_actions(load_state(game), 0)[0]["notation"]
    client.post(reverse("game-act", args=[game.pk]), {"notation": move, "expected_version": game.version})
    key = Event.objects.get(game=game, seat=0, command__isnull=False).idempotency_key
    digest = hashlib.sha256(" ".join(move.split()).lower().encode()).hexdigest()
    assert key and digest[:24] not in key and digest not in key


def test_code_that_signs_in_without_a_request_still_can(client, alice):
    """Client.login has no request to count failures on; the lockout does not get in its way."""
    assert client.login(username="alice", password="a-long-password")


def test_the_sign_up_page_shares_the_sign_in_budget_per_address(client, settings):
    from django.core.cache import cache

    cache.clear()
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": {
        **settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"], "auth": "2/min"}}
    codes = [client.post(reverse("signup"), {"username": f"dora{i}", "email": "d@example.com", "password": "x"}).status_code
             for i in range(3)]
    assert codes == [200, 200, 429]
    cache.clear()


def test_it_shows_the_address_waiting_for_confirmation_with_send_again_and_cancel(client, alice, inbox):
    link = _change_email(client, alice, "alice@new.example", inbox)
    page = client.get(reverse("settings")).content.decode()
    assert re.search(r"Waiting for confirmation: <strong>alice@new.example</strong> —\s*link sent <time", page)
    assert 'value="resend"' in page and 'value="cancel"' in page

    client.post(reverse("settings-email-pending"), {"do": "resend"})
    assert inbox()[-1].to == ["alice@new.example"] and len([m for m in inbox() if m.to == ["alice@new.example"]]) == 2

    page = client.post(reverse("settings-email-pending"), {"do": "cancel"}, follow=True).content.decode()
    assert "Change cancelled: your emails keep going to alice@example.com." in page and "Waiting for confirmation" not in page
    page = client.get(link, follow=True).content.decode()  # the link sent before the cancel is dead
    alice.refresh_from_db()
    assert alice.email == "alice@example.com" and "You cancelled this change of address." in page

    client.get(_change_email(client, alice, "alice@new.example", inbox))  # asked again and followed: it works
    alice.refresh_from_db()
    assert alice.email == "alice@new.example"
    assert "Waiting for confirmation" not in client.get(reverse("settings")).content.decode()
