"""The installable app (manifest, service worker) and Settings' push controls: a browser subscribes
for the player signed in, and only for them."""

import json

import pytest
from django.contrib.staticfiles import finders
from django.test import Client

from kinplay.notifications import push
from kinplay.notifications.models import PushSubscription
from tests.mail.push_service import Browser, vapid_pair

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _vapid(settings):
    pair = vapid_pair()
    settings.VAPID_PRIVATE_KEY, settings.VAPID_PUBLIC_KEY = pair["private_key"], pair["public_key"]


def phone(name="alices-phone"):
    return Browser(f"https://push.example/send/{name}").subscription


def post_json(client, url, body, **extra):
    return client.post(url, json.dumps(body), content_type="application/json", **extra)


def test_it_serves_the_manifest_with_its_icons(client, settings):
    response = client.get("/manifest.webmanifest")
    assert response.status_code == 200 and response["Content-Type"] == "application/manifest+json"
    manifest = response.json()
    assert manifest["start_url"] == "/" and manifest["display"] == "standalone"
    sizes = {i["sizes"] for i in manifest["icons"] if i["type"] == "image/png"}
    assert {"192x192", "512x512"} <= sizes
    for icon in manifest["icons"]:
        assert finders.find(icon["src"].removeprefix(settings.STATIC_URL).removeprefix("/static/"))


def test_it_serves_the_service_worker_from_the_root(client):
    response = client.get("/sw.js")
    assert response.status_code == 200 and response["Content-Type"].startswith("text/javascript")
    body = response.content.decode()
    assert 'addEventListener("push"' in body and "showNotification" in body


def test_it_links_the_manifest_from_every_page(client):
    assert 'rel="manifest" href="/manifest.webmanifest"' in client.get("/login/").content.decode()


def test_it_subscribes_the_browser_for_the_player_signed_in(alice, bob, signed_in):
    sub = phone()
    response = post_json(signed_in(alice), "/settings/push/subscribe/", {**sub, "user": bob.pk})
    assert response.status_code == 201
    (saved,) = PushSubscription.objects.all()
    assert saved.user == alice and saved.endpoint == sub["endpoint"] and saved.p256dh == sub["keys"]["p256dh"]


def test_it_moves_a_browser_to_whoever_signs_in_on_it(alice, bob, signed_in):
    sub = phone()
    post_json(signed_in(alice), "/settings/push/subscribe/", sub)
    post_json(signed_in(bob), "/settings/push/subscribe/", sub)
    assert list(PushSubscription.objects.values_list("user__username", flat=True)) == ["bob"]


def test_it_refuses_a_subscription_from_nobody(alice):
    response = post_json(Client(), "/settings/push/subscribe/", phone())
    assert response.status_code == 403
    assert not PushSubscription.objects.exists()


def test_it_refuses_one_without_the_csrf_token(alice):
    page = Client(enforce_csrf_checks=True)
    page.force_login(alice)
    assert post_json(page, "/settings/push/subscribe/", phone()).status_code == 403
    assert not PushSubscription.objects.exists()
    page.get("/settings/")
    token = page.cookies["csrftoken"].value
    assert post_json(page, "/settings/push/subscribe/", phone(), HTTP_X_CSRFTOKEN=token).status_code == 201


@pytest.mark.parametrize("body", [
    "not json",
    ["a list"],
    {"endpoint": "https://push.example/x"},
    {"endpoint": "http://push.example/x", "keys": phone()["keys"]},  # not https
    {"endpoint": "https://127.0.0.1:8000/api/games/", "keys": {"p256dh": "short", "auth": phone()["keys"]["auth"]}},
    {"endpoint": "https://push.example/x", "keys": {"p256dh": phone()["keys"]["p256dh"], "auth": "not base64 !"}},
    {"endpoint": "https://push.example/x", "keys": {"p256dh": "BA" + "A" * 85, "auth": phone()["keys"]["auth"]}},  # no point
])
def test_it_answers_bad_input_400_and_saves_nothing(alice, signed_in, body):
    page = signed_in(alice)
    data = body if isinstance(body, str) else json.dumps(body)
    response = page.post("/settings/push/subscribe/", data, content_type="application/json")
    assert response.status_code == 400 and response.json()["error"]
    assert not PushSubscription.objects.exists()


def test_it_unsubscribes_only_the_players_own_browser(alice, bob, signed_in):
    sub = phone()
    post_json(signed_in(alice), "/settings/push/subscribe/", sub)
    assert post_json(signed_in(bob), "/settings/push/unsubscribe/", {"endpoint": sub["endpoint"]}).json() == {
        "unsubscribed": False}
    assert PushSubscription.objects.filter(user=alice).exists()
    assert post_json(signed_in(alice), "/settings/push/unsubscribe/", {"endpoint": sub["endpoint"]}).json() == {
        "unsubscribed": True}
    assert not PushSubscription.objects.exists()


def test_it_saves_the_kinds_chosen_on_the_settings_page(alice, signed_in):
    page = signed_in(alice)
    html = page.get("/settings/").content.decode()
    assert 'id="push"' in html and 'value="turn" checked' in html
    response = page.post("/settings/push/", {"push": ["game_over", "invitation"]})
    assert response.status_code == 302
    assert push.groups_on(alice) == ["game_over", "invitation"]
    assert 'value="turn" checked' not in page.get("/settings/").content.decode()


def test_it_refuses_an_unknown_kind_and_changes_nothing(alice, signed_in):
    response = signed_in(alice).post("/settings/push/", {"push": ["turn", "everything"]})
    assert response.status_code == 400
    assert push.groups_on(alice) == list(push.GROUPS)


def test_it_checks_the_csrf_token_on_the_kinds_form(alice):
    page = Client(enforce_csrf_checks=True)
    page.force_login(alice)
    assert page.post("/settings/push/", {"push": ["turn"]}).status_code == 403
    assert push.groups_on(alice) == list(push.GROUPS)


def test_it_shows_no_push_section_while_push_is_off(alice, signed_in, settings):
    settings.VAPID_PRIVATE_KEY = settings.VAPID_PUBLIC_KEY = ""
    assert 'id="push"' not in signed_in(alice).get("/settings/").content.decode()
