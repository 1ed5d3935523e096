"""A turn email as a phone shows it: every kind's board fits a 390 px screen, drawn no smaller
than it must be."""

import pytest

from tests.play import alice_moves, alices_turn

pytestmark = [pytest.mark.browser, pytest.mark.django_db]

PHONE = {"width": 390, "height": 844}


@pytest.mark.parametrize("kind", ["kinapa", "kenta", "karenza", "knonsters", "project_kin"])
def test_it_fits_the_board_of_a_turn_email_on_a_phone(chromium, alice, bob, inbox, kind):
    game = alices_turn(alice, kind=kind)
    inbox().clear()
    alice_moves(game)
    mail = [m for m in inbox() if m.to == ["bob@example.com"] and f"#{game.pk}" in m.subject][-1]
    page = chromium.new_page(viewport=PHONE)
    try:
        page.set_content(mail.alternatives[0][0])
        assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]  # no sideways scrolling
        widths = page.evaluate("""[...document.querySelectorAll('.mail-board svg:not(.kp-icon)')]
                                  .map(s => s.getBoundingClientRect().width)""")
        assert widths and all(w <= PHONE["width"] for w in widths)
        assert max(widths) >= 0.8 * PHONE["width"]  # as wide as the screen allows: its text stays legible
    finally:
        page.close()
