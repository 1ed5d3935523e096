"""A week of play by email alone (issue 10's acceptance test): every invitation answer, move,
window answer, standing answer and digest line is a reply to the last email the player got,
its address and moves read out of the real message; the clock is time-machine's, not sleeps."""

import random
from datetime import UTC, datetime, timedelta

import pytest
import time_machine
from django.utils import timezone

from games import selectors, services
from games.kinapa import rules as kinapa
from games.models import Event, Game
from games.store import load_state
from kinplay.accounts.models import Profile
from kinplay.clocks.services import sweep
from kinplay.notifications.digests import release_held
from kinplay.notifications.models import Outbox
from tests.mail.mails import reply

pytestmark = pytest.mark.django_db

MONDAY = datetime(2026, 11, 23, 8, 0, tzinfo=UTC)
DAY = 24 * 3600


def mails_to(inbox, user):
    return [m for m in inbox() if m.to == [user.email]]


def last_mail(inbox, user, game=None):
    """The last email ``user`` can answer (about ``game``, if named): what a player replies to."""
    for m in reversed(mails_to(inbox, user)):
        if m.reply_to and (game is None or f"#{game.pk}" in m.subject):
            return m
    raise AssertionError(f"{user} has no email to answer about {game}")


def listed_moves(mail):
    """The moves an email offers, as the player reads them: "<move>  —  <what it does>"."""
    return [line.split("  —  ")[0].strip() for line in mail.body.splitlines() if "  —  " in line]


def answer(user, mail, text):
    """Reply to ``mail`` from ``user``'s mailbox, quoting it below as mail programs do."""
    quoted = "> " + mail.body.replace("\n", "\n> ")
    return reply(to=mail.reply_to[0], sender=user.email,
                 body=f"{text}\n\nOn Mon, 23 Nov 2026 at 08:00, kinplay <turns@kinplay.local> wrote:\n{quoted}")


def by_email(game, after):
    return Event.objects.filter(game=game, seq__gt=after, command__by="email")


def robots(game, after):
    """Moves nobody chose in person after ``after``: bots for a late player, and timeouts."""
    return [e for e in Event.objects.filter(game=game, seq__gt=after).order_by("seq")
            if e.type == "timed_out" or (e.command or {}).get("by") == "bot"]


def hand_line(mail):
    return next((line for line in mail.body.splitlines() if line.startswith("Your hand")), None)


def kinapa_hand(cards):
    return "Your hand: " + (", ".join(kinapa.card_name(c) for c in cards) or "no cards")


def test_it_plays_a_week_of_kinapa_by_email_alone(alice, bob, inbox):
    users = {0: alice, 1: bob}
    rng = random.Random(10)
    with time_machine.travel(MONDAY, tick=False) as clock:
        game = services.create_game(creator=alice, kind="kinapa", seats=[{"user": "alice"}, {"user": "bob"}],
                                    per_move=2 * DAY)
        invitation = last_mail(inbox, bob, game)
        assert "invites you" in invitation.subject
        clock.shift(timedelta(hours=5))
        assert answer(bob, invitation, "Accept") == "accepted"
        game.refresh_from_db()
        assert game.status == Game.ACTIVE

        moves = windows = 0
        while timezone.now() < MONDAY + timedelta(days=6) and game.status == Game.ACTIVE:
            game.refresh_from_db()
            version, waiting = game.version, list(game.to_act)
            state = load_state(game)
            for seat in waiting:
                mail = last_mail(inbox, users[seat], game)
                # each seat's email shows its own hand, never the other's
                assert hand_line(mail) == kinapa_hand(state["hands"][seat])
                other = state["hands"][1 - seat]
                if sorted(other) != sorted(state["hands"][seat]):
                    assert kinapa_hand(other) not in mail.body
            # nobody is played for before the two-day clock, however long the humans think
            clock.shift(timedelta(hours=rng.randint(1, 9)))
            sweep()
            game.refresh_from_db()
            assert (game.version, game.to_act) == (version, waiting) and not robots(game, 0)
            for seat in waiting:
                if seat not in game.to_act:
                    continue
                mail = last_mail(inbox, users[seat], game)
                offered = [m for m in listed_moves(mail) if m != "resign"]
                assert offered, mail.body
                windows += "nothing" in offered  # the Emperor's 1-2-3: raise a hand or not
                before = game.version
                assert answer(users[seat], mail, rng.choice(offered)) == "accepted"
                assert by_email(game, before).exists()
                moves += 1
                game.refresh_from_db()
        assert moves >= 20 and windows >= 1
        assert not robots(game, 0)
