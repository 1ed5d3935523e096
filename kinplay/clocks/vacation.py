"""Vacation (like OGS's vacation days): a player's switch that pauses their move clocks in
friendly games, up to a yearly allowance (settings.VACATION_DAYS_PER_YEAR).

While a player is away, each of their pending move deadlines (and its reminder) is held: it
keeps the seconds it had left in ``paused_left`` and its ``due_at`` moves to PAUSED, so the
sweep never finds it; a deadline set while they are away is held from the start. When they
come back (or the allowance runs out, checked by beat: ``sweep``) each held deadline falls
due again after the time it had left.

A reaction window's clocks are never held (``Deadline.WINDOW``): its answers are sealed, and the
others' timeouts ("bob did not answer in time: nothing") would be in the log while the absent
player's window was still open, telling them how the others answered. The window closes for
everyone at once, the absent player's answer being the window's default, as for anyone who
does not answer; their turns wait for them. Days are counted in the calendar year (UTC) in which
a vacation ends; a vacation never lasts longer than what is left of the year's allowance.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from games.models import Game, Seat
from kinplay.accounts.models import Profile
from kinplay.clocks.models import Deadline
from kinplay.notifications.consent import vacation_over
from kinplay.tournaments.models import Tournament, TournamentGame

PAUSED = datetime(9999, 1, 1, tzinfo=UTC)  # never due: the sweep looks for due_at <= now
HELD_KINDS = (Deadline.MOVE, Deadline.REMINDER)


class VacationRefused(Exception):
    """A switch the allowance or the current state does not allow; the text says why."""


def allowance() -> timedelta:
    return timedelta(days=settings.VACATION_DAYS_PER_YEAR)


def used(profile, now=None) -> timedelta:
    """Vacation used in ``now``'s year, the current vacation included."""
    now = now or timezone.now()
    closed = timedelta(seconds=profile.vacation_seconds) if profile.vacation_year == now.year else timedelta()
    running = now - profile.vacation_since if profile.vacation_since else timedelta()
    return min(allowance(), closed + running)


def left(profile, now=None) -> timedelta:
    return max(timedelta(), allowance() - used(profile, now))


def friendly(game) -> bool:
    """Vacation pauses clocks only in friendly games: those outside a tournament or league,
    whose schedule others wait on (a cancelled tournament's games go on as friendly games).
    Rated games count as friendly: a rating has no calendar, and a player's rating should not
    cost them their holiday (as on OGS)."""
    if getattr(game, "tournament_id", None) is not None:
        return False
    return not TournamentGame.objects.filter(game_id=game.pk).exclude(tournament__status=Tournament.CANCELLED).exists()


# ---------------------------------------------------------------- the switch


def start(user, now=None) -> Profile:
    now = now or timezone.now()
    with transaction.atomic():
        profile = _locked(user)
        if profile.on_vacation:
            raise VacationRefused("You are already on vacation.")
        remaining = left(profile, now)
        if remaining < timedelta(hours=1):
            raise VacationRefused(f"You have used your {settings.VACATION_DAYS_PER_YEAR} vacation days of {now.year}.")
        profile.vacation_since, profile.vacation_ends_at = now, now + remaining
        profile.save(update_fields=["vacation_since", "vacation_ends_at"])
        for game_id, seat in _friendly_seats(user):
            _hold(Deadline.objects.filter(game_id=game_id, seat=seat), now)
            _show_deadline(game_id)
    return profile


def became_friendly(game_ids, now=None):
    """Games that go on as friendly games from now (a cancelled tournament's): the clocks of
    their players who are away stop now with the time they have left, as ``start`` stops them
    in any friendly game, and ``end`` runs them again. Call it once the games are friendly."""
    now = now or timezone.now()
    seats = Seat.objects.filter(game_id__in=list(game_ids), game__status=Game.ACTIVE,
                                user__profile__vacation_since__isnull=False).values_list("game_id", "index")
    for game_id, seat in seats:
        _hold(Deadline.objects.filter(game_id=game_id, seat=seat), now)
        _show_deadline(game_id)


def end(user, now=None, *, by_itself=False) -> Profile:
    """Back from vacation: every held clock runs again with the time it had left."""
    now = now or timezone.now()
    with transaction.atomic():
        profile = _locked(user)
        if not profile.on_vacation:
            raise VacationRefused("You are not on vacation.")
        spent = min(now, profile.vacation_ends_at or now) - profile.vacation_since
        if profile.vacation_year != now.year:
            profile.vacation_year, profile.vacation_seconds = now.year, 0
        profile.vacation_seconds += max(0, int(spent.total_seconds()))
        profile.vacation_since = profile.vacation_ends_at = None
        profile.save(update_fields=["vacation_since", "vacation_ends_at", "vacation_year", "vacation_seconds"])
        for game_id, seat in _friendly_seats(user):
            rows = list(Deadline.objects.filter(game_id=game_id, seat=seat, done_at__isnull=True, paused_left__isnull=False))
            for d in rows:
                assert d.paused_left is not None  # the query took only paused deadlines
                d.due_at, d.paused_left = now + timedelta(seconds=d.paused_left), None
            Deadline.objects.bulk_update(rows, ["due_at", "paused_left"])
            _show_deadline(game_id)
        if by_itself:
            vacation_over(user, f"You have used your {settings.VACATION_DAYS_PER_YEAR} vacation days of {now.year}, "
                                "so your vacation ended by itself.")
    return profile


def sweep(now=None) -> int:
    """End every vacation whose allowance has run out (beat calls this); returns how many."""
    now = now or timezone.now()
    ended = 0
    for profile in Profile.objects.filter(vacation_since__isnull=False, vacation_ends_at__lte=now).select_related("user"):
        try:
            end(profile.user, now, by_itself=True)
        except VacationRefused:
            continue  # came back by themselves meanwhile
        ended += 1
    return ended


def hold_new_many(games_rows, seated: list[dict], away: set, now):
    """Deadlines about to be set (unsaved), ``(game, rows)`` each, for seats whose players are
    ``away`` start held; ``seated``: each game's {seat: user id} (kinplay.clocks.scheduling.settle
    reads the players' profiles once for this and their quiet hours)."""
    if not away:
        return
    for (game, rows), users in zip(games_rows, seated):
        held = [d for d in rows if _holdable(d) and users.get(d.seat) in away]
        if held and friendly(game):  # friendly() may query: only when someone is away
            for d in held:
                d.paused_left, d.due_at = max(0, int((d.due_at - now).total_seconds())), PAUSED


def _holdable(d) -> bool:
    return d.kind in HELD_KINDS and d.key != Deadline.WINDOW


# ---------------------------------------------------------------- reads


def summary(user, now=None) -> dict:
    """The switch and the allowance as the settings page and the API show them."""
    now = now or timezone.now()
    profile = Profile.of(user)
    return {"on": profile.on_vacation, "since": profile.vacation_since, "until": profile.vacation_ends_at,
            "allowance_days": settings.VACATION_DAYS_PER_YEAR,
            "used_days": round(used(profile, now).total_seconds() / 86400, 1),
            "left_days": round(left(profile, now).total_seconds() / 86400, 1)}


@dataclass
class Away:
    name: str
    until: datetime


def away_at(game) -> list[Away]:
    """The players of a friendly game who are on vacation, with when it ends at the latest."""
    if not friendly(game) or game.status != "active":
        return []
    users = {s.user_id: s.name for s in game.seat_list if s.user_id}
    profiles = Profile.objects.filter(user_id__in=users, vacation_since__isnull=False).order_by("user_id")
    out = []
    for p in profiles:
        assert p.vacation_ends_at is not None  # start() sets it with vacation_since, end() clears both
        out.append(Away(users[p.user_id], p.vacation_ends_at))
    return out


# ---------------------------------------------------------------- helpers


def _locked(user) -> Profile:
    Profile.of(user)
    return Profile.objects.select_for_update().get(user=user)


def _friendly_seats(user):
    seats = Seat.objects.filter(user=user, game__status=Game.ACTIVE).select_related("game")
    return [(s.game_id, s.index) for s in seats if friendly(s.game)]


def _hold(deadlines, now):
    """Hold the running clocks (and reminders) among ``deadlines``: a reaction window's never."""
    rows = list(deadlines.filter(kind__in=HELD_KINDS, done_at__isnull=True, paused_left__isnull=True)
                .exclude(key=Deadline.WINDOW))
    for d in rows:
        d.paused_left, d.due_at = max(0, int((d.due_at - now).total_seconds())), PAUSED
    Deadline.objects.bulk_update(rows, ["paused_left", "due_at"])


def _show_deadline(game_id):
    """The game row shows the earliest clock that runs (a held one shows nowhere)."""
    due = (Deadline.objects.filter(game_id=game_id, kind=Deadline.MOVE, done_at__isnull=True, paused_left__isnull=True)
           .order_by("due_at").values_list("due_at", flat=True).first())
    Game.objects.filter(pk=game_id).update(deadline=due)  # stamps updated_at (GameQuerySet.update)
