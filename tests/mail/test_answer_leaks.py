"""Answers to replies tell a seat nothing it may not know: change another seat's hidden hand,
and nothing the replying seat receives changes."""

import re

import pytest

from games import services
from tests.mail.mails import reply
from tests.play import accepted
from tests.web import tinygame

pytestmark = pytest.mark.django_db


def answers_after_replies(alice, bob, inbox, monkeypatch, bobs_hidden_card):
    """alice's answers to a stale reply and to a card she does not hold, with bob holding
    ``bobs_hidden_card`` besides the 5 he plays in the open."""
    hands = [[1, 2], [5, bobs_hidden_card]]
    monkeypatch.setattr(tinygame, "setup", lambda n, options, rng: [tinygame.event("dealt", hands=hands)])
    game = accepted(services.create_game(creator=alice, kind="tiny", seats=[{"user": "alice"}, {"user": "bob"}], per_move=None))
    token = [m for m in inbox() if m.to == ["alice@example.com"]][-1].reply_to[0]
    services.act(game.pk, 0, notation="play 1")  # on the page
    services.act(game.pk, 1, notation="play 5")
    now = [m for m in inbox() if m.to == ["alice@example.com"]][-1].reply_to[0]
    assert now != token
    inbox().clear()
    reply(to=token, sender="alice@example.com", body="play 2")  # too late: the game moved on
    reply(to=now, sender="alice@example.com", body=f"play {bobs_hidden_card}")  # bob's card, not hers
    mails = [m for m in inbox() if m.to == ["alice@example.com"]]
    assert len(mails) == 2 and "was not accepted" in mails[1].body
    return [re.sub(rf"(#|/games/){game.pk}\b|play\+\d+-[a-z2-7]+@", "X", "\n".join([m.subject, m.body, m.alternatives[0][0]]))
            .replace(str(bobs_hidden_card), "HIDDEN") for m in mails]


@pytest.mark.usefixtures("tiny_by_mail")
def test_an_answer_is_the_same_whatever_the_other_seat_holds(alice, bob, inbox, monkeypatch, mailoutbox):
    first = answers_after_replies(alice, bob, inbox, monkeypatch, 7771)
    mailoutbox.clear()
    second = answers_after_replies(alice, bob, inbox, monkeypatch, 8882)
    assert any("the game has moved on" in m and "play 2" in m for m in first)  # the check below means something
    assert first == second

