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


def test_it_writes_nothing_more_to_a_deactivated_account(alice, bob, inbox):
    """A closed account's replies are refused (replies.receive_message): it is not asked for moves
    either, nor told results; its games go on, and the other players hear of them as before."""
    game = accepted(services.create_game(creator=alice, kind="knonsters", seats=[{"user": "alice"}, {"user": "bob"}], per_move=None))
    bob.is_active = False
    bob.save()
    inbox().clear()
    finish(game)
    assert any("is over" in m.subject for m in inbox()) and {m.to[0] for m in inbox()} == {"alice@example.com"}


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


def test_it_lists_my_moves_in_a_turn_email_sent_after_another_player_answered_their_part(alice, bob, inbox):
    # Both choose favourites at once; bob chooses before alice's email leaves the outbox (a
    # second's relay lag, a mail server retrying): alice still waits the same way, so her email
    # lists her moves and can be answered.
    from games.models import Event
    from tests.mail.mails import reply
    from tests.play import bot_action

    game = accepted(services.create_game(creator=alice, kind="knonsters", seats=[{"user": "alice"}, {"user": "bob"}], per_move=None))
    game.refresh_from_db()
    assert game.to_act == [0, 1]
    services.act(game.pk, 1, action=bot_action(game, 1))
    [mail] = [m for m in inbox() if m.to == ["alice@example.com"] and "Your turn" in m.subject]
    moves = [a["notation"] for a in selectors.game_for(game, alice)["legal_actions"]]
    assert "Your moves:" in mail.body and all(f"  {move}  —  " in mail.body for move in moves)
    assert mail.reply_to
    assert reply(to=mail.reply_to[0], sender="alice@example.com", body=moves[0]) == "accepted"
    assert Event.objects.filter(game=game, command__by="email", seat=0).exists()


def test_it_does_not_send_a_turn_email_whose_turn_passed_before_it_left(alice, bob, inbox):
    # The mail server was down, or the relay behind: alice played on the page meanwhile. An email
    # saying "It is your turn" with no moves in it would be wrong; bob's turn email still goes.
    from kinplay.notifications.models import Outbox
    from tests.play import bot_action

    game = accepted(services.create_game(creator=alice, kind="knonsters", seats=[{"user": "alice"}, {"user": "bob"}], per_move=None))
    game.refresh_from_db()
    services.act(game.pk, 0, action=bot_action(game, 0))
    turns = [m for m in inbox() if "Your turn" in m.subject]
    assert [m.to for m in turns] == [["bob@example.com"]] and "Your moves:" in turns[0].body
    row = Outbox.objects.get(kind=Outbox.YOUR_TURN, user=alice)
    assert row.sent_at is not None and row.error == "not sent: the turn had passed"


def test_it_draws_kentas_to_act_hourglass_at_text_size_in_the_email(alice, bob, inbox):
    # The board's rule ".kenta svg {width: 100%}" also caught the icons: inlined into the email,
    # the hourglass beside the player to act filled the whole table cell.
    import re

    accepted(services.create_game(creator=alice, kind="kenta", seats=[{"user": "alice"}, {"user": "bob"}], per_move=None))
    # the first email with the board (its subject depends on the table's first step, which a seed draws)
    html = next(m.alternatives[0][0] for m in inbox() if m.alternatives and "kenta-board" in m.alternatives[0][0])
    icons = re.findall(r'<svg class="kp-icon kp-icon-hourglass"[^>]*>', html)  # one per player to act (two in a vote)
    assert icons and all("width: 100%" not in icon and 'width="1em"' in icon for icon in icons)
    assert re.search(r'<svg class="kenta-board"[^>]*width: 100%', html)
