"""What is new since the player last looked, remembered per player on the server
(kinplay.notifications.presence): the board marks what changed, the log marks what others did."""

import re

import pytest
from django.core.cache import cache

from games import services
from games.highlight import mark_changes
from tests.mail.test_at_the_table import alice_moves, alices_turn
from tests.play import bot_action

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _no_looks_remembered():
    cache.clear()


def board_of(page) -> str:
    html = page.content.decode()
    return html[html.index('id="board"'):html.index("</section>", html.index('id="board"'))]


def test_it_marks_a_moved_piece_and_nothing_else():
    before = '<svg><rect x="0" y="0" width="9" height="9"/><circle cx="10" cy="5" r="3" class="a"/><circle cx="1" cy="1" r="3"/></svg>'
    after = '<svg><rect x="0" y="0" width="9" height="9"/><circle cx="10" cy="5" r="3" class="b" data-notation="x"/><circle cx="4" cy="1" r="3"/></svg>'
    marked = mark_changes(before, after)
    assert marked.count("data-changed") == 1
    assert '<circle data-changed="" cx="4"' in marked


def test_it_marks_on_the_board_what_changed_since_the_players_last_look(alice, bob, signed_in):
    game = alices_turn(alice, kind="project_kin")
    page = signed_in(bob)
    assert "data-changed" not in board_of(page.get(f"/games/{game.pk}/"))
    for _ in range(3):  # alice's turn: a roll, a pawn moved
        game.refresh_from_db()
        if 0 not in game.to_act:
            break
        services.act(game.pk, 0, action=bot_action(game, 0))
    first = board_of(page.get(f"/games/{game.pk}/"))
    assert "data-changed" in first
    assert "data-changed" not in board_of(page.get(f"/games/{game.pk}/"))  # seen now


def test_it_does_not_count_the_players_own_moves_as_new(alice, bob, signed_in):
    game = alices_turn(alice)
    page = signed_in(alice)
    looked = page.get(f"/games/{game.pk}/")
    seen = game.version
    assert 'data-seen="0"' in looked.content.decode()  # a first look: nothing is marked new
    services.act(game.pk, 0, action=bot_action(game, 0), by="email")  # her move, by email
    game.refresh_from_db()
    mine = game.version
    services.act(game.pk, 1, action=bot_action(game, 1))  # bob's
    html = page.get(f"/games/{game.pk}/").content.decode()
    assert f'data-seen="{seen}"' in html  # remembered for her, not for this browser
    own = set(map(int, re.findall(r'<li data-seq="(\d+)" data-own', html)))
    others = {seq for seq in map(int, re.findall(r'<li data-seq="(\d+)">', html)) if seq > seen}
    assert own and seen < min(own) and max(own) <= mine < min(others)
    game.refresh_from_db()
    assert f'data-seen="{game.version}"' in page.get(f"/games/{game.pk}/").content.decode()


def test_it_remembers_the_last_look_across_browsers(alice, bob, client, signed_in):
    from django.test import Client

    game = alices_turn(alice)
    signed_in(bob).get(f"/games/{game.pk}/")
    seen = game.version
    alice_moves(game)
    other = Client()
    other.force_login(bob)  # his phone, which never opened the game
    assert f'data-seen="{seen}"' in other.get(f"/games/{game.pk}/").content.decode()
