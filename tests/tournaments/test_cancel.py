"""Cancelling a running tournament: its unfinished games go on as friendly games (unrated,
counted nowhere), their players are told; games already finished keep their ratings."""

from __future__ import annotations

import os
import threading
import time

import pytest
from django.core.management import call_command
from django.db import transaction
from django.test import Client
from django.urls import reverse

from games import services as games
from games.models import Game
from games.store import game_with_seats
from kinplay.ratings.models import RatingChange
from kinplay.tournaments import services
from kinplay.tournaments.models import Tournament, TournamentEvent
from tests.play import finish
from tests.threads import run_together


def _started(players, n, name="Winter Swiss"):
    ps = players(n)
    t = services.create(organiser=ps[0], name=name, kind="karenza", format="swiss", rounds=min(2, n - 1))  # no rematch
    for u in ps:
        services.join(t.pk, u)
    services.start(t.pk, ps[0])
    tables = services.load(Tournament.objects.get(pk=t.pk))["rounds"][0]["tables"]
    return t, ps, [tb["games"][0]["game"] for tb in tables if not tb["bye"]]


def test_it_lets_a_cancelled_tournaments_unfinished_games_go_on_unrated_and_tells_their_players(players, inbox, api):
    t, (alice, bob, charlie, p4), (first, second) = _started(players, 4)
    finish(Game.objects.get(pk=first))  # finished before the cancel: it keeps its ratings
    assert RatingChange.objects.filter(game_id=first).count() == 2
    services.cancel(t.pk, alice)
    assert Game.objects.get(pk=second).status == Game.ACTIVE and not Game.objects.get(pk=second).rated
    assert Game.objects.get(pk=first).rated
    finish(Game.objects.get(pk=second))  # finished afterwards: no rating moves, no standings
    assert not RatingChange.objects.filter(game_id=second).exists()
    assert list(TournamentEvent.objects.filter(tournament=t).values_list("type", flat=True).order_by("-seq")[:1]) == ["cancelled"]
    assert RatingChange.objects.filter(game_id=first).count() == 2
    mail = {m.to[0]: m for m in inbox() if m.subject == "Winter Swiss was cancelled"}
    assert len(mail) == 4
    players_of_second = Game.objects.get(pk=second).seats.values_list("user__username", flat=True)
    for name in players_of_second:
        body = mail[f"{name}@example.com"].body
        assert "goes on as a friendly game" in body and "no longer rated" in body and f"/games/{second}/" in body
    for name in {"alice", "bob", "charlie", "p4"} - set(players_of_second):
        assert "friendly" not in mail[f"{name}@example.com"].body
    # The tournament's page says so too, and a rebuild from the stream says the same.
    live = api(bob).get(f"/api/tournaments/{t.pk}/").json()
    assert live["status"] == "cancelled" and live["rounds"][0]["status"] == "cancelled"
    results = {tb["game"]: tb["result"] for tb in live["rounds"][0]["tables"]}
    assert results[second] == "not counted: goes on as a friendly game" and results[first] not in (None, results[second])
    client = Client()
    client.force_login(bob)
    assert "not counted: goes on as a friendly game" in client.get(f"/tournaments/{t.pk}/").content.decode()
    Tournament.objects.filter(pk=t.pk).update(state={}, state_version=0, status="open")
    call_command("rebuild_projections", stdout=open(os.devnull, "w"))
    assert api(bob).get(f"/api/tournaments/{t.pk}/").json() == live


def test_it_says_on_the_lobby_card_that_a_cancelled_tournaments_game_goes_on_unrated(players):
    t, ps, (first, second) = _started(players, 4, name="Autumn Swiss")
    client = Client()
    client.force_login(Game.objects.get(pk=second).seats.first().user)
    before = client.get(reverse("lobby")).content.decode()
    assert "Autumn Swiss" in before and "goes on unrated" not in before
    services.cancel(t.pk, ps[0])
    assert "Autumn Swiss (cancelled: this game goes on unrated)" in client.get(reverse("lobby")).content.decode()


@pytest.mark.parametrize("attempt", range(4))
def test_it_cancels_once_and_rates_a_game_finishing_at_that_moment_only_if_it_counted(purgeable_events, players, attempt):
    # Four players, two rounds: the game ending first cannot end the tournament (the round's
    # other game is still on), so a cancel after it must go through too.
    t, (alice, *_), (gid, _other) = _started(players, 4, name=f"Race {attempt}")
    loser = Game.objects.get(pk=gid).seat_list[1].user
    works = [lambda: services.cancel(t.pk, alice), lambda: services.cancel(t.pk, alice), lambda: games.resign(gid, user=loser)]
    results = run_together(len(works), lambda i: works[i]())
    cancels = results[:2]
    assert sum(isinstance(r, Tournament) for r in cancels) == 1, [getattr(r, "trace", r) for r in results]
    assert any(isinstance(r, services.TournamentError) and "already cancelled" in str(r) for r in cancels)
    assert not isinstance(results[2], BaseException), results[2].trace
    events = list(TournamentEvent.objects.filter(tournament=t).order_by("seq").values_list("type", "data"))
    assert [ty for ty, _ in events].count("cancelled") == 1
    counted = "game_finished" in [ty for ty, _ in events]
    game = Game.objects.get(pk=gid)
    assert game.status == Game.FINISHED
    # Either the game ended first: it counted for the tournament and for the ratings; or the
    # cancel came first: a friendly game, in no standings and no rating.
    assert RatingChange.objects.filter(game_id=gid).exists() == counted == game.rated
    assert (gid in events[-1][1].get("friendly", [])) == (not counted)


@pytest.mark.postgresql
def test_it_cancels_a_tournament_while_its_round_is_being_adjudicated(purgeable_events, players):
    """The round's adjudication locks the tournament, then its games; a cancel locks the games,
    then the tournament. PostgreSQL breaks that deadlock by aborting the cancel (it waited first):
    the organiser must not get an error for it, the cancel goes through once the other is done."""
    t, (alice, bob), (gid,) = _started(players, 2, name="Deadlock")
    holds_tournament = threading.Event()

    def adjudication():
        with transaction.atomic():
            Tournament.objects.select_for_update().get(pk=t.pk)  # as advance() starts
            holds_tournament.set()
            time.sleep(0.5)  # the cancel now holds the game and waits for the tournament
            Game.objects.select_for_update().get(pk=gid)  # as its resignation's move does
        return "adjudicated"

    def cancel():
        holds_tournament.wait(timeout=30)
        return services.cancel(t.pk, alice)

    adjudicated, cancelled = run_together(2, lambda i: (adjudication, cancel)[i]())
    assert adjudicated == "adjudicated", getattr(adjudicated, "trace", adjudicated)
    assert isinstance(cancelled, Tournament), getattr(cancelled, "trace", cancelled)
    assert Tournament.objects.get(pk=t.pk).status == Tournament.CANCELLED


def test_it_pauses_the_clock_of_a_player_on_vacation_once_their_tournament_game_is_friendly(players):
    from kinplay.clocks import vacation
    from kinplay.clocks.models import Deadline

    t, (alice, bob), (gid,) = _started(players, 2, name="Holiday Swiss")
    game = game_with_seats(gid)
    away = game.seat_list[game.to_act[0]]
    services.cancel(t.pk, alice)
    vacation.start(away.user)
    held = Deadline.objects.filter(game_id=gid, seat=away.index, kind=Deadline.MOVE, done_at__isnull=True)
    assert held.exists() and all(d.paused_left is not None for d in held)
    assert Game.objects.get(pk=gid).deadline is None


def test_it_stops_the_clock_of_a_player_already_on_vacation_when_the_tournament_is_cancelled(players, time_machine):
    """Away before the cancel: their tournament clock ran (others wait on its schedule); once the
    game goes on as a friendly game it stops with the time it had left, and runs again with that
    time when they come back, as in any friendly game."""
    from datetime import timedelta

    from django.utils import timezone

    from games.models import Event
    from kinplay.clocks import vacation
    from kinplay.clocks.models import Deadline
    from kinplay.clocks.services import sweep

    time_machine.move_to(timezone.now(), tick=False)
    t, (alice, bob), (gid,) = _started(players, 2, name="Holiday Swiss")
    game = game_with_seats(gid)
    away = game.seat_list[game.to_act[0]]
    per_move = timedelta(seconds=t.state["config"]["clock"]["per_move"])
    vacation.start(away.user)
    time_machine.shift(timedelta(hours=10))  # a tournament clock runs while its player is away
    services.cancel(t.pk, alice)
    left = per_move - timedelta(hours=10)
    clock = Deadline.objects.get(game_id=gid, seat=away.index, kind=Deadline.MOVE, done_at__isnull=True)
    assert clock.paused_left == left.total_seconds()
    assert Game.objects.get(pk=gid).deadline is None
    client = Client()
    client.force_login(game.seat_list[1 - away.index].user)
    assert "Clock paused" in client.get(reverse("game", args=[gid])).content.decode()

    def timed_out():
        return Event.objects.filter(game_id=gid, seat=away.index, command__by__startswith="timeout").exists()

    time_machine.shift(per_move * 2)  # well past where the tournament clock would have run out
    sweep()
    assert not timed_out()
    vacation.end(away.user)
    assert Game.objects.get(pk=gid).deadline == timezone.now() + left
    time_machine.shift(left - timedelta(minutes=1))
    sweep()
    assert not timed_out()
    time_machine.shift(timedelta(minutes=2))
    sweep()
    assert timed_out()
