"""The clocks follow the games (games.events): each change sets the deadlines and the time the
game row shows, invitations lapse after a week, and bot moves a request left owed get a
deadline as the safety net of the worker's task."""

from __future__ import annotations

import logging
from datetime import timedelta

from django.db import transaction
from django.utils import timezone

from games import tasks
from kinplay.clocks import scheduling
from kinplay.clocks.models import Deadline

log = logging.getLogger("kinplay.clocks")

BOTS_GRACE_SECONDS = 60  # after this the deadline sweep plays owed bot moves the task did not
INVITATION_DAYS = 7


def games_dealing(sender, *, games, opened, **kwargs) -> list[Deadline]:
    """The first deadlines of games just dealt (``scheduling.opening`` sets each game's) and
    their invitations' (an invited seat unanswered after a week lapses), unsaved."""
    due = timezone.now() + timedelta(days=INVITATION_DAYS)
    return scheduling.opening(opened) + [
        Deadline(game=game, kind=Deadline.INVITATION, seat=s.index, due_at=due, version=0)
        for game in games for s in game.seat_list if s.invited]


def games_created(sender, *, opened, **kwargs) -> None:
    for game, _, _, owe in opened:
        if owe:
            leave_bots_to_worker(game)


def game_changing(sender, *, game, state, entries, acted, had_timers, bots_owe, **kwargs) -> None:
    game.deadline = scheduling.reschedule(game, state, entries, acted, had_timers)
    if bots_owe:
        leave_bots_to_worker(game)


def invitation_answered(sender, *, game, seat, outcome, **kwargs) -> None:
    Deadline.objects.filter(game=game, kind=Deadline.INVITATION, seat=seat.index, done_at__isnull=True).update(
        done_at=timezone.now(), outcome=outcome)


def game_called_off(sender, *, game, **kwargs) -> None:
    """Its invitations need no answer any more, nor (a started game a tournament re-paired) its moves."""
    Deadline.objects.filter(game=game, done_at__isnull=True).update(
        done_at=timezone.now(), outcome="cancelled")


def leave_bots_to_worker(game) -> None:
    """The task plays the owed moves after commit; a deadline row is the safety net if the
    broker is down or the worker dies (the sweep calls play_bots when it falls due)."""
    Deadline.objects.create(game=game, kind=Deadline.BOTS, due_at=timezone.now() + timedelta(seconds=BOTS_GRACE_SECONDS),
                            version=game.version)

    def kick():
        try:
            tasks.play_bots.delay(game.pk)
        except Exception as exc:  # broker down: the deadline row is safe in the database
            log.warning("could not reach the broker (%s); the deadline sweep will play game %s's bots", exc, game.pk)

    transaction.on_commit(kick)
