"""Small things a player notices on the game page, the lobby and the settings: the words fit the
device and the reader, and every field fits a phone."""

import re
from pathlib import Path

import pytest
from django.urls import reverse

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
