"""The pages in a real browser: the game page follows the game by itself, the board is
clickable, and every page fits a phone's width."""

import pytest

from tests.browser.test_play_in_browser import sign_in
from tests.play import accepted
from tests.web import tinygame

pytestmark = pytest.mark.browser


@pytest.fixture
def tiny():
    from games import registry

    registry.kinds()["tiny"] = tinygame.TinyKind()
    yield
    registry.kinds().pop("tiny", None)


def test_it_updates_the_page_when_someone_else_moves(chromium, live_server, purgeable_events, make_user, tiny):
    from playwright.sync_api import expect

    from games import services
    from games.store import load_state

    alice, bob = make_user("alice"), make_user("bob")
    game = accepted(services.create_game(creator=alice, kind="tiny", options={}, per_move=None,
                                seats=[{"user": "alice"}, {"user": "bob"}]))
    page = chromium.new_page(viewport={"width": 390, "height": 844})
    try:
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
        page.close()


def test_it_counts_the_turn_that_arrived_in_the_header_too(chromium, live_server, purgeable_events, make_user, tiny):
    from playwright.sync_api import expect

    from games import services
    from games.store import load_state

    alice, bob = make_user("alice"), make_user("bob")
    game = accepted(services.create_game(creator=alice, kind="tiny", options={}, per_move=None,
                                         seats=[{"user": "alice"}, {"user": "bob"}]))
    page = chromium.new_page(viewport={"width": 1280, "height": 800})
    try:
        sign_in(page, live_server.url, "bob", "a-long-password")
        page.goto(f"{live_server.url}/games/{game.pk}/")
        assert page.locator("#site-nav .nav-badge").count() == 0  # nothing waits for bob yet
        page.evaluate("window.__sameDocument = true")
        move = tinygame.legal_actions(load_state(game), 0)[0]
        services.act(game.pk, 0, notation=move["notation"])  # alice, elsewhere
        expect(page.locator("#turn-banner")).to_contain_text("Your turn", timeout=10_000)
        assert page.evaluate("window.__sameDocument") is True
        # the header's Lobby badge says so as well, not only the page and its title
        expect(page.locator("#site-nav .nav-badge")).to_have_text("1")

        page.goto(f"{live_server.url}/")  # the lobby follows too
        expect(page.locator("#site-nav .nav-badge")).to_have_text("1")
        game.refresh_from_db()
        services.act(game.pk, 1, notation=tinygame.legal_actions(load_state(game), 1)[0]["notation"])  # bob, elsewhere
        expect(page.locator("#site-nav .nav-badge")).to_have_count(0, timeout=15_000)
    finally:
        page.close()


def test_it_plays_a_move_by_clicking_the_board(chromium, live_server, purgeable_events, make_user, tiny):
    from playwright.sync_api import expect

    from games import services
    from games.models import Event
    from games.store import load_state

    alice = make_user("alice")
    make_user("bob")
    game = accepted(services.create_game(creator=alice, kind="tiny", options={}, per_move=None,
                                seats=[{"user": "alice"}, {"user": "bob"}]))
    card = tinygame.legal_actions(load_state(game), 0)[0]["action"]["card"]
    page = chromium.new_page(viewport={"width": 1366, "height": 860})
    try:
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
        page.close()


def test_it_fits_every_page_on_a_phone(chromium, live_server, purgeable_events, make_user, tiny):
    from games import services
    from tests.browser.test_play_in_browser import assert_fits

    alice = make_user("alice")
    make_user("a-player-with-a-really-long-username-that-goes-on-and-on")
    game = accepted(services.create_game(creator=alice, kind="tiny", options={}, per_move=3600, seats=[
        {"user": "alice"}, {"user": "a-player-with-a-really-long-username-that-goes-on-and-on"}]))
    base = live_server.url
    page = chromium.new_page(viewport={"width": 360, "height": 740})
    try:
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
        page.close()


def test_it_draws_the_rating_chart_readably_on_a_phone(chromium, live_server, purgeable_events, make_user, tiny):
    """The chart kept the page's width: on a 360 px phone its labels were 5 px and its points 3 px."""
    from games import services
    from tests.browser.test_play_in_browser import assert_fits

    alice, bob = make_user("alice"), make_user("bob")
    for loser in (1, 0, 1):
        game = accepted(services.create_game(creator=alice, kind="tiny", options={}, per_move=None,
                                             seats=[{"user": "alice"}, {"user": "bob"}]))
        services.resign(game.pk, loser)
    page = chromium.new_page(viewport={"width": 360, "height": 740})
    try:
        sign_in(page, live_server.url, "alice", "a-long-password")
        page.goto(f"{live_server.url}/players/alice/")
        label = page.evaluate("document.querySelector('.rating-chart text').getBoundingClientRect().height")
        newest = page.evaluate("(() => { const c = [...document.querySelectorAll('.rating-chart circle')].pop();"
                               " const r = c.getBoundingClientRect(); return [r.width, r.right]; })()")
        assert label >= 10 and newest[0] >= 6, (label, newest)  # readable, and a point a finger finds
        assert newest[1] <= 360  # the newest game in sight without scrolling
        assert_fits(page)  # the chart scrolls in its box; the page does not
    finally:
        page.close()


def test_it_signs_up_in_the_time_zone_of_the_phone(chromium, live_server, purgeable_events):
    """A new player who never opens Settings still gets deadlines in emails and quiet hours in
    their own time: the account starts in the device's time zone, not UTC."""
    from django.contrib.auth import get_user_model

    from kinplay.accounts.models import Profile

    base = live_server.url
    context = chromium.new_context(viewport={"width": 360, "height": 740}, has_touch=True, timezone_id="America/Chicago")
    try:
        page = context.new_page()
        page.goto(f"{base}/signup/")
        page.fill("input[name=username]", "hana")
        page.fill("input[name=email]", "hana@example.com")
        page.fill("input[name=password]", "a-long-password")
        page.click("button[type=submit]:has-text('Sign up')")
        page.wait_for_url(f"{base}/")
    finally:
        context.close()
    assert Profile.of(get_user_model().objects.get(username="hana")).time_zone == "America/Chicago"


def test_it_keeps_the_keyboard_on_its_game_when_the_lobby_updates(chromium, live_server, purgeable_events, make_user):
    """The lobby swaps itself when one of the player's games changes (here a new invitation); a
    keyboard or screen-reader player on a game's link stays on it, not at the top of the page."""
    from playwright.sync_api import expect

    from games import services
    from tests.browser.test_play_in_browser import signed_in

    alice, bob = make_user("alice"), make_user("bob")
    mine = accepted(services.create_game(creator=alice, kind="karenza", options={}, per_move=None,
                                         seats=[{"user": "alice"}, {"bot": "heuristic"}]))
    with signed_in(chromium, live_server.url, "alice", {"width": 1280, "height": 800}) as page:
        link = page.locator(f"a.game-card-title[href='/games/{mine.pk}/']")
        link.focus()
        services.create_game(creator=bob, kind="karenza", options={}, per_move=None,
                             seats=[{"user": "bob"}, {"user": "alice"}])
        expect(page.locator("#games-invitations")).to_be_visible(timeout=30_000)  # the lobby polls every 10 s
        assert page.evaluate("document.activeElement.getAttribute('href')") == f"/games/{mine.pk}/", \
            "the update dropped the keyboard at the top of the page"
