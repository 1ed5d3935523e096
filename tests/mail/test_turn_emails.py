import pytest

from games import selectors, services
from kinplay.accounts.models import Profile
from tests.play import accepted, finish, step

pytestmark = pytest.mark.django_db


def test_it_emails_each_human_once_when_their_turn_comes(alice, bob, inbox):
    game = accepted(services.create_game(creator=alice, kind="knonsters", seats=[{"user": "alice"}, {"user": "bob"}, {"bot": "random"}], per_move=None))
    assert sorted(m.to[0] for m in inbox() if "Your turn" in m.subject) == ["alice@example.com", "bob@example.com"]
    inbox()[:] = [m for m in inbox() if "Your turn" in m.subject]
    mail = inbox()[0]
    assert f"/games/{game.pk}/" in mail.body
    html = mail.alternatives[0][0]
    assert f"/games/{game.pk}/" in html and "<html>" in html
    inbox().clear()
    step(game, seat=0)  # alice chooses; bob was already waiting: no second email for him
    assert inbox() == []


def test_it_sends_nothing_to_a_player_who_switched_turn_email_off(alice, bob, inbox):
    profile = Profile.of(bob)
    profile.email_turns = False
    profile.save()
    accepted(services.create_game(creator=alice, kind="knonsters", seats=[{"user": "alice"}, {"user": "bob"}], per_move=None))
    assert [m.to[0] for m in inbox() if "Your turn" in m.subject] == ["alice@example.com"]


def test_it_tells_everyone_the_result(alice, bob, inbox):
    game = accepted(services.create_game(creator=alice, kind="knonsters", seats=[{"user": "alice"}, {"user": "bob"}], per_move=None))
    finish(game)
    over = [m for m in inbox() if "is over" in m.subject]
    assert sorted(m.to[0] for m in over) == ["alice@example.com", "bob@example.com"]
    game.refresh_from_db()
    summary = selectors.named(game.result["summary"], selectors.seat_names(game))
    assert summary in over[0].body and "{seat" not in over[0].body
    winners = [("alice", "bob")[i] for i in game.result["winners"]]
    assert f"Won by {', '.join(winners)}." in over[0].body


def test_it_never_writes_to_bots(alice, inbox):
    services.create_game(creator=alice, kind="knonsters", seats=[{"user": "alice"}, {"bot": "random"}, {"bot": "heuristic"}], per_move=None)
    assert [m.to[0] for m in inbox()] == ["alice@example.com"]


def test_it_does_not_email_a_player_about_the_turn_that_comes_straight_back_to_them(alice, inbox):
    game = services.create_game(creator=alice, kind="knonsters", seats=[{"user": "alice"}, {"bot": "heuristic"}], per_move=None)
    assert len(inbox()) == 1
    for _ in range(4):
        step(game, seat=0)  # alice moves, the bot answers, it is alice's turn again: she is right there
    game.refresh_from_db()
    assert game.to_act == [0]
    assert len(inbox()) == 1


def test_it_emails_a_player_whose_turn_came_back_after_a_timeout(alice, inbox, time_machine):
    from datetime import timedelta

    from django.utils import timezone

    from kinplay.clocks.services import sweep

    time_machine.move_to(timezone.now(), tick=False)  # time moves only when the test says
    game = services.create_game(creator=alice, kind="knonsters", seats=[{"user": "alice"}, {"bot": "heuristic"}], per_move=60)
    inbox().clear()
    time_machine.shift(timedelta(seconds=61))
    sweep()  # the bot chose for alice, who was away
    game.refresh_from_db()
    assert game.to_act == [0]
    assert [m.to[0] for m in inbox()] == ["alice@example.com"]
