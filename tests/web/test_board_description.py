"""The board a screen reader reads: each board picture on the game page is described (through
``aria-describedby``) by the position in words, as the email's text tells it, and the words say
nothing the seat may not know: changing another seat's hidden cards leaves them as they were,
changing the reader's own changes them (so the check can fail)."""

import re
from html import unescape

import pytest

from games.registry import kinds
from games.store import load_state, stream
from tests.games.karenza.test_hidden import _swap_hand_card as swap_karenza_hand
from tests.games.knonsters.test_leaks import swap_hand_card as swap_knonsters_hand
from tests.mail.test_email_leaks import knonsters_race_waiting_for_bob, perturbed
from tests.play import accepted, step

pytestmark = pytest.mark.django_db


def described(client, game):
    """The page's board pictures and the text they point to with aria-describedby."""
    html = client.get(f"/games/{game.pk}/").content.decode()
    pictures = [p for p in re.findall(r'<svg\b[^>]*\brole="img"[^>]*>', html) if "kp-icon" not in p]  # symbols
    ids = {m for p in pictures for m in re.findall(r'aria-describedby="([^"]+)"', p)}
    assert pictures and len(ids) == 1 and all("aria-describedby" in p for p in pictures), pictures
    found = re.search(rf'<div[^>]*\bid="{ids.pop()}"[^>]*>(.*?)</div>', html, re.S)
    assert found, "aria-describedby points nowhere"
    return " ".join(unescape(re.sub(r"<br>", "\n", found.group(1))).split())


@pytest.mark.parametrize("slug", list(kinds()))
def test_it_describes_every_board_in_the_words_of_the_email(client, alice, bob, slug):
    from games import selectors, services

    game = accepted(services.create_game(creator=alice, kind=slug, per_move=None,
                                         seats=[{"user": "alice"}, {"user": "bob"}]))
    step(game)
    game.refresh_from_db()
    client.force_login(bob)
    view = selectors.board_view(game, selectors.game_for(game, bob)["view"], None)
    words = kinds()[slug].render_text(view, 1, selectors.seat_names(game))
    assert described(client, game) == " ".join(words.split())


def karenza_for_bob(alice, victim):
    from games import services

    game = accepted(services.create_game(creator=alice, kind="karenza", per_move=None,
                                         seats=[{"user": "alice"}, {"user": "bob"}]))
    for _ in range(40):
        game.refresh_from_db()
        if swap_karenza_hand([r.as_rules_event() for r in stream(game)], load_state(game), victim) is not None:
            return game
        step(game)
    raise AssertionError("no position to test")


@pytest.mark.parametrize("victim, changes", [(0, False), (1, True)])
def test_it_keeps_the_other_karenza_hand_out_of_the_board_description(client, alice, bob, monkeypatch, victim, changes):
    game = karenza_for_bob(alice, victim)
    client.force_login(bob)
    before = described(client, game)
    assert "Your hand (" in before
    perturbed(monkeypatch, game, lambda evs, st: swap_karenza_hand(evs, st, victim))
    assert (described(client, game) != before) is changes


@pytest.mark.parametrize("victim, changes", [(0, False), (1, True)])
def test_it_keeps_the_other_knonsters_hand_out_of_the_board_description(client, alice, bob, monkeypatch, victim, changes):
    game = knonsters_race_waiting_for_bob(alice)
    client.force_login(bob)
    before = described(client, game)

    def swap(evs, st):
        state, events = swap_knonsters_hand(st, evs, victim)
        return events, state

    perturbed(monkeypatch, game, swap)
    assert (described(client, game) != before) is changes
