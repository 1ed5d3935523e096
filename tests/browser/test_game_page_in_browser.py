"""The game page as a player uses it, in Debian's Chromium at a phone's and a laptop's size, for
every kind: the moves stay in view, a move needs a tap and a Confirm, nothing sticks out, the
board has its legend and readable text, and every symbol is drawn (no emoji that a machine
without a colour-emoji font shows as an empty box)."""

import re

import pytest

from games.registry import kinds
from tests.browser.test_play_in_browser import SHOTS, sign_in, signed_in
from tests.play import accepted

pytestmark = pytest.mark.browser

SIZES = {"phone": {"width": 390, "height": 844}, "laptop": {"width": 1280, "height": 800}}
# Emoji and pictographs that carry meaning only with a colour-emoji font.
EMOJI = re.compile("[\U0001F000-\U0001FAFF\u2600-\u27BF\u2B00-\u2BFF\u231A-\u23FF]")


def game_for_alice(slug, make_user, moves=1, players=None):
    """A game of ``slug`` where alice (seat 1) has a move now, and at least ``moves`` to choose
    from (dealt again until she has); the other seats are bots, ``players`` in all (default: the
    fewest the game allows)."""
    from django.contrib.auth import get_user_model

    from games import services
    from games.engine import RESIGN
    from games.store import load_state

    if not get_user_model().objects.filter(username="alice").exists():
        make_user("alice")
    kind = kinds()[slug]
    seats = [{"user": "alice"}] + [{"bot": "heuristic"}] * ((players or kind.rules.MIN_PLAYERS) - 1)
    for _ in range(300):  # 12 of Karenza's moves come in about 1 deal of 9: 300 deals all fail 1 time in 10^15
        game = accepted(services.create_game(creator=None, kind=slug, options={}, seats=seats, per_move=None))
        assert 0 in game.to_act, f"{slug}: alice is not to move at the start"
        # the page's move buttons: every legal action but resigning (a button of its own)
        if sum(a["action"] != RESIGN for a in kind.rules.legal_actions(load_state(game), 0)) >= moves:
            return game
    raise AssertionError(f"{slug}: 300 deals and alice never had {moves} moves")


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


def zoomed_in_fully(page):
    """The board at its largest zoom (the + button until it gives out): fitted to a phone's width, a
    board's text and spaces are small; zoomed, they are big enough to read and to tap."""
    plus = page.locator("[data-zoom='1']")
    while plus.count() and plus.is_enabled():
        plus.click()


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
            zoomed_in_fully(page)
            smallest = page.evaluate("""() => Math.min(...[...document.querySelectorAll('#board svg text')]
                .filter(t => t.textContent.trim() && t.getScreenCTM())
                .map(t => parseFloat(getComputedStyle(t).fontSize) * t.getScreenCTM().a), 99)""")
            assert smallest >= 11.9, f"{slug}: board text is {smallest:.1f}px on a phone, zoomed in"
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
            zoomed_in_fully(page)
            assert_big_targets(page)
        assert not errors, errors
    finally:
        context.close()


PHONES = {"390x844": {"width": 390, "height": 844}, "360x740": {"width": 360, "height": 740}}


@pytest.mark.parametrize("phone", list(PHONES))
@pytest.mark.parametrize("slug", list(kinds()))
def test_it_lets_a_phone_scroll_the_board_and_the_footer_clear_of_the_move_bar(
        chromium, live_server, purgeable_events, make_user, slug, phone):
    """The fixed move bar covered the footer, and with a full table (Kinapa: 8 players) the
    bottom of the board: whatever the page holds, scrolled to its end it ends above the bar."""
    game = game_for_alice(slug, make_user, players=kinds()[slug].rules.MAX_PLAYERS)
    with signed_in(chromium, live_server.url, "alice", PHONES[phone]) as page:
        page.goto(f"{live_server.url}/games/{game.pk}/")
        assert page.locator("#moves").count() == 1
        # the board begins on the first screen, above the bar (a row per player pushed it under)
        shown = page.evaluate("""() => document.querySelector('.moves-area').getBoundingClientRect().top
                                      - document.querySelector('#board').getBoundingClientRect().top""")
        assert shown >= 44, f"{slug} ({phone}): {shown:.0f}px of the board above the move bar on the first screen"
        for where in ("#board", ".site-footer"):
            # scrolled as far as it takes to bring its bottom above the bar (or as far as the page goes)
            covered = page.evaluate(f"""() => {{
                const bar = () => document.querySelector('.moves-area').getBoundingClientRect();
                const el = () => document.querySelector('{where}').getBoundingClientRect();
                window.scrollBy(0, el().bottom - bar().top);
                return Math.round(el().bottom - bar().top); }}""")
            assert covered <= 0, f"{slug} ({phone}): the move bar covers the last {covered}px of {where}"


@pytest.mark.parametrize("slug", list(kinds()))
def test_it_gives_every_legal_board_target_a_name_a_screen_reader_reads(chromium, live_server, purgeable_events, make_user, slug):
    """Board targets are buttons named by their move's label, in the accessibility tree (an
    ``<svg role="img">`` around them made them one picture: screen readers skipped them) and
    reachable with Tab."""
    from games import services

    game = game_for_alice(slug, make_user)
    context = chromium.new_context(viewport=SIZES["laptop"], device_scale_factor=1)
    page = context.new_page()
    try:
        sign_in(page, live_server.url, "alice", "a-long-password")
        targets = page.locator("#board .is-legal")
        for _ in range(40):  # alice plays on (her first move) until some of her moves are on the board
            page.goto(f"{live_server.url}/games/{game.pk}/")
            if targets.count():
                break
            if not page.locator("form.move-form").count():  # that first move can end a Kinapa deal: deal again
                game = game_for_alice(slug, make_user)
                continue
            services.act(game.pk, 0, notation=page.locator("form.move-form input[name=notation]").first.input_value())
        assert targets.count(), f"{slug}: forty moves and none of alice's on the board"
        labels = {" ".join(t.split()) for t in page.locator("form.move-form .move-label").all_inner_texts()}
        client = context.new_cdp_session(page)
        client.send("Accessibility.enable")
        for i in range(targets.count()):
            el = targets.nth(i)
            el.evaluate("el => el.setAttribute('data-probe', '1')")
            node = client.send("DOM.describeNode", {"objectId": client.send("Runtime.evaluate", {
                "expression": "document.querySelector('[data-probe]')"})["result"]["objectId"]})["node"]
            ax = client.send("Accessibility.getPartialAXTree", {"backendNodeId": node["backendNodeId"],
                                                                 "fetchRelatives": False})["nodes"][0]
            el.evaluate("el => el.removeAttribute('data-probe')")
            what = f"{slug}: board target {el.get_attribute('data-notation')!r}"
            assert not ax.get("ignored"), f"{what} is hidden from screen readers"
            assert ax["role"]["value"] == "button", f"{what} is a {ax['role']['value']}, not a button"
            assert " ".join(ax["name"]["value"].split()) in labels, f"{what} is named {ax['name']['value']!r}"
            assert el.get_attribute("tabindex") == "0" or el.evaluate("el => el.tagName") == "BUTTON", f"{what}: no Tab"
            # Chrome keeps a focusable child of role=img; ARIA makes an image's children one
            # picture, and other screen readers (VoiceOver, Firefox) drop them
            hiding = el.evaluate("""el => { const out = [];
                for (let a = el.parentElement; a && a.id !== 'board'; a = a.parentElement) {
                    if (['img', 'presentation', 'none', 'button'].includes(a.getAttribute('role'))
                        || a.getAttribute('aria-hidden') === 'true') out.push(a.tagName + ' role=' + a.getAttribute('role')); }
                return out; }""")
            assert not hiding, f"{what} sits inside {hiding}"
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
    with signed_in(chromium, live_server.url, "alice", SIZES["phone"]) as page:
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
    with signed_in(chromium, live_server.url, "alice", SIZES["laptop"]) as page:
        page.goto(f"{live_server.url}/games/{game.pk}/")
        assert page.locator(".log-seen-marker").count() == 0  # a first visit: nothing is marked
        for _ in range(4):  # play on until bob has moved: news to alice (her own moves are not)
            game.refresh_from_db()
            mover = game.to_act[0]
            step(game)
            if mover == 1:
                break
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


def confirm_in_sight(page):
    """Confirm is on the screen and a tap at its middle reaches it (nothing covers it)."""
    return page.evaluate("""() => { const r = document.getElementById('confirm-move').getBoundingClientRect();
        const el = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
        return !!el && !!el.closest('#confirm-move'); }""")


def test_it_shows_confirm_after_a_tap_low_in_a_long_list_of_moves(chromium, live_server, purgeable_events, make_user):
    """On a phone the action bar scrolls when the moves do not fit; a move tapped far down the list
    must bring its Confirm into sight, not leave it at the top of the bar, scrolled away."""
    from games.models import Game

    # A player who leads with 7 cards has more than 12 moves, a list much taller than the bar; one
    # who must first answer the bot's attack may have 3.
    game = game_for_alice("karenza", make_user, moves=12)
    with signed_in(chromium, live_server.url, "alice", SIZES["phone"], touch=True) as page:
        page.goto(f"{live_server.url}/games/{game.pk}/")
        scrolled = page.evaluate("(bar => { bar.scrollTop = bar.scrollHeight; return bar.scrollTop; })(document.querySelector('.moves-area'))")
        assert scrolled > 0, "the list fits in the bar: nothing to test"
        page.locator("button.move").last.tap()
        page.wait_for_selector("#confirm-bar:not([hidden])")
        assert confirm_in_sight(page), "the move is selected but Confirm is out of sight"
        with page.expect_navigation():
            page.locator("#confirm-move").tap()
        assert Game.objects.get(pk=game.pk).version > game.version


def test_it_keeps_the_chosen_move_while_a_chat_line_arrives(chromium, live_server, purgeable_events, make_user):
    """A move tapped and not yet confirmed stays chosen when the page learns of something new (here
    the other player's chat line): the page is not swapped under the player's finger; after Cancel it is."""
    from playwright.sync_api import expect

    from games import services
    from games.chat import post_chat

    alice, bob = make_user("alice"), make_user("bob")
    game = accepted(services.create_game(creator=alice, kind="karenza", options={}, per_move=None,
                                         seats=[{"user": "alice"}, {"user": "bob"}]))
    mover, other = (alice, bob) if 0 in game.to_act else (bob, alice)  # Karenza draws who starts
    with signed_in(chromium, live_server.url, mover.username, SIZES["phone"], touch=True) as page:
        page.goto(f"{live_server.url}/games/{game.pk}/")
        page.locator("button.move").first.tap()
        page.wait_for_selector("#confirm-bar:not([hidden])")
        with page.expect_response(lambda r: "/live/" in r.url and r.status == 200, timeout=10_000):
            post_chat(game.pk, other, "take your time")
        page.wait_for_timeout(2_500)  # the page has seen the change (and, before, swapped itself)
        assert page.locator("#confirm-bar").is_visible(), "the chosen move was dropped"
        assert page.locator("button.move.is-selected").count() == 1
        assert confirm_in_sight(page)
        page.locator("#cancel-move").tap()
        expect(page.locator(".chat-lines")).to_contain_text("take your time", timeout=10_000)


def test_it_keeps_the_replay_controls_and_board_in_sight_on_a_phone(chromium, live_server, purgeable_events, make_user):
    """Stepping through a replay on a phone: each step opens with the board and Previous / Next in
    sight; the page did jump down to the game log at the bottom (scrolling the log's own box to the
    current event is enough)."""
    from games import services
    from tests.play import step

    alice, bob = make_user("alice"), make_user("bob")
    game = accepted(services.create_game(creator=alice, kind="knonsters", options={}, per_move=None,
                                         seats=[{"user": "alice"}, {"user": "bob"}]))
    for _ in range(6):
        step(game)
    with signed_in(chromium, live_server.url, "alice", SIZES["phone"], touch=True) as page:
        page.goto(f"{live_server.url}/games/{game.pk}/?at=3")
        for at in (3, 4):
            page.wait_for_url(re.compile(rf".*\?at={at}$"))
            page.wait_for_load_state("load")
            nav = page.locator("#replay-nav").bounding_box()
            assert nav["y"] >= 0, f"?at={at}: the page jumped {page.evaluate('scrollY')}px down, the replay controls out of sight"
            assert page.locator('.log li.is-current').count() == 1
            if at == 3:
                page.locator("#replay-nav a[rel=next]").tap()


def test_it_reaches_every_menu_item_on_a_phone_held_sideways(chromium, live_server, purgeable_events, make_user):
    """A phone on its side is 360 px tall: the open menu is taller than that, in a header that
    stays at the top, and the action bar was drawn over it: Settings and Sign out could not be
    reached on any page, and half the menu on a game page with a move to make."""
    game = game_for_alice("knonsters", make_user)
    with signed_in(chromium, live_server.url, "alice", {"width": 740, "height": 360}, touch=True) as page:
        for path in ("/", f"/games/{game.pk}/"):
            page.goto(live_server.url + path)
            page.locator("[data-menu-toggle]").tap()
            unreachable = []
            for item in page.locator("#site-nav a, #site-nav button").all():
                item.scroll_into_view_if_needed()
                if not item.evaluate("""a => { const r = a.getBoundingClientRect();
                        const el = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
                        return r.top >= 0 && r.bottom <= innerHeight && !!el && a.contains(el); }"""):
                    unreachable.append(" ".join(item.inner_text().split()))
            assert not unreachable, f"{path}: menu items out of reach {unreachable}"


def test_it_forgets_the_chosen_move_when_the_page_comes_back_from_the_history(chromium, live_server, purgeable_events,
                                                                             make_user):
    """Back to a game page kept in the browser's memory (bfcache) after Confirm: the old choice is
    either played or stale; the page forgets it and follows the game again."""
    from django.contrib.auth import get_user_model
    from playwright.sync_api import expect

    from games.chat import post_chat

    game = game_for_alice("karenza", make_user)
    with signed_in(chromium, live_server.url, "alice", SIZES["phone"], touch=True) as page:
        page.goto(f"{live_server.url}/games/{game.pk}/")
        page.locator("button.move").first.tap()
        page.wait_for_selector("#confirm-bar:not([hidden])")
        post_chat(game.pk, get_user_model().objects.get(username="alice"), "back again")  # from her laptop: news
        page.evaluate("window.dispatchEvent(new PageTransitionEvent('pageshow', {persisted: true}))")
        expect(page.locator("#confirm-bar")).to_be_hidden()
        expect(page.locator(".chat-lines")).to_contain_text("back again", timeout=10_000)


def test_it_does_not_play_a_move_on_a_double_tap(chromium, live_server, purgeable_events, make_user):
    """The Confirm bar opens where the first move was: the second tap of a double tap landed on
    Confirm and played the move nobody confirmed. A Confirm tap right after the choice is ignored."""
    from games.models import Game

    game = game_for_alice("karenza", make_user)
    with signed_in(chromium, live_server.url, "alice", SIZES["phone"], touch=True) as page:
        page.goto(f"{live_server.url}/games/{game.pk}/")
        box = page.locator("button.move").first.bounding_box()
        x, y = box["x"] + 40, box["y"] + box["height"] / 2  # where a thumb lands on the label
        page.touchscreen.tap(x, y)
        page.wait_for_timeout(120)
        page.touchscreen.tap(x, y)
        page.wait_for_timeout(1_000)
        assert Game.objects.get(pk=game.pk).version == game.version, "a double tap played the move"
        assert page.locator("#confirm-bar").is_visible()
        with page.expect_navigation():
            page.locator("#confirm-move").tap()  # a deliberate Confirm still plays it
        assert Game.objects.get(pk=game.pk).version > game.version


def test_it_fits_every_rules_page_on_a_phone(chromium, live_server, purgeable_events, make_user):
    """Project_Kin's RULES.md has a wide drawing of the board (a <pre> that scrolls sideways): it
    stretched the whole rules page to 674 px on a 360 px phone, cutting every paragraph."""
    make_user("alice")
    with signed_in(chromium, live_server.url, "alice", {"width": 360, "height": 740}) as page:
        for slug in kinds():
            page.goto(f"{live_server.url}/rules/{slug}/")
            assert_fits(page)


def test_it_keeps_the_action_bar_and_the_board_where_they_were_scrolled_on_an_update(chromium, live_server,
                                                                                    purgeable_events, make_user):
    """A phone player reading far down a long list of moves (or along a board wider than the
    screen) while something new arrives: the page updates in place and both stay where they were;
    they jumped back to the start."""
    from django.contrib.auth import get_user_model
    from playwright.sync_api import expect

    from games.chat import post_chat

    game = game_for_alice("karenza", make_user, moves=12)  # more than the bar shows: it scrolls (3 fit)
    with signed_in(chromium, live_server.url, "alice", SIZES["phone"], touch=True) as page:
        page.goto(f"{live_server.url}/games/{game.pk}/")
        page.wait_for_load_state("load")
        page.locator("[data-zoom='1']").tap()  # zoomed in: the board is wider than its card
        bar = page.evaluate("(b => { b.scrollTop = b.scrollHeight; return b.scrollTop; })(document.querySelector('.moves-area'))")
        board = page.evaluate("(b => { b.scrollLeft = b.scrollWidth; return b.scrollLeft; })(document.getElementById('board'))")
        assert bar > 0 and board > 0, f"nothing scrolls: nothing to test (bar {bar}, board {board})"
        page.evaluate("window.__sameDocument = true")
        post_chat(game.pk, get_user_model().objects.get(username="alice"), "from my laptop")
        expect(page.locator(".chat-lines")).to_contain_text("from my laptop", timeout=10_000)
        assert page.evaluate("window.__sameDocument") is True
        assert page.evaluate("document.querySelector('.moves-area').scrollTop") == bar
        assert page.evaluate("document.getElementById('board').scrollLeft") == board


def test_it_writes_the_winners_rank_readably(chromium, live_server, purgeable_events, make_user):
    """The winner's rank in the final result: white on gold was 1.8:1 (WCAG AA asks 4.5:1)."""
    from games import services

    game = game_for_alice("karenza", make_user)
    services.resign(game.pk, 0)  # the bot wins
    with signed_in(chromium, live_server.url, "alice", SIZES["phone"]) as page:
        page.goto(f"{live_server.url}/games/{game.pk}/")
        ratio = page.evaluate("""() => {
            const el = document.querySelector('.standings .is-winner .rank'), cs = getComputedStyle(el);
            const rgb = c => c.match(/\\d+(\\.\\d+)?/g).slice(0, 3).map(Number);
            const lum = c => rgb(c).map(v => v / 255).map(v => v <= .03928 ? v / 12.92 : ((v + .055) / 1.055) ** 2.4)
                .reduce((s, v, i) => s + v * [.2126, .7152, .0722][i], 0);
            const [a, b] = [lum(cs.color), lum(cs.backgroundColor)].sort((x, y) => y - x);
            return (a + .05) / (b + .05); }""")
        assert ratio >= 4.5, f"the winner's rank is {ratio:.1f}:1"


FOCUSED_MOVE = "() => document.activeElement && document.activeElement.matches('button.move') ? document.activeElement.dataset.move : null"


def test_it_gives_the_keyboard_back_to_the_chosen_move_after_cancel_or_escape(chromium, live_server, purgeable_events,
                                                                                make_user):
    """A keyboard or screen-reader player who chooses a move and thinks better of it stays in the
    move list: Escape, or Cancel, puts the focus back on that move, not at the top of the page."""
    from games.models import Game

    game = game_for_alice("karenza", make_user, moves=2)
    with signed_in(chromium, live_server.url, "alice", SIZES["laptop"]) as page:
        page.goto(f"{live_server.url}/games/{game.pk}/")
        second = page.locator("button.move").nth(1)
        chosen = second.get_attribute("data-move")
        second.focus()
        page.keyboard.press("Enter")
        page.wait_for_selector("#confirm-bar:not([hidden])")
        assert page.evaluate("document.activeElement.id") == "confirm-move"
        page.keyboard.press("Escape")
        page.wait_for_selector("#confirm-bar", state="hidden")
        assert page.evaluate(FOCUSED_MOVE) == chosen, "Escape left the keyboard at the top of the page"

        page.keyboard.press("Enter")  # the same move again, then Tab to Cancel
        page.wait_for_selector("#confirm-bar:not([hidden])")
        page.keyboard.press("Tab")
        assert page.evaluate("document.activeElement.id") == "cancel-move"
        page.keyboard.press("Enter")
        page.wait_for_selector("#confirm-bar", state="hidden")
        assert page.evaluate(FOCUSED_MOVE) == chosen, "Cancel left the keyboard at the top of the page"
    assert Game.objects.get(pk=game.pk).version == game.version, "a cancelled move was played"


def test_it_keeps_the_keyboard_on_its_move_when_the_page_updates(chromium, live_server, purgeable_events, make_user):
    """The page swaps itself when something new arrives (here the other player's chat line); a
    keyboard or screen-reader player reading the moves stays on the move they were on."""
    from playwright.sync_api import expect

    from games import services
    from games.chat import post_chat

    alice, bob = make_user("alice"), make_user("bob")
    game = accepted(services.create_game(creator=alice, kind="karenza", options={}, per_move=None,
                                         seats=[{"user": "alice"}, {"user": "bob"}]))
    mover, other = (alice, bob) if 0 in game.to_act else (bob, alice)  # Karenza draws who starts
    with signed_in(chromium, live_server.url, mover.username, SIZES["laptop"]) as page:
        page.goto(f"{live_server.url}/games/{game.pk}/")
        last = page.locator("button.move").last
        chosen = last.get_attribute("data-move")
        last.focus()
        post_chat(game.pk, other, "your move")
        expect(page.locator(".chat-lines")).to_contain_text("your move", timeout=10_000)
        assert page.evaluate(FOCUSED_MOVE) == chosen, "the update dropped the keyboard at the top of the page"


def test_it_shows_an_invited_player_accept_on_the_first_screen_of_a_phone(chromium, live_server, purgeable_events,
                                                                          make_user):
    """A friend opening the invitation on a phone saw the empty board's placeholder and a button
    to another game, and had to scroll to find Accept."""
    from games import services
    from games.models import Game

    game_for_alice("karenza", make_user)  # another game, waiting for alice's move
    bob = make_user("bob")
    game = services.create_game(creator=bob, kind="karenza", options={}, per_move=None,
                                seats=[{"user": "bob"}, {"user": "alice"}])
    assert game.status == Game.WAITING
    with signed_in(chromium, live_server.url, "alice", {"width": 360, "height": 740}, touch=True) as page:
        page.goto(f"{live_server.url}/games/{game.pk}/")
        accept = page.locator("#invitation button:has-text('Accept')")
        box = accept.bounding_box()
        assert box and box["y"] + box["height"] <= 740, f"Accept is below the first screen (at {box})"
        assert not page.locator("#next-game").count(), "a button to another game comes before the invitation's answer"
        assert_fits(page)
