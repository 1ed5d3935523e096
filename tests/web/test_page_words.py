"""Small things a player notices on the game page, the lobby and the settings: the words fit the
device and the reader, and every field fits a phone."""

import re
from pathlib import Path

import pytest
from django.urls import reverse

from kinplay.accounts.models import Profile
from tests.web.test_pages import tiny_game

pytestmark = pytest.mark.django_db

CSS = (Path(__file__).resolve().parents[2] / "static" / "kinplay.css").read_text()


def test_it_says_tap_on_a_touch_screen_and_click_with_a_mouse(signed_in, alice, tiny):
    game = tiny_game(alice, bots=1)
    page = signed_in(alice).get(reverse("game", args=[game.pk])).content.decode()
    hint = re.search(r'<span class="muted moves-hint">(.*?)</span>\s*</h2>', page, re.S).group(1)
    assert hint == '<span class="on-touch">tap</span><span class="on-mouse">click</span> one, then Confirm'
    # a touch screen (and any device the query does not describe) shows "tap"; a mouse "click"
    assert re.search(r"^\.on-mouse \{ display: none; \}", CSS, re.M)
    assert re.search(r"@media \(hover: hover\) and \(pointer: fine\) \{ \.on-touch \{ display: none; \} "
                     r"\.on-mouse \{ display: inline; \} \}", CSS)


def test_it_offers_how_often_as_choices_that_wrap_on_a_phone(signed_in, alice):
    """Each "How often" choice is a sentence (440-540 px of text): a closed select shows one
    line of a 290 px box on a 360 px phone and cuts it off; radios wrap and show it whole."""
    Profile.objects.filter(user=alice).update(email_every=Profile.HOURLY)
    page = signed_in(alice).get(reverse("settings")).content.decode()
    assert '<select name="email_every"' not in page
    group = re.search(r'<fieldset class="field choice-list" id="id_email_every">(.*?)</fieldset>', page, re.S).group(1)
    assert "<legend>How often</legend>" in group
    choices = re.findall(r'<label class="choice-row"><input type="radio" name="email_every" value="(\d+)"( checked)?>'
                         r'<span>([^<]+)</span></label>', group)
    assert [(int(v), label) for v, _, label in choices] == Profile.EMAIL_EVERY
    assert [int(v) for v, checked, _ in choices if checked] == [Profile.HOURLY]
    # a fieldset is as wide as its widest line unless told otherwise
    assert re.search(r"^\.choice-list \{[^}]*min-width: 0;", CSS, re.M)


def test_it_names_my_time_zone_without_its_continent_so_it_fits_a_phone(signed_in, alice):
    """The closed select shows 242 px of text on a 360 px phone (Chromium: "America/Argentina/
    Buenos Aires" is 259 px, cut off); under its continent's heading the name is short enough."""
    Profile.objects.filter(user=alice).update(time_zone="America/Argentina/Buenos_Aires")
    page = signed_in(alice).get(reverse("settings")).content.decode()
    select = re.search(r'<select name="time_zone" id="id_time_zone">(.*?)</select>', page, re.S).group(1)
    america = re.search(r'<optgroup label="America">(.*?)</optgroup>', select, re.S).group(1)
    assert '<option value="America/Argentina/Buenos_Aires" selected>Argentina/Buenos Aires</option>' in america
    assert '<optgroup label="Europe">' in select and '<option value="Europe/Berlin">Berlin</option>' in select
    assert select.endswith('<option value="UTC">UTC</option>')
    labels = re.findall(r"<option [^>]*>([^<]*)</option>", select)
    assert len(labels) > 300 and max(map(len, labels)) <= 24  # the longest, "Argentina/ComodRivadavia"


def test_it_says_you_played_on_my_own_lobby_card_and_my_name_on_the_others(signed_in, alice, bob, tiny):
    from games import services
    from tests.web.test_pages import legal

    game = tiny_game(alice, bob)
    move = legal(game, 0)[0]
    services.act(game.pk, 0, notation=move["notation"])
    mine = signed_in(alice).get(reverse("lobby")).content.decode()
    assert f"Last:</span> You played a {move['action']['card']}." in mine and "alice played" not in mine
    theirs = signed_in(bob).get(reverse("lobby")).content.decode()
    assert f"Last:</span> alice played a {move['action']['card']}." in theirs


@pytest.mark.parametrize(("line", "said"), [
    ("alice played STOP: chris's Shove is cancelled and chris scores 1 point.",
     "You played STOP: chris's Shove is cancelled and chris scores 1 point."),
    ("alice becomes the Emperor and takes a Sheep card.", "You become the Emperor and take a Sheep card."),
    ("alice performs a Switch: lays down their hand and picks up their BOT deck.",
     "You perform a Switch: lay down your hand and pick up your BOT deck."),
    ("alice's time ran out: they forfeit the game.", "Your time ran out: you forfeit the game."),
    ("alice was dealt 7 cards.", "You were dealt 7 cards."),
    ("alice passes.", "You pass."),
    ("alice has put down a second pair and wins!", "You have put down a second pair and win!"),
    ("alicia played a 3.", "alicia played a 3."),  # another player whose name begins like mine
    ("bob took a card from alice.", "bob took a card from alice."),
])
def test_it_says_a_line_about_me_to_me(line, said):
    from games.selectors import said_to

    assert said_to(line, "alice", ["alice", "chris", "alicia", "bob"]) == said


def test_it_keeps_the_api_docs_out_of_the_main_menu_but_within_reach(signed_in, alice):
    page = signed_in(alice).get(reverse("settings")).content.decode()
    menu = page[page.index('<nav class="site-nav" id="site-nav"'):page.index("</nav>")]
    assert "Settings</a>" in menu and "/api/docs/" not in menu
    footer = page[page.index('<footer'):]
    assert '<a href="/api/docs/">' in footer
    assert page.count('href="/api/docs/"') == 2  # the footer and the API token section
