"""The game page on a phone (390x844) and a laptop (1280x800), for every kind: the question asked
and the player's hand on the first screen (the whole hand with the whole move bar on a laptop, the
top of the hand on a phone), a board that fits the width and zooms, an action bar
that folds and takes at most a quarter of a phone's screen, what happened since the last look on
top, and every control big enough for a finger on the lobby, settings and game pages."""

import pytest

from games.registry import kinds
from tests.browser.test_game_page_in_browser import assert_fits, game_for_alice
from tests.browser.test_play_in_browser import SHOTS, signed_in
from tests.play import accepted, step

pytestmark = pytest.mark.browser

SIZES = {"phone": {"width": 390, "height": 844}, "laptop": {"width": 1280, "height": 800}}
SEEN = 60  # px of the hand in sight on a phone: the top of its first row of cards (Knonsters deals 16)

# Where the screen ends for the page: the top of the phone's fixed action bar, else the window's bottom.
SCREEN_BOTTOM = """() => { const bar = document.querySelector('.moves-area--bar');
    return bar && getComputedStyle(bar).position === 'fixed' ? bar.getBoundingClientRect().top : innerHeight; }"""


# The board's picture as drawn: its box, less the sides its viewBox leaves empty when its height is capped.
DRAWN = """() => { const svg = document.querySelector('#board svg[aria-describedby]'), r = svg.getBoundingClientRect();
    const vb = svg.viewBox.baseVal; return Math.min(r.width, r.height * vb.width / vb.height); }"""


def box(page, selector):
    return page.evaluate("s => { const r = document.querySelector(s).getBoundingClientRect(); return {top: r.top, bottom: r.bottom, width: r.width}; }",
                         selector)


# The hand's cards (Kenta's secret objective is one of them) that a laptop's window does not show whole.
CARDS_OUT = """() => [...document.querySelectorAll('#board .kp-hand > *')].map(el => [el, el.getBoundingClientRect()])
    .filter(([el, r]) => r.top < document.getElementById('site-header').getBoundingClientRect().bottom
                         || r.bottom > innerHeight || r.left < 0 || r.right > innerWidth)
    .map(([el, r]) => `"${el.innerText.trim().split('\\n')[0]}" ${Math.round(r.left)},${Math.round(r.top)}-${Math.round(r.right)},${Math.round(r.bottom)}`)"""


@pytest.mark.parametrize("size", list(SIZES))
@pytest.mark.parametrize("slug", list(kinds()))
def test_it_shows_the_question_the_hand_and_the_whole_board_width_on_the_first_screen(
        chromium, live_server, purgeable_events, make_user, slug, size):
    game = game_for_alice(slug, make_user)
    with signed_in(chromium, live_server.url, "alice", SIZES[size], touch=size == "phone") as page:
        page.goto(f"{live_server.url}/games/{game.pk}/")
        page.wait_for_load_state("load")
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SHOTS / f"first-screen-{slug}-{size}.png"))
        assert_fits(page)
        height = SIZES[size]["height"]
        question = box(page, "#moves-question")
        assert question["top"] >= 0 and question["bottom"] <= height, f"{slug} ({size}): the question at {question}"
        bottom = page.evaluate(SCREEN_BOTTOM)
        if page.locator("#board .kp-hand").count():  # Project_Kin has no hand
            hand = box(page, "#board .kp-hand")
            header = box(page, "#site-header")["bottom"]
            assert header <= hand["top"] and hand["top"] + SEEN <= bottom, \
                f"{slug} ({size}): the hand at {hand['top']:.0f}px, the screen ends at {bottom:.0f}px"
            if size == "laptop":
                assert page.locator("#board .kp-hand > *").count(), f"{slug}: an empty hand"
                out = page.evaluate(CARDS_OUT)
                assert not out, f"{slug} ({size}): cards of the hand out of the {height}px window: {out}"
        if size == "laptop":
            bar = box(page, ".moves-area")
            assert bar["top"] >= 0 and bar["bottom"] <= height, f"{slug}: the move bar from {bar['top']:.0f} to {bar['bottom']:.0f}px"
        board = page.evaluate("(b => [b.scrollWidth, b.clientWidth])(document.getElementById('board'))")
        assert board[0] <= board[1] + 1, f"{slug} ({size}): the board is {board[0]}px wide in a {board[1]}px card"
        if size == "phone":
            bar = box(page, ".moves-area")
            assert bar["bottom"] - bar["top"] <= height / 4 + 1, f"{slug}: the action bar is {bar['bottom'] - bar['top']:.0f}px tall"


def test_it_shows_a_whole_hand_of_16_and_the_moves_that_play_it_together_on_a_laptop(
        chromium, live_server, purgeable_events, make_user):
    """Knonsters' race: every card of the hand dealt may be played, each a move of the bar."""
    from games.store import load_state

    game = game_for_alice("knonsters", make_user)
    for _ in range(10):
        game.refresh_from_db()
        if load_state(game)["phase"] == "race" and game.to_act == [0]:
            break
        step(game)
    assert load_state(game)["phase"] == "race" and game.to_act == [0]
    with signed_in(chromium, live_server.url, "alice", SIZES["laptop"]) as page:
        page.goto(f"{live_server.url}/games/{game.pk}/")
        page.wait_for_load_state("load")
        assert page.locator("#board .kp-hand > *").count() >= 15
        assert page.locator("#board .kp-hand > .is-legal").count() >= 3
        out = page.evaluate(CARDS_OUT)
        assert not out, f"cards of the hand out of the window: {out}"
        bar = box(page, ".moves-area")
        assert box(page, "#moves-question")["top"] >= 0 and bar["bottom"] <= SIZES["laptop"]["height"], bar
        assert_fits(page)


def test_it_folds_the_action_bar_to_its_question_on_a_phone(chromium, live_server, purgeable_events, make_user):
    game = game_for_alice("kinapa", make_user)
    with signed_in(chromium, live_server.url, "alice", SIZES["phone"], touch=True) as page:
        page.goto(f"{live_server.url}/games/{game.pk}/")
        open_height = box(page, ".moves-area")
        page.locator("#bar-toggle").tap()
        assert page.locator("#bar-toggle").get_attribute("aria-expanded") == "false"
        assert page.locator("#move-list").is_hidden()
        assert page.locator("#moves-question").is_visible()
        folded = box(page, ".moves-area")
        assert folded["bottom"] - folded["top"] <= 100 < open_height["bottom"] - open_height["top"]
        # the page's end follows the bar (nothing left hidden under where it was)
        assert page.evaluate("getComputedStyle(document.body).paddingBottom") == f"{folded['bottom'] - folded['top']:.0f}px"
        page.reload()  # kept on this device
        assert page.locator("#move-list").is_hidden()
        page.locator("#bar-toggle").tap()
        assert page.locator("#move-list").is_visible()
        assert page.locator("#bar-toggle").get_attribute("aria-expanded") == "true"


PINCH = """([x, y, from, to]) => {
    const svg = document.querySelector('#board svg[aria-describedby]');
    const touches = d => [new Touch({identifier: 1, target: svg, clientX: x - d, clientY: y}),
                          new Touch({identifier: 2, target: svg, clientX: x + d, clientY: y})];
    const fire = (type, d) => svg.dispatchEvent(new TouchEvent(type, {touches: d === null ? [] : touches(d),
        changedTouches: touches(d || from), bubbles: true, cancelable: true}));
    fire('touchstart', from); fire('touchmove', (from + to) / 2); fire('touchmove', to); fire('touchend', null);
    return svg.getBoundingClientRect().width; }"""


@pytest.mark.parametrize("slug", ["project_kin", "kinapa"])
def test_it_zooms_the_board_with_two_fingers_or_the_buttons_and_pans_it_in_its_card(
        chromium, live_server, purgeable_events, make_user, slug):
    game = game_for_alice(slug, make_user)
    with signed_in(chromium, live_server.url, "alice", SIZES["phone"], touch=True) as page:
        page.goto(f"{live_server.url}/games/{game.pk}/")
        page.wait_for_load_state("load")
        fitted = page.evaluate(DRAWN)
        r = page.evaluate("(e => { const r = e.getBoundingClientRect(); return [r.left + r.width / 2, r.top + r.height / 2]; })"
                          "(document.querySelector('#board svg[aria-describedby]'))")
        page.evaluate(PINCH, [r[0], r[1], 40, 100])
        pinched = page.evaluate(DRAWN)
        assert pinched >= fitted * 2.4, f"two fingers spread: {fitted:.0f} -> {pinched:.0f}px"
        assert page.evaluate("window.visualViewport.scale") == 1, "the page zoomed instead of the board"
        assert_fits(page)  # the board scrolls inside its card, never the page
        panned = page.evaluate("(b => { b.scrollLeft = 120; return b.scrollLeft; })(document.getElementById('board'))")
        assert panned == 120
        # pieces reachable by a finger once zoomed in (fitted to a phone, Project_Kin's spaces are small)
        page.locator("[data-zoom='1']").tap()  # 1.5 times more, from the same fitted size
        assert abs(page.evaluate(DRAWN) - min(pinched * 1.5, fitted * 4)) <= 2
        small = page.evaluate("""() => [...document.querySelectorAll('#board svg .is-legal')]
            .map(el => el.getBoundingClientRect()).map(r => Math.min(r.width, r.height)).filter(s => s < 43.5)""")
        assert not small, f"board targets under 44 px at the largest zoom: {small}"
        smallest = page.evaluate("""() => Math.min(...[...document.querySelectorAll('#board svg[aria-describedby] text')]
            .filter(t => t.textContent.trim() && t.getScreenCTM())
            .map(t => parseFloat(getComputedStyle(t).fontSize) * t.getScreenCTM().a), 99)""")
        assert smallest >= 11.9, f"board text is {smallest:.1f}px zoomed in"
        while page.locator("[data-zoom='-1']").is_enabled():
            page.locator("[data-zoom='-1']").tap()
        assert abs(page.evaluate(DRAWN) - fitted) <= 1


def test_it_puts_what_happened_since_the_last_look_at_the_top(chromium, live_server, purgeable_events, make_user):
    from games import services

    alice, bob = make_user("alice"), make_user("bob")
    game = accepted(services.create_game(creator=alice, kind="knonsters", options={}, per_move=None,
                                         seats=[{"user": "alice"}, {"user": "bob"}]))
    with signed_in(chromium, live_server.url, "alice", SIZES["phone"], touch=True) as page:
        page.goto(f"{live_server.url}/games/{game.pk}/")
        assert page.locator("#since-look").is_hidden(), "a first look: nothing is new"
        for _ in range(3):
            step(game)
        page.goto(f"{live_server.url}/games/{game.pk}/")
        news = page.locator("#since-look")
        assert news.is_visible()
        newest = page.locator(".log li.is-new .log-text").first.inner_text().strip()
        assert newest in news.locator("summary").inner_text()
        assert box(page, "#since-look")["bottom"] <= box(page, "#board")["top"], "the news is not above the board"
        news.locator("summary").tap()
        assert news.locator("li").count() == page.locator(".log li.is-new").count()


def test_it_shows_no_arrow_key_hint_on_a_phone_replay(chromium, live_server, purgeable_events, make_user):
    game = game_for_alice("knonsters", make_user)
    for _ in range(3):
        step(game)
    for size, shown in (("phone", False), ("laptop", True)):
        with signed_in(chromium, live_server.url, "alice", SIZES[size], touch=size == "phone") as page:
            page.goto(f"{live_server.url}/games/{game.pk}/?at=2")
            assert page.locator(".keys-hint").is_visible() is shown, size


TARGETS = """() => [...document.querySelectorAll('a[href], button, input:not([type=hidden]), select, textarea, summary, [role=button], [tabindex="0"]')]
    .filter(el => el.getClientRects().length && getComputedStyle(el).visibility !== 'hidden' && !el.closest('.sr-only'))
    .filter(el => !el.matches('.skip'))
    // the board's pieces, fitted to the screen, may be smaller: each is also a 44 px move button of
    // the action bar (WCAG 2.5.8, "equivalent"), and 44 px zoomed in (test_it_zooms_the_board...)
    .filter(el => !el.closest('#board [data-notation]'))
    // a link inside a sentence stays text (WCAG 2.5.8, "inline"); a visually hidden checkbox is its label's
    .filter(el => !(el.matches('a') && el.parentElement.closest('p, .help, dd') && !el.matches('.player-link, .more a')))
    .filter(el => !(el.matches('input') && getComputedStyle(el).opacity === '0'))
    // a tick box or a radio button is tapped anywhere on its label
    .map(el => [el, (el.matches('input[type=radio], input[type=checkbox]') && el.closest('label') || el).getBoundingClientRect()])
    .filter(([el, r]) => r.width < 43.5 || r.height < 43.5)
    .map(([el, r]) => `${el.tagName.toLowerCase()}.${el.className} "${(el.innerText || el.value || el.name || '').trim().slice(0, 30)}" ${Math.round(r.width)}x${Math.round(r.height)}`)"""


def test_it_gives_every_control_a_finger_sized_target_on_a_phone(chromium, live_server, purgeable_events, make_user):
    """The lobby's Accept was 83x36, Save and Resign 36 px tall, names 16 px and log lines 22 px."""
    from games import services

    mine = game_for_alice("kenta", make_user, players=3)  # Kenta: the standing answer's Save
    bob = make_user("bob")
    for _ in range(2):
        step(mine)
    services.create_game(creator=bob, kind="karenza", options={}, per_move=None, seats=[{"user": "bob"}, {"user": "alice"}])
    services.create_game(creator=bob, kind="karenza", options={}, per_move=None, seats=[{"user": "bob"}, {}])
    with signed_in(chromium, live_server.url, "alice", SIZES["phone"], touch=True) as page:
        for path in ("/", "/settings/", f"/games/{mine.pk}/"):
            page.goto(live_server.url + path)
            page.wait_for_load_state("load")
            for summary in page.locator("details > summary").all():  # what opens is checked too
                if summary.is_visible():
                    summary.tap()
            small = page.evaluate(TARGETS)
            assert not small, f"{path}: under 44x44 px on a phone: {small}"


def test_it_writes_project_kins_pool_titles_clear_of_the_pieces(chromium, live_server, purgeable_events, make_user):
    """The "Spawn" title was drawn over the first pawns waiting in the pool."""
    game = game_for_alice("project_kin", make_user)
    with signed_in(chromium, live_server.url, "alice", SIZES["laptop"]) as page:
        page.goto(f"{live_server.url}/games/{game.pk}/")
        found = page.evaluate("""() => {
            const svg = document.querySelector('#board svg.pk-board');
            const box = el => { const b = el.getBoundingClientRect(); return [b.left, b.top, b.right, b.bottom]; };
            const meet = (a, b) => a[0] < b[2] && b[0] < a[2] && a[1] < b[3] && b[1] < a[3];
            const titles = [...svg.querySelectorAll('text')].filter(t => ['Spawn', 'Out', 'Final', 'Extra'].includes(t.textContent));
            const pieces = [...svg.querySelectorAll('circle')].filter(c => c.getAttribute('stroke') === '#fff');
            return {titles: titles.length, pieces: pieces.length,
                    covered: titles.filter(t => pieces.some(c => meet(box(t), box(c)))).map(t => t.textContent)}; }""")
        assert found["titles"] >= 2 and found["pieces"], found
        assert not found["covered"], f"pool titles over pieces: {found['covered']}"


def test_it_spreads_the_lobby_over_a_wide_screen(chromium, live_server, purgeable_events, make_user):
    """A card or two in each section of the lobby made one narrow column down the left of a laptop."""
    from games import services

    game_for_alice("karenza", make_user)  # a game waiting for her move
    bob = make_user("bob")
    services.create_game(creator=bob, kind="karenza", options={}, per_move=None, seats=[{"user": "bob"}, {"user": "alice"}])
    services.create_game(creator=bob, kind="knonsters", options={}, per_move=None, seats=[{"user": "bob"}, {}])
    for size, spread in (("laptop", True), ("phone", False)):
        with signed_in(chromium, live_server.url, "alice", SIZES[size]) as page:
            page.goto(live_server.url + "/")
            cards = page.evaluate("""() => [...document.querySelectorAll('.game-card')]
                .map(c => c.getBoundingClientRect()).map(r => [Math.round(r.left), Math.round(r.right)])""")
            assert len(cards) == 3
            width = SIZES[size]["width"]
            assert (len({left for left, _ in cards}) > 1) is spread, f"{size}: cards at {cards}"
            assert max(right for _, right in cards) > width * 0.6, f"{size}: cards at {cards}"
            assert_fits(page)
