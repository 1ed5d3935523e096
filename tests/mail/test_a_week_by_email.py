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
from kinplay.notifications.held import release_held
from kinplay.notifications.models import Outbox
from tests.mail.mails import reply

pytestmark = pytest.mark.django_db

MONDAY = datetime(2026, 11, 23, 8, 0, tzinfo=UTC)
DAY = 24 * 3600
SEED = 3  # the deal and the players' choices: the same week every run


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


def test_it_plays_a_week_of_kinapa_by_email_alone(alice, bob, inbox, monkeypatch):
    users = {0: alice, 1: bob}
    rng = random.Random(SEED)
    monkeypatch.setattr(services, "new_seed", lambda: f"{SEED:064x}")  # the same deal every run
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


def play_by_email(inbox, clock, game, users, rng, *, until, hours=(1, 9), check=None):
    """Everyone asked answers the last email they got about ``game``, a few hours later, with a
    move it lists; before each answer the clock sweep runs and must leave the game alone."""
    moves = []
    while timezone.now() < until:
        game.refresh_from_db()
        if game.status != Game.ACTIVE:
            break
        version, waiting = game.version, list(game.to_act)
        assert waiting and all(s in users for s in waiting)  # only humans are ever waited for
        clock.shift(timedelta(hours=rng.randint(*hours)))
        sweep()
        release_held()
        game.refresh_from_db()
        assert (game.version, game.to_act) == (version, waiting) and not robots(game, 0)
        for seat in waiting:
            game.refresh_from_db()
            if seat not in game.to_act:
                continue
            mail = last_mail(inbox, users[seat], game)
            if check:
                check(game, seat, mail)
            offered = [m for m in listed_moves(mail) if m != "resign"]
            assert offered, mail.body
            before, move = game.version, rng.choice(offered)
            assert answer(users[seat], mail, move) == "accepted"
            assert by_email(game, before).filter(seat=seat).exists()
            moves.append((seat, move))
    return moves


def kenta_leaks_nothing(monkeypatch):
    """A check for play_by_email: the turn email just sent to ``seat`` does not change when another
    seat's hidden data (hand, objective, ballot, the pile) changes, and does when its own does."""
    from tests.games.kenta.test_leaks import _perturb
    from tests.mail.test_email_leaks import email, perturbed

    def check(game, seat, mail):
        check.calls = getattr(check, "calls", 0)
        row = Outbox.objects.filter(game=game, user__email=mail.to[0]).exclude(kind__in=["move_accepted"]) \
            .order_by("-pk").first()
        if row is None or row.version != game.version or game.version % 3:
            return  # a sample keeps the week fast
        seen = email(row)
        check.calls += 1
        for victim in range(3):
            with monkeypatch.context() as m:
                perturbed(m, game, lambda evs, st, v=victim: _perturb(evs, st, v))
                assert (email(row) == seen) is (victim != seat), (victim, seat)
    return check


def test_it_plays_a_week_of_kenta_by_email_with_a_standing_answer_and_a_timeout(alice, bob, charlie, inbox, api,
                                                                                 monkeypatch):
    users = {0: alice, 1: bob, 2: charlie}
    rng = random.Random(SEED)
    monkeypatch.setattr(services, "new_seed", lambda: f"{SEED:064x}")  # the same shuffle every run
    with time_machine.travel(MONDAY, tick=False) as clock:
        game = services.create_game(creator=alice, kind="kenta", per_move=2 * DAY,
                                    seats=[{"user": "alice"}, {"user": "bob"}, {"user": "charlie"}])
        for who in (bob, charlie):
            clock.shift(timedelta(hours=3))
            game.refresh_from_db()
            assert game.status == Game.WAITING and not game.to_act  # nobody's clock runs yet
            assert answer(who, last_mail(inbox, who, game), "accept") == "accepted"
        game.refresh_from_db()
        assert game.status == Game.ACTIVE
        # bob lets every STOP window resolve without asking him, said in a reply to his invitation
        assert answer(bob, last_mail(inbox, bob, game), "always let it resolve") == "accepted"
        assert game.seats.get(index=1).standing == "always"

        leaks = kenta_leaks_nothing(monkeypatch)
        moves = play_by_email(inbox, clock, game, users, rng, until=MONDAY + timedelta(days=5), check=leaks)
        assert len(moves) >= 15 and leaks.calls >= 3
        answered = Event.objects.filter(game=game, command__by="standing")
        assert answered.exists() and set(answered.values_list("seat", flat=True)) == {1}
        assert not [s for s, m in moves if s == 1 and m in ("resolve", "stop")]  # bob was never asked
        assert [m for s, m in moves if m in ("resolve", "stop")]  # the others were, and were waited for

        # charlie stays silent: two days later a bot plays for him, and the log says so
        game.refresh_from_db()
        version, late = game.version, game.to_act
        clock.shift(timedelta(days=2, seconds=1))
        sweep()
    game.refresh_from_db()
    assert game.version > version
    events = api(alice).get(f"/api/games/{game.pk}/events/?after={version}").json()
    assert {e["data"]["seat"] for e in events if e["type"] == "timed_out"} == set(late)
    texts = [line["text"] for line in selectors.log_lines(game, 0, after=version)]
    for seat in late:
        name = users[seat].username
        assert any(t.startswith((f"{name}'s time ran out", f"{name} did not answer in time")) for t in texts), texts


def test_it_plays_two_games_by_digest_and_a_declined_invitation_starts_nothing(alice, bob, charlie, inbox,
                                                                               monkeypatch):
    from tests.games.kenta.test_leaks import _perturb
    from tests.mail.test_email_leaks import email, perturbed

    monkeypatch.setattr(services, "new_seed", lambda: f"{SEED:064x}")
    profile = Profile.of(alice)
    profile.email_every = Profile.HOURLY  # at most one turn email an hour: a digest when both games wait
    profile.save()
    rng = random.Random(SEED)
    with time_machine.travel(MONDAY, tick=False) as clock:
        two = services.create_game(creator=alice, kind="kinapa", per_move=2 * DAY,
                                   seats=[{"user": "alice"}, {"user": "bob"}])
        three = services.create_game(creator=alice, kind="kenta", per_move=2 * DAY,
                                     seats=[{"user": "alice"}, {"user": "bob"}, {"user": "charlie"}])
        spurned = services.create_game(creator=alice, kind="kinapa", per_move=2 * DAY,
                                       seats=[{"user": "alice"}, {"user": "charlie"}])
        for who, game, word in ((bob, two, "accept"), (bob, three, "Accept"), (charlie, three, "accept"),
                                (charlie, spurned, "No, decline")):
            clock.shift(timedelta(minutes=rng.randint(5, 90)))
            assert answer(who, last_mail(inbox, who, game), word.split()[-1]) == "accepted"
        games = {g.pk: g for g in (two, three)}
        for g in (two, three, spurned):
            g.refresh_from_db()
        assert two.status == three.status == Game.ACTIVE and spurned.status != Game.ACTIVE
        assert not spurned.to_act and not Outbox.objects.filter(game=spurned, kind__in=Outbox.TURN_MAIL).exists()

        users = {two.pk: {0: alice, 1: bob}, three.pk: {0: alice, 1: bob, 2: charlie}}
        answered = len(mails_to(inbox, alice))
        digests = 0
        while timezone.now() < MONDAY + timedelta(days=6) and digests < 3:
            clock.shift(timedelta(minutes=rng.randint(20, 180)))
            sweep()
            release_held()
            assert not robots(two, 0) and not robots(three, 0)  # nobody is played for before the clock
            if all(g.status != Game.ACTIVE for g in games.values()):
                break
            mails = mails_to(inbox, alice)
            # (an answer saying her turn came straight back takes a reply too: she waits for her turn emails)
            mail = next((m for m in reversed(mails[answered:])
                         if m.reply_to and m.extra_headers["Auto-Submitted"] == "auto-generated"), None)
            if mail is not None:  # alice answers the newest email she has not answered yet
                lines = {}
                for move in listed_moves(mail):
                    if move.startswith("#"):
                        pk, _, notation = move[1:].partition(" ")
                        lines.setdefault(int(pk), []).append(notation)
                if lines:  # a digest: one "#id move" line per game
                    assert mail.subject.startswith("Your turn in 2 games")
                    if not digests:
                        row = Outbox.objects.filter(user=alice, kind=Outbox.DIGEST).latest("pk")
                        seen = email(row)
                        for victim in (1, 2):  # bob's and charlie's hands, objectives, ballots
                            with monkeypatch.context() as m:
                                perturbed(m, three, lambda evs, st, v=victim: _perturb(evs, st, v))
                                assert email(row) == seen
                        with monkeypatch.context() as m:
                            perturbed(m, three, lambda evs, st: _perturb(evs, st, 0))
                            assert email(row) != seen  # alice's own hand is in it
                    body = "\n".join(f"#{pk} {rng.choice([n for n in ns if n != 'resign'])}" for pk, ns in lines.items())
                    before = {pk: games[pk].version for pk in lines}
                    assert answer(alice, mail, body) == "accepted"
                    for pk in lines:
                        assert by_email(games[pk], before[pk]).filter(seat=0).exists()
                    digests += 1
                else:
                    game = next(g for g in games.values() if f"#{g.pk}" in mail.subject)
                    game.refresh_from_db()
                    if 0 in game.to_act:
                        move = rng.choice([m for m in listed_moves(mail) if m != "resign"])
                        # her turn may have moved on while her next email waited for the hour: then
                        # she is told so and sent the turn as it is now, which she answers next
                        fresh = len(mails_to(inbox, alice))
                        outcome = answer(alice, mail, move)
                        assert outcome in ("accepted", "stale")
                        if outcome == "stale":
                            new = mails_to(inbox, alice)[fresh:]
                            assert any("the game has moved on" in m.body for m in new)
                            assert any(m.reply_to and f"#{game.pk}" in m.subject for m in new)
                answered = len(mails)
            for game in games.values():  # bob and charlie answer their turn emails at once
                for _ in range(10):
                    game.refresh_from_db()
                    others = [s for s in game.to_act if s != 0]
                    if game.status != Game.ACTIVE or not others:
                        break
                    seat = others[0]
                    mail = last_mail(inbox, users[game.pk][seat], game)
                    move = rng.choice([m for m in listed_moves(mail) if m != "resign"])
                    assert answer(users[game.pk][seat], mail, move) == "accepted"
        assert digests >= 2
