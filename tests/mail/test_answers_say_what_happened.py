"""An answer to a move by email says what the move did, in the player's own view and the
log's words, then where the game stands and the board."""

import pytest

from games import selectors, services
from kinplay.notifications.replies import fresh_turn_email
from tests.mail.mails import reply
from tests.play import accepted, step

pytestmark = pytest.mark.django_db


def turn_mail(inbox, who):
    return [m for m in inbox() if m.to == [f"{who}@example.com"] and "Your turn" in m.subject][-1]


def moves_of(mail) -> list[str]:
    lines = mail.body.split("Your moves:\n")[1].split("\n\n")[0].splitlines()
    return [line.split("  —  ")[0].strip() for line in lines if "  —  " in line]


def play_by_mail(inbox, game, who, move):
    mail = turn_mail(inbox, who)
    inbox().clear()
    assert reply(to=mail.reply_to[0], sender=f"{who}@example.com", body=move) == "accepted"
    return [m for m in inbox() if "accepted" in m.subject][-1]


def own_lines(game, user, before):
    """The log lines of the player's own command, as the game page shows them to that seat."""
    game.refresh_from_db()
    seat = game.seat_of(user)
    names = selectors.seat_names(game)
    return [selectors.said_to(line["text"], names[seat], names) for line in selectors.log_lines(game, seat, after=before)]


@pytest.mark.parametrize("kind", ["project_kin", "kinapa", "knonsters", "karenza"])
def test_it_says_what_the_move_did_then_the_position(kind, alice, bob, inbox):
    game = accepted(services.create_game(creator=alice, kind=kind, seats=[{"user": "alice"}, {"user": "bob"}],
                                         per_move=None))
    who = next(u for u in (alice, bob) if game.seat_of(u) in game.to_act)
    before = game.version
    answer = play_by_mail(inbox, game, who.username, moves_of(turn_mail(inbox, who.username))[0])
    did = answer.body.split("What your move did:\n")[1].split("\n\n")[0]
    expected = own_lines(game, who, before)
    assert expected and all(f"  - {line}" in did for line in expected[:1])
    assert "\nNow: " in answer.body
    board = get_text(game, who)
    assert board and board in answer.body


def get_text(game, user):
    from games.registry import get

    game.refresh_from_db()
    seat = game.seat_of(user)
    payload = selectors.game_for(game, user)
    return get(game.kind).render_text(selectors.board_view(game, payload["view"]), seat, selectors.seat_names(game))


def test_it_tells_the_number_rolled_in_project_kin(alice, bob, inbox):
    game = accepted(services.create_game(creator=alice, kind="project_kin", seats=[{"user": "alice"}, {"user": "bob"}],
                                         per_move=None))
    who = next(u for u in (alice, bob) if game.seat_of(u) in game.to_act)
    moves = moves_of(turn_mail(inbox, who.username))
    assert "roll" in moves, moves
    answer = play_by_mail(inbox, game, who.username, "roll")
    did = answer.body.split("What your move did:\n")[1]
    assert "You rolled " in did.splitlines()[0]
    # still their turn (the pawn to move): the moves come in a turn email, which takes the reply
    assert "Now: Your turn in Project_Kin" in answer.body and "turn email that follows" in answer.body
    assert [m for m in inbox() if "Your turn" in m.subject and m.to == [f"{who.username}@example.com"]]


def test_it_names_the_object_turned_in_kinapa(alice, bob, inbox):
    game = accepted(services.create_game(creator=alice, kind="kinapa", seats=[{"user": "alice"}, {"user": "bob"}],
                                         per_move=None))
    for _ in range(200):  # on until someone may turn an object over, then a turn email for that turn
        game.refresh_from_db()
        who = next(u for u in (alice, bob) if game.seat_of(u) in game.to_act)
        if any(a["notation"].startswith("turn ") for a in selectors.game_for(game, who)["legal_actions"]):
            break
        step(game)
    fresh_turn_email(game, who)
    turns = [m for m in moves_of(turn_mail(inbox, who.username)) if m.startswith("turn ")]
    assert turns
    answer = play_by_mail(inbox, game, who.username, turns[0])
    did = answer.body.split("What your move did:\n")[1].splitlines()[0]
    assert did.startswith("  - You turned") or did.startswith("  - You turn"), did
