"""Digests (at most one turn email per chosen interval) and quiet hours (mail held, sent at the end)."""

import re
from datetime import UTC, datetime, time, timedelta

import pytest
import time_machine

from games import services
from games.models import Event
from games.store import game_with_seats
from kinplay.accounts.models import Profile
from kinplay.notifications.held import release_held
from kinplay.notifications.models import Outbox
from tests.play import accepted, finish, step

pytestmark = pytest.mark.django_db

MORNING = datetime(2026, 11, 24, 9, 0, tzinfo=UTC)
DAY = 24 * 3600


def settings_of(user, **fields):
    p = Profile.of(user)
    for k, v in fields.items():
        setattr(p, k, v)
    p.save()


def game_waiting_for_bob(alice, per_move=None):
    """A game where it is bob's turn (bob then has a turn email in the outbox)."""
    game = accepted(services.create_game(creator=alice, kind="knonsters", seats=[{"user": "alice"}, {"user": "bob"}],
                                         per_move=per_move))
    for _ in range(50):
        game.refresh_from_db()
        if game.to_act == [1]:
            return game
        step(game, seat=game.to_act[0])
    raise AssertionError("never bob's turn alone")


def to(inbox, who):
    """What ``who`` was sent, invitations to the games aside."""
    return [m for m in inbox() if m.to == [f"{who}@example.com"] and "invites you" not in m.subject]


def test_it_sends_at_most_one_turn_email_per_hour_listing_every_waiting_game(alice, bob, inbox):
    settings_of(bob, email_every=Profile.HOURLY)
    with time_machine.travel(MORNING, tick=False) as clock:
        first = game_waiting_for_bob(alice)
        assert len(to(inbox, "bob")) == 1  # the first turn email of the hour goes at once
        clock.shift(timedelta(minutes=10))
        second = game_waiting_for_bob(alice)
        third = game_waiting_for_bob(alice)
        release_held()
        assert len(to(inbox, "bob")) == 1  # held: the hour is not over
        clock.shift(timedelta(minutes=45))
        release_held()
        assert len(to(inbox, "bob")) == 1
        clock.shift(timedelta(minutes=6))  # 61 minutes after the first email
        release_held()
        release_held()  # a second sweep in the same minute sends nothing more
        mails = to(inbox, "bob")
        assert len(mails) == 2
        digest = mails[-1]
        assert digest.subject.startswith("Your turn in 3 games")
        for game in (first, second, third):
            game.refresh_from_db()
            assert f"#{game.pk} Knonsters" in digest.body
        # each game's events since bob last looked: the first game's deal was in his first email
        sections = {part.split()[0]: part for part in digest.body.split("=" * 64)[1:]}
        assert "The cards are dealt" in sections[f"#{second.pk}"]
        assert "alice has chosen" in sections[f"#{first.pk}"] and "The cards are dealt" not in sections[f"#{first.pk}"]
        row = Outbox.objects.get(kind=Outbox.DIGEST)
        assert row.game is None and row.games == {str(g.pk): g.version for g in (first, second, third)}
        # the moves are written as reply lines naming their game
        from games import selectors

        for game in (first, second, third):
            for a in selectors.game_for(game, bob)["legal_actions"]:
                assert f"  #{game.pk} {a['notation']}  —" in digest.body
        # the next turn inside the new hour waits again
        fourth = game_waiting_for_bob(alice)
        release_held()
        assert len(to(inbox, "bob")) == 2
        assert Outbox.held().filter(user=bob, game=fourth).exists()


def test_it_sends_the_single_waiting_game_as_a_full_turn_email_when_the_interval_is_over(alice, bob, inbox):
    settings_of(bob, email_every=Profile.HOURLY)
    with time_machine.travel(MORNING, tick=False) as clock:
        first = game_waiting_for_bob(alice)
        assert len(to(inbox, "bob")) == 1
        clock.shift(timedelta(minutes=5))
        only = game_waiting_for_bob(alice)
        finish(first)  # bob played the first game out on the page: only one game waits for him now
        assert [m.subject for m in to(inbox, "bob")][1:] == [f"Knonsters #{first.pk} is over"]
        clock.shift(timedelta(minutes=56))
        inbox().clear()
        release_held()
        mails = to(inbox, "bob")
        assert [m.subject for m in mails] == [f"Your turn in Knonsters #{only.pk}"]
        assert "Your hand" in mails[0].body


def test_it_holds_mail_in_quiet_hours_and_sends_it_when_they_end(alice, bob, inbox):
    settings_of(bob, quiet_hours=True, time_zone="Europe/Berlin", quiet_from=time(23, 0), quiet_to=time(7, 0))
    night = datetime(2026, 11, 24, 22, 30, tzinfo=UTC)  # 23:30 in Berlin
    with time_machine.travel(night, tick=False) as clock:
        a = game_waiting_for_bob(alice)
        b = game_waiting_for_bob(alice)
        assert to(inbox, "bob") == []
        clock.move_to(datetime(2026, 11, 25, 5, 59, tzinfo=UTC))  # 06:59 in Berlin
        release_held()
        assert to(inbox, "bob") == []
        clock.move_to(datetime(2026, 11, 25, 6, 0, 30, tzinfo=UTC))  # 07:00 in Berlin
        release_held()
        mails = to(inbox, "bob")
        assert len(mails) == 1 and mails[0].subject.startswith("Your turn in 2 games")
        assert f"#{a.pk} Knonsters" in mails[0].body and f"#{b.pk} Knonsters" in mails[0].body


def test_it_holds_a_game_over_email_in_quiet_hours_and_sends_it_as_it_is(alice, bob, inbox):
    settings_of(bob, quiet_hours=True, time_zone="UTC", quiet_from=time(22, 0), quiet_to=time(6, 0))
    with time_machine.travel(datetime(2026, 11, 24, 23, 0, tzinfo=UTC), tick=False) as clock:
        game = accepted(services.create_game(creator=alice, kind="knonsters", seats=[{"user": "alice"}, {"user": "bob"}], per_move=None))
        finish(game)
        assert [m for m in to(inbox, "bob")] == []
        assert any("is over" in m.subject for m in to(inbox, "alice"))
        clock.move_to(datetime(2026, 11, 25, 6, 1, tzinfo=UTC))
        release_held()
        subjects = [m.subject for m in to(inbox, "bob")]
        assert subjects == [f"Knonsters #{game.pk} is over"]  # nothing waits any more: no turn email


def test_it_drops_held_turn_mail_when_no_game_waits_any_more(alice, bob, inbox):
    settings_of(bob, quiet_hours=True, time_zone="UTC", quiet_from=time(22, 0), quiet_to=time(6, 0))
    with time_machine.travel(datetime(2026, 11, 24, 23, 0, tzinfo=UTC), tick=False) as clock:
        game = game_waiting_for_bob(alice)
        assert to(inbox, "bob") == [] and Outbox.held().filter(user=bob).exists()
        while 1 in game.to_act:  # bob could not sleep and played on the page
            step(game, seat=1)
            game.refresh_from_db()
        clock.move_to(datetime(2026, 11, 25, 6, 1, tzinfo=UTC))
        release_held()
        assert [m for m in to(inbox, "bob") if m.subject.startswith("Your turn")] == []
        assert not Outbox.held().filter(user=bob).exists()


def test_it_never_holds_the_answer_to_a_move_by_email(alice, bob, inbox):
    from kinplay.notifications.tokens import reply_address
    from tests.mail.mails import reply

    settings_of(bob, quiet_hours=True, time_zone="UTC", quiet_from=time(0, 0), quiet_to=time(23, 59))
    game = accepted(services.create_game(creator=alice, kind="knonsters", seats=[{"user": "alice"}, {"user": "bob"}], per_move=None))
    held = Outbox.objects.filter(user=bob, game=game).latest("pk")  # his turn email, held for the morning
    reply(to=reply_address(held), sender="bob@example.com", body="no such move")
    assert [m.subject for m in to(inbox, "bob")] == [f"Move not accepted in Knonsters #{game.pk}"]


@pytest.mark.parametrize("quiet, local, expected", [
    ((time(23, 0), time(7, 0)), time(23, 0), True),
    ((time(23, 0), time(7, 0)), time(6, 59), True),
    ((time(23, 0), time(7, 0)), time(7, 0), False),
    ((time(23, 0), time(7, 0)), time(12, 0), False),
    ((time(13, 0), time(15, 0)), time(14, 0), True),  # a nap: inside one day
    ((time(13, 0), time(15, 0)), time(16, 0), False),
])
def test_it_knows_when_quiet_hours_are_in_the_players_time_zone(quiet, local, expected):
    from zoneinfo import ZoneInfo

    p = Profile(quiet_hours=True, time_zone="Asia/Tokyo", quiet_from=quiet[0], quiet_to=quiet[1])
    now = datetime(2026, 11, 24, local.hour, local.minute, tzinfo=ZoneInfo("Asia/Tokyo"))
    assert p.is_quiet(now.astimezone(UTC)) is expected
    p.quiet_hours = False
    assert p.is_quiet(now) is False


@pytest.mark.parametrize("quiet, local, start, end", [
    ((time(23, 0), time(7, 0)), (24, 23, 30), (24, 23, 0), (25, 7, 0)),
    ((time(23, 0), time(7, 0)), (25, 2, 0), (24, 23, 0), (25, 7, 0)),  # after midnight: the night began the day before
    ((time(13, 0), time(15, 0)), (24, 14, 0), (24, 13, 0), (24, 15, 0)),
])
def test_it_knows_when_the_quiet_hours_a_time_falls_in_began_and_end(quiet, local, start, end):
    from zoneinfo import ZoneInfo

    tokyo = ZoneInfo("Asia/Tokyo")
    p = Profile(quiet_hours=True, time_zone="Asia/Tokyo", quiet_from=quiet[0], quiet_to=quiet[1])
    span = p.quiet_span(datetime(2026, 11, local[0], local[1], local[2], tzinfo=tokyo).astimezone(UTC))
    assert span == (datetime(2026, 11, *start, tzinfo=tokyo), datetime(2026, 11, *end, tzinfo=tokyo))
    assert p.quiet_span(datetime(2026, 11, 24, 12, 0, tzinfo=tokyo)) is None


def test_it_keeps_a_digest_of_many_games_under_gmails_clipping_size(alice, bob):
    from kinplay.notifications.services import DIGEST_BOARDS, compose

    games = [accepted(services.create_game(creator=alice, kind="project_kin", seats=[{"user": "alice"}, {"user": "bob"}],
                                           per_move=None)) for _ in range(6)]
    row = Outbox.objects.create(kind=Outbox.DIGEST, user=alice, version=0, games={str(g.pk): g.version for g in games})
    html = compose(row).alternatives[0][0]
    assert len(html.encode()) < 102_000
    assert html.count("<svg") == DIGEST_BOARDS and html.count("<pre") == len(games) - DIGEST_BOARDS


def test_it_asks_for_table_talk_in_a_digest_reply_with_the_games_number(hourly_digest):
    # A digest reply's "say:" line must name its game ("#12 say: …"); a bare one is not posted.
    digest, second, third = hourly_digest
    assert digest.subject.startswith("Your turn in 3 games") and f"#{third.pk}" in digest.body
    assert "alice: your move, bob" in digest.body
    assert f'starting with "#{second.pk} say:"' in digest.body and 'starting with "say:"' not in digest.body
    assert f"<code>#{second.pk} say:</code>" in digest.alternatives[0][0]


# ---------------------------------------------------------------- digests and deadlines


def reminder_due(game, seat):
    from kinplay.clocks.models import Deadline

    return Deadline.objects.get(game=game, seat=seat, kind=Deadline.REMINDER, done_at__isnull=True).due_at


def test_it_sends_a_daily_digest_players_reminder_before_the_move_is_due(alice, bob, inbox):
    from kinplay.clocks.services import sweep

    settings_of(bob, email_every=Profile.DAILY)
    with time_machine.travel(MORNING, tick=False) as clock:
        game = game_waiting_for_bob(alice, per_move=DAY)
        assert [m.subject for m in to(inbox, "bob")][-1].startswith(f"Your turn in Knonsters #{game.pk}")  # at once
        clock.move_to(reminder_due(game, 1) + timedelta(seconds=1))  # 6 hours before the move is due
        sweep()
        release_held()
        mails = to(inbox, "bob")
        assert mails[-1].subject == f"Reminder: your move in Knonsters #{game.pk} is due soon", [m.subject for m in mails]
        assert mails[-1].reply_to  # he can still answer it with his move


def test_it_sends_a_reminder_held_by_quiet_hours_when_they_end_whatever_the_digest(alice, bob, inbox):
    from kinplay.clocks.services import sweep

    settings_of(bob, email_every=Profile.DAILY, quiet_hours=True, time_zone="UTC", quiet_from=time(22, 0),
                quiet_to=time(7, 0))
    with time_machine.travel(MORNING, tick=False) as clock:
        game = game_waiting_for_bob(alice, per_move=DAY + 4 * 3600)  # due at 13:00 tomorrow, reminded at 6:00
        assert len(to(inbox, "bob")) == 1
        clock.move_to(reminder_due(game, 1) + timedelta(seconds=1))
        sweep()
        assert len(to(inbox, "bob")) == 1  # quiet hours: not at 6 in the morning
        clock.move_to(datetime(2026, 11, 25, 7, 1, tzinfo=UTC))  # still within a day of his last email
        release_held()
        assert to(inbox, "bob")[-1].subject == f"Reminder: your move in Knonsters #{game.pk} is due soon"


@pytest.mark.usefixtures("tiny_by_mail")
@pytest.mark.parametrize("per_move, held", [(None, True), (3 * DAY, True), (12 * 3600, False)])
def test_it_holds_a_turn_that_comes_straight_back_for_the_digest_unless_the_move_is_due_before_it(
        alice, inbox, monkeypatch, per_move, held):
    from tests.mail.mails import reply
    from tests.web import tinygame

    settings_of(alice, email_every=Profile.DAILY)
    monkeypatch.setattr(tinygame, "setup", lambda n, options, rng: [tinygame.event("dealt", hands=[[1, 2], [4, 5]])])
    with time_machine.travel(MORNING, tick=False) as clock:
        game = services.create_game(creator=alice, kind="tiny", seats=[{"user": "alice"}, {"bot": "heuristic"}],
                                    per_move=per_move)
        [mail] = to(inbox, "alice")
        clock.shift(timedelta(hours=1))
        assert reply(to=mail.reply_to[0], sender="alice@example.com", body="play 1") == "accepted"
        game.refresh_from_db()
        assert game.to_act == [0]  # the bot answered: her turn again
        subjects = [m.subject for m in to(inbox, "alice")][1:]
        assert f"Move accepted in Tiny #{game.pk}" in subjects
        assert any(s.startswith(f"Your turn in Tiny #{game.pk}") for s in subjects) is not held
        if held:  # her daily email brings it
            clock.move_to(MORNING + timedelta(days=1, minutes=1))
            release_held()
            assert to(inbox, "alice")[-1].subject.startswith(f"Your turn in Tiny #{game.pk}")


def test_it_does_not_count_a_turn_email_that_was_never_sent_against_the_digest_interval(alice, bob, inbox):
    settings_of(bob, email_every=Profile.DAILY)
    with time_machine.travel(MORNING, tick=False) as clock:
        game = game_waiting_for_bob(alice)
        while 1 in game.to_act:  # bob played on the page before his turn email left (the mail server was down)
            step(game, seat=1)
            game.refresh_from_db()
        assert to(inbox, "bob") == []  # "it is your turn" would have been wrong: not sent
        clock.shift(timedelta(hours=1))
        later = game_waiting_for_bob(alice)
        assert [m.subject for m in to(inbox, "bob")] == [f"Your turn in Knonsters #{later.pk}"]  # his first of the day


@pytest.mark.usefixtures("tiny_by_mail")
@pytest.mark.parametrize("every", [Profile.DAILY, Profile.EACH_TURN])
def test_it_says_in_the_answer_when_the_turn_came_straight_back_and_takes_the_next_move_in_reply(
        alice, inbox, monkeypatch, every):
    # A digest player's turn email waits for the digest: the answer is what she has at hand.
    from tests.mail.mails import reply
    from tests.web import tinygame

    settings_of(alice, email_every=every)
    monkeypatch.setattr(tinygame, "setup", lambda n, options, rng: [tinygame.event("dealt", hands=[[1, 2], [4, 5]])])
    with time_machine.travel(MORNING, tick=False) as clock:
        game = services.create_game(creator=alice, kind="tiny", seats=[{"user": "alice"}, {"bot": "heuristic"}],
                                    per_move=None)
        [mail] = to(inbox, "alice")
        clock.shift(timedelta(hours=1))
        assert reply(to=mail.reply_to[0], sender="alice@example.com", body="play 1") == "accepted"
        if every == Profile.EACH_TURN:  # her turn email says it, and is what she replies to
            turn, answer = to(inbox, "alice")[1:]
            assert turn.subject.startswith(f"Your turn in Tiny #{game.pk}") and not answer.reply_to
            assert answer.subject == f"Move accepted in Tiny #{game.pk}" and "Your moves now" not in answer.body
            return
        [answer] = to(inbox, "alice")[1:]
        assert answer.subject == f"Move accepted in Tiny #{game.pk}"
        assert f"Now: Your turn in Tiny #{game.pk}." in answer.body
        assert "Your moves now (reply to this email with one):\n  play 2  —  Play the 2\n" in answer.body
        assert "play 2" in answer.alternatives[0][0]
        assert reply(to=answer.reply_to[0], sender="alice@example.com", body="play 2") == "accepted"
        assert Event.objects.filter(game=game, type="played", data__seat=0).count() == 2


def test_it_sends_a_reminder_before_quiet_hours_when_the_move_is_due_before_they_end(alice, bob, inbox):
    from kinplay.clocks.services import sweep

    settings_of(bob, quiet_hours=True, time_zone="UTC", quiet_from=time(22, 0), quiet_to=time(7, 0))
    evening = datetime(2026, 11, 24, 20, 0, tzinfo=UTC)
    with time_machine.travel(evening, tick=False) as clock:
        game = game_waiting_for_bob(alice, per_move=8 * 3600)  # due at 4:00, in his quiet hours
        assert reminder_due(game, 1) == datetime(2026, 11, 24, 21, 55, tzinfo=UTC)  # not at 2:00: before he sleeps
        clock.move_to(datetime(2026, 11, 24, 21, 55, 1, tzinfo=UTC))
        sweep()
        assert to(inbox, "bob")[-1].subject == f"Reminder: your move in Knonsters #{game.pk} is due soon"


def test_it_sends_a_reminder_at_once_in_quiet_hours_when_the_move_is_due_before_they_end(alice, bob, inbox):
    from kinplay.clocks.services import sweep

    settings_of(bob, quiet_hours=True, time_zone="UTC", quiet_from=time(22, 0), quiet_to=time(7, 0))
    with time_machine.travel(datetime(2026, 11, 24, 23, 30, tzinfo=UTC), tick=False) as clock:
        game = game_waiting_for_bob(alice, per_move=4 * 3600)  # due at 3:30: held, his turn email would come too late
        assert to(inbox, "bob") == []
        clock.shift(timedelta(seconds=1))
        sweep()
        assert [m.subject for m in to(inbox, "bob")] == [f"Reminder: your move in Knonsters #{game.pk} is due soon"]


def test_it_sends_a_digest_due_in_quiet_hours_when_they_end_not_the_evening_before(alice, bob, inbox):
    # Not at 22:59 either: that would be two emails in less than the interval he chose.
    settings_of(bob, email_every=Profile.EVERY_3_HOURS, quiet_hours=True, time_zone="UTC", quiet_from=time(23, 0),
                quiet_to=time(7, 0))
    with time_machine.travel(datetime(2026, 11, 24, 20, 30, tzinfo=UTC), tick=False) as clock:
        game_waiting_for_bob(alice)
        assert len(to(inbox, "bob")) == 1  # at once: his digest is due at 23:30, in his quiet hours
        clock.shift(timedelta(minutes=30))
        game_waiting_for_bob(alice)
        for at in ((22, 59), (23, 31)):
            clock.move_to(datetime(2026, 11, 24, *at, tzinfo=UTC))
            release_held()
            assert len(to(inbox, "bob")) == 1
        clock.move_to(datetime(2026, 11, 25, 7, 0, 30, tzinfo=UTC))
        release_held()
        assert to(inbox, "bob")[-1].subject.startswith("Your turn in 2 games")


def keen_players_games(alice, bob, charlie, n):
    """``n`` games waiting for alice's move, due one hour apart, listed least urgent first."""
    kinds = ["knonsters", "kenta", "karenza", "project_kin", "kinapa"]
    games = services.create_games([dict(creator=alice, kind=kinds[i % 5], options={}, per_move=(n - i) * 3600,
                                        accepted=True, seats=[{"user": "alice"}, {"user": ("bob", "charlie")[i % 2]}])
                                   for i in range(n)])
    return [game_with_seats(g.pk) for g in games]


def test_it_lists_a_digests_games_most_urgent_first_at_its_top(alice, bob, charlie):
    from kinplay.notifications.services import compose

    games = keen_players_games(alice, bob, charlie, 5)
    row = Outbox.objects.create(kind=Outbox.DIGEST, user=alice, version=0, games={str(g.pk): g.version for g in games})
    mail = compose(row)
    top = mail.body.split("=" * 64)[0]
    listed = re.findall(r"^  #(\d+) \w+ with (\w+): due .*, in (\d+) hours?$", top, re.MULTILINE)
    assert [int(pk) for pk, _, _ in listed] == [g.pk for g in reversed(games)]
    assert [(who, hours) for _, who, hours in listed] == [("bob", "1"), ("charlie", "2"), ("bob", "3"), ("charlie", "4"),
                                                          ("bob", "5")]
    assert all(mail.alternatives[0][0].count(f"/games/{g.pk}/") == 2 for g in games)  # the list links each game


def test_it_keeps_every_games_reply_lines_and_the_footer_in_a_digest_of_many_games(alice, bob, charlie, monkeypatch):
    from games import selectors
    from kinplay.notifications import services as mail_services

    monkeypatch.setattr(mail_services, "DIGEST_HTML_BUDGET", 40_000, raising=False)  # Gmail's clip, scaled to a dozen games
    games = keen_players_games(alice, bob, charlie, 12)
    row = Outbox.objects.create(kind=Outbox.DIGEST, user=alice, version=0, games={str(g.pk): g.version for g in games})
    mail = mail_services.compose(row)
    html = mail.alternatives[0][0]
    assert len(html.encode()) <= 40_000
    assert "/settings/" in html.split(f"#{games[0].pk} ")[-1]  # the footer, after the least urgent game
    for game in games:
        for a in selectors.game_for(game, alice)["legal_actions"][:3]:
            assert f"#{game.pk} {a['notation']}</code>" in html
    assert "The board is on the game's page" in html.split(f"#{games[0].pk} Knonsters")[-1]  # the least urgent
    assert "The board is on the game's page" not in html.split(f"#{games[-2].pk} ")[0]  # not the most urgent
    assert "Your hand (16 cards)" in mail.body.split(f"#{games[0].pk} Knonsters")[-1]  # the text part keeps it all
