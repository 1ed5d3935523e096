"""The game page as it was after any event (?at=N): read-only, and only what that seat saw."""

import pytest
from django.utils.html import escape

from games import services
from games.models import Event
from games.selectors import first_viewable
from tests.play import accepted, step

pytestmark = pytest.mark.django_db


@pytest.fixture
def game(alice, bob):
    game = accepted(services.create_game(creator=alice, kind="knonsters", seats=[{"user": "alice"}, {"user": "bob"}], per_move=None))
    step(game, seat=0)
    step(game, seat=1)
    game.refresh_from_db()
    return game


def test_it_shows_the_game_as_it_was_without_moves(game, signed_in, alice):
    page = signed_in(alice).get(f"/games/{game.pk}/?at=1").content.decode()
    assert "Replay:" in page and f"(event {first_viewable(game)} of {game.version})" in page
    assert "move-form" not in page and "Back to now" in page
    live = signed_in(alice).get(f"/games/{game.pk}/").content.decode()
    assert "Replay:" not in live and f'href="?at={game.version}"' in live  # log entries link into history


def test_it_falls_back_to_now_for_a_point_outside_the_game(game, signed_in, alice):
    for at in ("0", str(game.version), "999", "x"):
        assert "Replay:" not in signed_in(alice).get(f"/games/{game.pk}/?at={at}").content.decode()


def test_it_says_in_words_what_had_just_happened_at_the_point_replayed(game, signed_in, alice, bob):
    from games.selectors import log_lines

    at = game.version - 1
    for user, seat in ((alice, 0), (bob, 1)):
        last = log_lines(game, seat, upto=at)[-1]["text"]
        page = signed_in(user).get(f"/games/{game.pk}/?at={at}").content.decode()
        assert f"the game as you saw it after “{escape(last)}” " in page, last


def test_it_replays_only_what_the_seat_saw(game, signed_in, alice, bob):
    chosen = Event.objects.get(game=game, seat=0, type="chosen").data
    secret = " and ".join(chosen.get("knonsters") or chosen.get("favourites") or [])
    assert secret, chosen
    at = game.version - 1
    bobs = signed_in(bob).get(f"/games/{game.pk}/?at={at}").content.decode()
    alices = signed_in(alice).get(f"/games/{game.pk}/?at={at}").content.decode()
    assert f"alice chose {secret}" in alices
    assert f"alice chose {secret}" not in bobs


def test_it_offers_no_step_back_from_the_table_as_dealt(signed_in, alice, bob):
    game = accepted(services.create_game(creator=alice, kind="karenza", seats=[{"user": "alice"}, {"user": "bob"}], per_move=None))
    for _ in range(3):
        step(game)
    game.refresh_from_db()
    first = first_viewable(game)
    assert first > 1  # the deal is several events (shuffles, hands), viewed as one
    page = signed_in(alice).get(f"/games/{game.pk}/?at={first}").content.decode()
    assert "Replay:" in page
    # "Previous" and "First" would open this same page again: nothing earlier to see
    assert 'rel="prev"' not in page and 'data-key="Home"' not in page
    page = signed_in(alice).get(f"/games/{game.pk}/?at={first + 1}").content.decode()
    assert f'href="?at={first}" rel="prev"' in page and 'data-key="Home"' in page
