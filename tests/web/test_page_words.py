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
