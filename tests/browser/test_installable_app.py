"""The installable app in Debian's Chromium: the page links its manifest, the service worker
registers for the whole site, and Settings offer this device's notifications."""

import pytest

from tests.browser.test_play_in_browser import signed_in
from tests.mail.push_service import vapid_pair

pytestmark = pytest.mark.browser

PHONE = {"width": 390, "height": 844}


def test_it_registers_the_service_worker_and_offers_notifications(chromium, live_server, make_user, settings):
    pair = vapid_pair()
    settings.VAPID_PRIVATE_KEY, settings.VAPID_PUBLIC_KEY = pair["private_key"], pair["public_key"]
    make_user("alice")
    base = live_server.url
    with signed_in(chromium, base, "alice", PHONE) as page:
        scope = page.evaluate("navigator.serviceWorker.ready.then(r => r.scope)")
        assert scope == f"{base}/"
        manifest = page.evaluate("""fetch(document.querySelector('link[rel=manifest]').href).then(r => r.json())""")
        assert manifest["display"] == "standalone" and manifest["start_url"] == "/"
        page.goto(f"{base}/settings/")
        page.wait_for_selector("#push-on:not([hidden])")
        assert page.evaluate("'PushManager' in window")
