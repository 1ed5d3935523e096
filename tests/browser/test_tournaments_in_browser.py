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


TAPPABLE = """() => [...document.querySelectorAll(
    '#organise-form input:not([type=checkbox]), #organise-form select, #organise-form button, #organise-form a, '
    + '#organise-form .switch-row, .crumb a')]
    .filter(el => el.offsetParent !== null)
    .map(el => [el.name || el.textContent.trim().slice(0, 30), el.getBoundingClientRect().height])
    .filter(([name, height]) => height < 43.5)"""


def test_it_organises_a_tournament_through_the_form_on_a_phone(chromium, live_server, purgeable_events, make_user):
    from playwright.sync_api import expect

    from kinplay.tournaments.models import Tournament

    make_user("alice")
    base = live_server.url
    page = chromium.new_page(viewport={"width": 390, "height": 844})
    try:
        sign_in(page, base, "alice", "a-long-password")
        page.goto(f"{base}/tournaments/")
        page.click("a:has-text('Organise a tournament')")
        expect(page.locator("h1")).to_have_text("Organise a tournament")
        page.select_option("select[name=kind]", "knonsters")  # its options show, the others' hide
        expect(page.locator(".options-block[data-kind=knonsters]")).to_be_visible()
        expect(page.locator(".options-block[data-kind=karenza]")).to_be_hidden()
        page.select_option("select[name=format]", "knockout")  # a format's own settings show with it
        expect(page.locator("select[name=best_of]")).to_be_visible()
        expect(page.locator("input[name=rounds]")).to_be_hidden()
        page.select_option("select[name=format]", "swiss")
        expect(page.locator("input[name=rounds]")).to_be_visible()
        expect(page.locator("select[name=best_of]")).to_be_hidden()
        expect(page.locator("input[name=advance]")).to_be_hidden()
        assert_fits(page)
        assert page.evaluate(TAPPABLE) == []
        page.fill("input[name=name]", "Spring cup")
        page.fill("input[name=table_size-min]", "3")
        page.fill("input[name=table_size-max]", "4")
        page.fill("input[name=points]", "5, 3, 1, 0")
        page.fill("input[name=max_players]", "2")  # fewer than the fewest: the service says so
        page.select_option("select[name=clock-on_timeout]", "bot")
        page.click("button:has-text('Create the tournament')")
        expect(page.locator("#max_players-errors")).to_contain_text("Most players must be a whole number from")
        expect(page.locator("input[name=points]")).to_have_value("5, 3, 1, 0")
        assert_fits(page)
        assert page.evaluate(TAPPABLE) == []
        page.fill("input[name=max_players]", "12")
        page.click("button:has-text('Create the tournament')")
        expect(page.locator("h1")).to_have_text("Spring cup")
        expect(page.locator(".flash-success")).to_contain_text("Spring cup is open")
        config = Tournament.objects.get().state["config"]
        assert config["table_size"] == {"min": 3, "max": 4} and config["points"] == [5, 3, 1, 0]
        assert config["max_players"] == 12 and config["clock"]["on_timeout"] == "bot"
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.goto(f"{base}/tournaments/new/")
        page.screenshot(path=str(SHOTS / "organise-tournament-phone.png"), full_page=True)
        page.goto(f"{base}/leagues/new/")
        assert_fits(page)
        assert page.evaluate(TAPPABLE) == []
    finally:
        page.close()
