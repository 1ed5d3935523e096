"""The game page as a player uses it, in Debian's Chromium at a phone's and a laptop's size, for
every kind: the moves stay in view, a move needs a tap and a Confirm, nothing sticks out, the
board has its legend and readable text, and every symbol is drawn (no emoji that a machine
without a colour-emoji font shows as an empty box)."""

import os
import re

import pytest

from games.registry import kinds
from tests.browser.test_play_in_browser import ARGS, CHROMIUM, SHOTS, sign_in
from tests.conftest import unavailable
from tests.play import accepted

pytestmark = pytest.mark.browser

SIZES = {"phone": {"width": 390, "height": 844}, "laptop": {"width": 1280, "height": 800}}
# Emoji and pictographs that carry meaning only with a colour-emoji font.
EMOJI = re.compile("[\U0001F000-\U0001FAFF\u2600-\u27BF\u2B00-\u2BFF\u231A-\u23FF]")


@pytest.fixture(scope="module")
def chromium():
    if not os.path.exists(CHROMIUM):
        unavailable("Chromium is not installed (apt-get install chromium)")
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
        yield b
        b.close()


def game_for_alice(slug, make_user):
    """A game of ``slug`` where alice (seat 1) has a move now; the other seats are bots."""
    from games import services

    make_user("alice")
    kind = kinds()[slug]
    seats = [{"user": "alice"}] + [{"bot": "heuristic"}] * (kind.rules.MIN_PLAYERS - 1)
    game = accepted(services.create_game(creator=None, kind=slug, options={}, seats=seats, per_move=None))
    assert 0 in game.to_act, f"{slug}: alice is not to move at the start"
    return game


def assert_fits(page):
    wide = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    assert wide <= 0, f"{page.url} is {wide}px wider than the screen"
    spilled = page.evaluate("""() => [...document.querySelectorAll('.card, .move, .board-legend, .chat')]
        .filter(el => el.scrollWidth > el.clientWidth + 1 && getComputedStyle(el).overflowX === 'visible')
        .map(el => el.className)""")
    assert not spilled, f"content spills out of {spilled}"


def assert_big_targets(page):
    small = page.evaluate("""() => [...document.querySelectorAll('#board .is-legal')]
        .map(el => el.getBoundingClientRect()).map(r => Math.min(r.width, r.height))
        .filter(side => side < 43.5)""")
    assert not small, f"tap targets under 44 px on a phone: {small}"


def assert_no_emoji(page):
    text = page.evaluate("document.body.innerText")
    found = sorted(set(EMOJI.findall(text)))
    assert not found, f"emoji carry information on the page: {found}"


@pytest.mark.parametrize("size", list(SIZES))
@pytest.mark.parametrize("slug", list(kinds()))
def test_it_keeps_the_moves_in_view_and_asks_to_confirm(chromium, live_server, purgeable_events, make_user, slug, size):
    from games.models import Game

    game = game_for_alice(slug, make_user)
    context = chromium.new_context(viewport=SIZES[size], device_scale_factor=1)
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    try:
        sign_in(page, live_server.url, "alice", "a-long-password")
        page.goto(f"{live_server.url}/games/{game.pk}/")
        moves = page.locator("button.move")
        assert moves.count() > 0
        # The move bar is on the first screen, without scrolling.
        box = page.locator("#moves").bounding_box()
        assert box and box["y"] >= 0 and box["y"] + 40 <= SIZES[size]["height"], f"move bar at {box}"
        assert moves.first.bounding_box()["y"] + 44 <= SIZES[size]["height"] + 1
        assert moves.first.bounding_box()["height"] >= 44
        assert_fits(page)
        assert_no_emoji(page)
        assert page.locator(".board-legend").count() == 1, "the board has no legend"
        assert page.locator("a[href$='/rules/" + slug + "/']").count() >= 1, "no link to the rules"
        if size == "phone":
            smallest = page.evaluate("""() => Math.min(...[...document.querySelectorAll('#board svg text')]
                .filter(t => t.textContent.trim() && t.getScreenCTM())
                .map(t => parseFloat(getComputedStyle(t).fontSize) * t.getScreenCTM().a), 99)""")
            assert smallest >= 11.9, f"{slug}: board text is {smallest:.1f}px on a phone"
            tiny_html = page.evaluate("""() => [...document.querySelectorAll('#board *:not(svg *)')]
                .filter(el => [...el.childNodes].some(n => n.nodeType === 3 && n.textContent.trim()))
                .filter(el => parseFloat(getComputedStyle(el).fontSize) < 11.9)
                .map(el => el.tagName + '.' + el.className + ' ' + el.parentNode.className + ' ' + getComputedStyle(el).fontSize)""")
            assert not tiny_html, f"board text under 12 px on a phone: {tiny_html}"
            assert_big_targets(page)

        # One tap selects; nothing is played until Confirm.
        version = game.version
        moves.first.click()
        page.wait_for_selector("#confirm-bar:not([hidden])")
        SHOTS.mkdir(parents=True, exist_ok=True)  # for a person to look at
        page.screenshot(path=str(SHOTS / f"page-{slug}-{size}.png"))
        game.refresh_from_db()
        assert game.version == version, "one tap played the move"
        page.click("#cancel-move")
        assert page.locator("#confirm-bar").is_hidden()
        moves.first.click()
        with page.expect_navigation():
            page.click("#confirm-move")
        game = Game.objects.get(pk=game.pk)
        assert game.version > version
        if size == "phone":  # the next position (Project_Kin: after the roll, the spaces to move to)
            assert_big_targets(page)
        assert not errors, errors
    finally:
        context.close()


def test_it_shows_a_chat_line_to_the_other_player_and_starts_a_rematch(chromium, live_server, purgeable_events, make_user):
    """alice on a phone, bob on a laptop: alice's words reach bob's open page by themselves;
    after the game, Rematch opens the new game with the seats rotated."""
    from playwright.sync_api import expect

    from games import services
    from games.models import Game

    alice, bob = make_user("alice"), make_user("bob")
    game = accepted(services.create_game(creator=alice, kind="karenza", options={}, per_move=None,
                                         seats=[{"user": "alice"}, {"user": "bob"}]))
    phone = chromium.new_context(viewport=SIZES["phone"], device_scale_factor=1)
    laptop = chromium.new_context(viewport=SIZES["laptop"], device_scale_factor=1)
    try:
        a, b = phone.new_page(), laptop.new_page()
        sign_in(a, live_server.url, "alice", "a-long-password")
        sign_in(b, live_server.url, "bob", "a-long-password")
        a.goto(f"{live_server.url}/games/{game.pk}/")
        b.goto(f"{live_server.url}/games/{game.pk}/")
        b.evaluate("window.__sameDocument = true")
        a.fill("#chat-text", "good luck, bob")
        a.click(".chat-form button[type=submit]")
        expect(a.locator(".chat-lines")).to_contain_text("good luck, bob")
        expect(b.locator(".chat-lines")).to_contain_text("alice good luck, bob", timeout=15_000)
        assert b.evaluate("window.__sameDocument") is True  # swapped in place, not reloaded
        assert_fits(a)

        services.resign(game.pk, 1)  # bob, elsewhere
        a.reload()
        expect(a.locator("#result")).to_be_visible()
        a.click("#rematch")
        a.wait_for_url(re.compile(r".*/games/\d+/$"))
        new = Game.objects.get(rematch_of=game)
        assert a.url.endswith(f"/games/{new.pk}/")
        assert [s.user for s in new.seats.order_by("index")] == [bob, alice]
        assert_fits(a)
    finally:
        phone.close()
        laptop.close()


def test_it_says_when_the_number_of_players_is_out_of_range(chromium, live_server, purgeable_events, make_user):
    """Typing 9 players for a 2–4 player game is refused in words, never silently changed."""
    make_user("alice")
    context = chromium.new_context(viewport=SIZES["phone"], device_scale_factor=1)
    page = context.new_page()
    try:
        sign_in(page, live_server.url, "alice", "a-long-password")
        page.goto(f"{live_server.url}/games/new/")
        page.click("label.kind-option:has(input[value='knonsters'])")
        page.fill("#id_players", "9")
        page.dispatch_event("#id_players", "change")
        assert page.input_value("#id_players") == "9"
        assert page.locator("#players-note").inner_text() == "Knonsters is for 2 to 4 players, not 9."
        page.fill("#id_players", "3")
        page.dispatch_event("#id_players", "change")
        assert page.locator("#players-note").is_hidden()
        assert_fits(page)
    finally:
        context.close()


def test_it_steps_through_a_replay_with_the_arrow_keys_and_marks_what_is_new(chromium, live_server, purgeable_events,
                                                                             make_user):
    from playwright.sync_api import expect

    from games import services
    from tests.play import step

    alice, bob = make_user("alice"), make_user("bob")
    game = accepted(services.create_game(creator=alice, kind="knonsters", options={}, per_move=None,
                                         seats=[{"user": "alice"}, {"user": "bob"}]))
    for _ in range(6):
        step(game)
    game.refresh_from_db()
    context = chromium.new_context(viewport=SIZES["laptop"], device_scale_factor=1)
    page = context.new_page()
    try:
        sign_in(page, live_server.url, "alice", "a-long-password")
        page.goto(f"{live_server.url}/games/{game.pk}/")
        assert page.locator(".log-seen-marker").count() == 0  # a first visit: nothing is marked
        page.evaluate(f"localStorage.setItem('kinplay:seen:{game.pk}', '{game.version - 2}')")
        page.reload()
        expect(page.locator(".log-seen-marker")).to_have_count(1)
        assert page.locator(".log li.is-new").count() >= 1

        page.goto(f"{live_server.url}/games/{game.pk}/?at=3")
        expect(page.locator('.log li[data-seq="3"]')).to_have_class("is-current")
        page.keyboard.press("ArrowLeft")
        page.wait_for_url(re.compile(r".*\?at=2$"))
        page.keyboard.press("ArrowRight")
        page.wait_for_url(re.compile(r".*\?at=3$"))
        page.keyboard.press("Home")
        page.wait_for_url(re.compile(r".*\?at=1$"))
        page.keyboard.press("End")
        page.wait_for_url(re.compile(rf".*/games/{game.pk}/$"))
    finally:
        context.close()
