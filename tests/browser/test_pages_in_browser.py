"""The pages in a real browser: the game page follows the game by itself, the board is
clickable, and every page fits a phone's width."""

import os

import pytest

from tests.browser.test_play_in_browser import ARGS, CHROMIUM, sign_in
from tests.conftest import unavailable
from tests.play import accepted
from tests.web import tinygame

pytestmark = pytest.mark.browser


@pytest.fixture
def tiny():
    from games import registry

    registry.kinds()["tiny"] = tinygame.TinyKind()
    yield
    registry.kinds().pop("tiny", None)


def test_it_updates_the_page_when_someone_else_moves(live_server, purgeable_events, make_user, tiny):
    if not os.path.exists(CHROMIUM):
        unavailable("Chromium is not installed (apt-get install chromium)")
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    from playwright.sync_api import expect, sync_playwright

    from games import services
    from games.store import load_state

    alice, bob = make_user("alice"), make_user("bob")
    game = accepted(services.create_game(creator=alice, kind="tiny", options={}, per_move=None,
                                seats=[{"user": "alice"}, {"user": "bob"}]))
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
        try:
            page = browser.new_page(viewport={"width": 390, "height": 844})
            sign_in(page, live_server.url, "bob", "a-long-password")
            page.goto(f"{live_server.url}/games/{game.pk}/")
            assert page.locator("button.move").count() == 0
            expect(page.locator("#turn-banner")).to_contain_text("waiting for")
            page.evaluate("window.__sameDocument = true")

            move = tinygame.legal_actions(load_state(game), 0)[0]
            services.act(game.pk, 0, notation=move["notation"])  # alice, elsewhere

            expect(page.locator("button.move").first).to_be_visible(timeout=10_000)
            expect(page.locator("#turn-banner")).to_contain_text("Your turn")
            expect(page.locator(".log")).to_contain_text(f"alice played a {move['action']['card']}.")
            expect(page.locator("#update-hint")).to_contain_text("Your turn")
            assert page.evaluate("window.__sameDocument") is True  # swapped in place, not reloaded
            game.refresh_from_db()
            assert page.locator("#game-live").get_attribute("data-version") == str(game.version)
        finally:
            browser.close()


def test_it_plays_a_move_by_clicking_the_board(live_server, purgeable_events, make_user, tiny):
    if not os.path.exists(CHROMIUM):
        unavailable("Chromium is not installed (apt-get install chromium)")
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    from playwright.sync_api import expect, sync_playwright

    from games import services
    from games.models import Event
    from games.store import load_state

    alice = make_user("alice")
    make_user("bob")
    game = accepted(services.create_game(creator=alice, kind="tiny", options={}, per_move=None,
                                seats=[{"user": "alice"}, {"user": "bob"}]))
    card = tinygame.legal_actions(load_state(game), 0)[0]["action"]["card"]
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
        try:
            page = browser.new_page(viewport={"width": 1366, "height": 860})
            sign_in(page, live_server.url, "alice", "a-long-password")
            page.goto(f"{live_server.url}/games/{game.pk}/")
            piece = page.locator(f'#board [data-notation="play {card}"]').first
            expect(piece).to_have_class("tiny-card is-legal")
            piece.click()  # selects the move, highlighted on the board; Confirm plays it
            expect(piece).to_have_class("tiny-card is-legal is-selected")
            expect(page.locator("#confirm-bar")).to_contain_text(f"{card}")
            assert not Event.objects.filter(game=game, type="played").exists()
            with page.expect_navigation():
                page.click("#confirm-move")
            expect(page.locator(".log")).to_contain_text(f"alice played a {card}.")
            assert Event.objects.filter(game=game, type="played", seat=0).get().data["card"] == card
            assert page.locator("#board .is-legal").count() == 0  # bob's turn now: nothing to click
        finally:
            browser.close()


def test_it_fits_every_page_on_a_phone(live_server, purgeable_events, make_user, tiny):
    if not os.path.exists(CHROMIUM):
        unavailable("Chromium is not installed (apt-get install chromium)")
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    from playwright.sync_api import sync_playwright

    from games import services
    from tests.browser.test_play_in_browser import assert_fits

    alice = make_user("alice")
    make_user("a-player-with-a-really-long-username-that-goes-on-and-on")
    game = accepted(services.create_game(creator=alice, kind="tiny", options={}, per_move=3600, seats=[
        {"user": "alice"}, {"user": "a-player-with-a-really-long-username-that-goes-on-and-on"}]))
    base = live_server.url
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
        try:
            page = browser.new_page(viewport={"width": 360, "height": 740})
            for path in ("/", "/login/", "/signup/"):
                page.goto(base + path)
                assert_fits(page)
            sign_in(page, base, "alice", "a-long-password")
            page.goto(base + "/settings/")
            page.click("text=Create API token")
            page.wait_for_selector("#api-token")
            for path in ("/", "/games/new/", "/settings/", f"/games/{game.pk}/", "/games/999999/"):
                page.goto(base + path)
                assert_fits(page)
            page.goto(base + f"/games/{game.pk}/")
            with page.expect_navigation():  # a move that is not legal (any more): the reason, as a message
                page.evaluate("""() => { const f = document.querySelector('form.move-form');
                                        f.querySelector('input[name=notation]').value = 'fly away'; f.submit(); }""")
            assert "“fly away” is not one of your moves now." in page.locator(".flash-error").inner_text()
            assert_fits(page)
        finally:
            browser.close()
