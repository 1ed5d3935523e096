"""Sweeps and relays that really run at the same time (threads, each with its own database
connection; on PostgreSQL they truly overlap). Time is frozen past the deadlines."""

from datetime import timedelta

from django.utils import timezone

from games import services
from games.models import Event, Game
from kinplay.clocks.models import Deadline
from kinplay.clocks.services import sweep
from kinplay.notifications.models import Outbox
from kinplay.notifications.services import relay
from tests.play import accepted
from tests.threads import run_together, unexpected

SWEEPERS = 4


def test_it_applies_each_seats_clock_once_when_sweeps_overlap(purgeable_events, alice, bob, charlie, time_machine):
    time_machine.move_to(timezone.now(), tick=False)
    games = [accepted(services.create_game(creator=alice, kind="knonsters", per_move=60,
                                           seats=[{"user": "alice"}, {"user": "bob"}, {"user": "charlie"}]))
             for _ in range(3)]
    time_machine.shift(timedelta(seconds=61))
    results = run_together(SWEEPERS, lambda i: sweep())
    assert not unexpected(results)
    for game in games:
        game.refresh_from_db()
        by_seat = {}
        for e in Event.objects.filter(game=game, command__isnull=False):
            if e.command.get("by", "").startswith("timeout"):
                by_seat[e.seat] = by_seat.get(e.seat, 0) + 1
        assert by_seat == {0: 1, 1: 1, 2: 1}, f"game {game.pk}: {by_seat}"
        assert not Deadline.objects.filter(game=game, done_at__isnull=False, outcome__in=["claimed", "error", ""]).exists()
        if game.status == Game.ACTIVE:  # the game goes on: every seat to act has a running clock
            running = set(Deadline.objects.filter(game=game, kind=Deadline.MOVE, done_at__isnull=True).values_list("seat", flat=True))
            assert running >= set(game.to_act)


def test_it_sends_each_email_once_when_relays_overlap(purgeable_events, alice, bob, mailoutbox):
    for _ in range(3):
        accepted(services.create_game(creator=alice, kind="knonsters", per_move=None,
                                      seats=[{"user": "alice"}, {"user": "bob"}]))
    Outbox.objects.update(sent_at=None, claimed_at=None, attempts=0)  # as if the kicks after commit never reached a worker
    mailoutbox.clear()
    rows = Outbox.objects.count()
    results = run_together(SWEEPERS, lambda i: relay())
    assert not unexpected(results)
    assert sum(results) == rows == len(mailoutbox)
    assert Outbox.objects.filter(sent_at__isnull=True).count() == 0
