"""Tournaments in a real browser: create one from the form, join it, view its page at 360 px."""

import pytest

from tests.browser.test_play_in_browser import SHOTS, assert_fits, sign_in

pytestmark = pytest.mark.browser


def test_it_creates_joins_and_shows_a_tournament_on_a_phone(chromium, live_server, purgeable_events, make_user):
    from playwright.sync_api import expect

    from kinplay.tournaments import services
    from kinplay.tournaments.models import Tournament

    make_user("alice"), make_user("bob"), make_user("a-player-with-a-really-long-username-that-goes-on")
    base = live_server.url
    page = chromium.new_page(viewport={"width": 360, "height": 740})
    try:
        sign_in(page, base, "alice", "a-long-password")
        page.goto(f"{base}/tournaments/new/")
        assert_fits(page)
        page.fill("input[name=name]", "Friday Swiss")
        page.select_option("select[name=kind]", "karenza")
        page.select_option("select[name=format]", "swiss")
        page.click("button:has-text('Create the tournament')")
        expect(page.locator("h1")).to_have_text("Friday Swiss")
        page.click("button:has-text('Join')")
        expect(page.locator(".flash-success")).to_contain_text("You have joined")
        t = Tournament.objects.get()
        for name in ("bob", "a-player-with-a-really-long-username-that-goes-on"):
            from django.contrib.auth import get_user_model

            services.join(t.pk, get_user_model().objects.get(username=name))
        page.click("button:has-text('Start now')")
        expect(page.locator("#t-status")).to_have_text("Running")
        expect(page.locator("#standings")).to_contain_text("Median Buchholz")
        assert page.locator("#rounds .is-mine").count() == 1
        assert_fits(page)
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SHOTS / "tournament-phone.png"), full_page=True)
        page.goto(f"{base}/tournaments/")
        expect(page.locator("#tournaments-running")).to_contain_text("Friday Swiss")
        assert_fits(page)
    finally:
        page.close()
