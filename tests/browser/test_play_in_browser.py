"""A person signs in, creates a game against bots through the New game form, and plays it
to the end by clicking the move buttons, in Debian's Chromium (Playwright, sync API).

Runs once per installed kind, with its minimum number of players, played on a phone-size
screen. Screenshots of the middle and the end of each game, on a phone and on a laptop,
go to var/screenshots/ for a person to look at; the pages must fit both widths.
"""

import random
import re
import time
from contextlib import contextmanager
from datetime import timedelta
from pathlib import Path

import pytest

from games.registry import kinds

VIEWPORTS = {"phone": {"width": 390, "height": 844}, "laptop": {"width": 1366, "height": 860}}
SHOTS = Path(__file__).resolve().parents[2] / "var" / "screenshots"
MAX_CLICKS = 1500
MAX_SECONDS = 300

pytestmark = pytest.mark.browser


def sign_in(page, base, username, password):
    page.goto(f"{base}/login/")
    page.fill("input[name=username]", username)
    page.fill("input[name=password]", password)
    page.click("button[type=submit]:has-text('Sign in')")
    page.wait_for_url(f"{base}/")


@contextmanager
def signed_in(chromium, base, username, viewport, touch=False):
    """A page of its own browser context at ``viewport``'s size (``touch``: a touch screen),
    signed in as ``username``; the context is closed afterwards."""
    context = chromium.new_context(viewport=viewport, device_scale_factor=1, has_touch=touch)
    try:
        page = context.new_page()
        sign_in(page, base, username, "a-long-password")
        yield page
    finally:
        context.close()


def create_game(page, base, kind, viewport):
    if viewport == "phone":  # the nav sits behind the menu button on a phone
        page.click("[data-menu-toggle]")
    page.click("#site-nav >> text=New game")
    page.wait_for_url(f"{base}/games/new/")
    page.click(f"label.kind-option:has(input[value='{kind.slug}'])")
    n = kind.rules.MIN_PLAYERS
    page.fill("#id_players", str(n))
    page.dispatch_event("#id_players", "change")
    for i in range(2, n + 1):
        page.select_option(f"select[name='seat-{i}-type']", "heuristic" if i % 2 == 0 else "random")
    page.select_option("#id_per_move", "none")
    assert_fits(page)
    page.click("button:has-text('Create game')")
    page.wait_for_load_state("domcontentloaded")
    error = page.locator("#form-error")
    assert not error.count(), f"the form refused the game: {error.inner_text()}"
    page.wait_for_url(re.compile(r".*/games/\d+/$"))


def assert_fits(page):
    """Nothing sticks out sideways: the page never scrolls horizontally, even on a phone."""
    wide = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    assert wide <= 0, f"{page.url} is {wide}px wider than the screen"


def shoot(page, name):
    """Screenshots on both screens (the page is played on the phone size)."""
    for label, size in VIEWPORTS.items():
        page.set_viewport_size(size)
        assert_fits(page)
        page.screenshot(path=str(SHOTS / f"{name}-{label}.png"), full_page=True)
    page.set_viewport_size(VIEWPORTS["phone"])


def fire_due_timers():
    """What Celery beat would do for a wall-clock game timer (no beat runs in this test)."""
    from django.utils import timezone

    from kinplay.clocks.services import sweep

    return sweep(now=timezone.now() + timedelta(days=30))


@pytest.mark.slow
@pytest.mark.parametrize("slug", list(kinds()))
def test_it_plays_a_whole_game_in_the_browser(chromium, live_server, purgeable_events, make_user, slug):
    from games.models import Game

    kind = kinds()[slug]
    make_user("alice")
    base = live_server.url
    viewport = "phone"
    context = chromium.new_context(viewport=VIEWPORTS[viewport], device_scale_factor=1)
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    try:
        sign_in(page, base, "alice", "a-long-password")
        create_game(page, base, kind, viewport)
        game = Game.objects.get()
        assert game.kind == slug and game.status == Game.ACTIVE and game.per_move is None
        rnd = random.Random(f"{slug}-{viewport}")
        clicks, idle_since = 0, None
        SHOTS.mkdir(parents=True, exist_ok=True)
        started = time.monotonic()
        while True:
            assert time.monotonic() - started < MAX_SECONDS, f"no result after {MAX_SECONDS} s and {clicks} moves"
            page.wait_for_load_state("domcontentloaded")
            if page.locator("#result").count():
                break
            moves = page.locator("button.move")
            n = moves.count()
            if n:
                idle_since = None
                if clicks in (1, 8):  # the later one overwrites the first in a long enough game
                    shoot(page, f"{slug}-mid")
                button = moves.nth(0 if clicks % 2 == 0 else rnd.randrange(n))
                button.click()  # selects the move; Confirm plays it (the player's default setting)
                with page.expect_navigation():
                    page.click("#confirm-move")
                clicks += 1
                assert clicks < MAX_CLICKS, "the game did not end"
                continue
            # Nobody asks me for anything: the others are thinking, or a game timer runs.
            idle_since = idle_since or time.monotonic()
            if time.monotonic() - idle_since > 4:
                fire_due_timers()
                idle_since = None
            page.wait_for_timeout(500)
            page.reload()
        shoot(page, f"{slug}-end")
        result = page.locator("#result")
        assert result.is_visible()
        assert "Game over" in page.locator("#turn-banner").inner_text()
        game.refresh_from_db()
        assert game.status == Game.FINISHED
        assert game.seed in page.content()  # the fairness block reveals the seed at the end
        assert clicks > 0 and not errors, errors
        assert not game.events.filter(type__icontains="resign").exists(), "the game ended by a resignation"
    except Exception:
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SHOTS / f"{slug}-failure.png"), full_page=True)
        raise
    finally:
        context.close()
