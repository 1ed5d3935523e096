"""A game still running when its round's time is up: the player holding the turn forfeits, and
the game's log says so (page, API events, emails), as a platform fact replayed like any other."""

from __future__ import annotations

import os
from datetime import timedelta

import time_machine
from django.core.management import call_command
from django.test import Client
from django.utils import timezone

from games import selectors
from games.engine import replay
from games.models import Event, Game
from games.registry import get
from games.store import game_with_seats, load_state
from kinplay.tournaments import services
from kinplay.tournaments.models import Tournament


def test_it_logs_an_adjudicated_forfeit_as_the_rounds_time_running_out_not_a_resignation(players, api, inbox):
    alice, bob = players(2)
    t = services.create(organiser=alice, name="Quick Swiss", kind="karenza", format="swiss", rounds=1, round_days=1)
    services.join(t.pk, alice)
    services.join(t.pk, bob)
    services.start(t.pk, alice)
    gid = services.load(Tournament.objects.get(pk=t.pk))["rounds"][0]["tables"][0]["games"][0]["game"]
    game = game_with_seats(gid)
    stalled = game.seat_list[game.to_act[0]]
    other = next(s for s in game.seat_list if s.index != stalled.index)
    inbox().clear()
    with time_machine.travel(timezone.now() + timedelta(days=1, minutes=1)):
        services.sweep()
    game = game_with_seats(gid)
    assert game.status == Game.FINISHED
    said = f"{stalled.name} forfeited: the round's time ran out."
    for seat in (stalled.index, other.index, None):  # each player and a spectator
        texts = [line["text"] for line in selectors.log_lines(game, seat)]
        assert texts[-1] == said and f"{stalled.name} resigned." not in texts
    events = api(other.user).get(f"/api/games/{gid}/events/").json()
    forfeit = next(e for e in events if e["type"] == "forfeited")
    assert forfeit["data"] == {"seat": stalled.index, "reason": "round_time"}
    over = [m for m in inbox() if m.to == [f"{other.name}@example.com"] and "over" in m.subject.lower()]
    # The game's summary too, in the email, on its page and in the API: not "alice (Michi) resigned; bob (Eka) wins."
    summary = f"{said} {other.name} wins."
    assert over and summary in over[0].body and f"{stalled.name} resigned." not in over[0].body
    assert api(other.user).get(f"/api/games/{gid}/").json()["result"]["summary"] == summary
    client = Client()
    client.force_login(other.user)
    page = client.get(f"/games/{gid}/").content.decode()
    assert f"Game over.</strong> <span>{summary}".replace("'", "&#x27;") in page
    # The platform fact never reaches the rules: a replay is the live state, and every check holds.
    assert replay(get("karenza").rules, [r.as_rules_event(get("karenza").rules) for r in Event.objects.filter(game=game).order_by("seq")]) == load_state(game)
    call_command("verify_game", gid, stdout=open(os.devnull, "w"))
    before = Game.objects.filter(pk=gid).values("status", "result", "version", "to_act").get()
    call_command("rebuild_projections", stdout=open(os.devnull, "w"))
    assert Game.objects.filter(pk=gid).values("status", "result", "version", "to_act").get() == before
    assert [line["text"] for line in selectors.log_lines(game_with_seats(gid), None)][-1] == said


def test_it_forfeits_nobody_in_a_match_game_started_after_the_rounds_time_ran_out(players, time_machine):
    """A best-of-3 match's next game, started once the round's time was up (its first game was
    adjudicated), was adjudicated at the next sweep with its first player forfeiting at once: the
    match went to whoever sat second, not to anyone who held the turn too long. Nobody held the
    turn of that game past the limit: the bot plays it out for both."""
    time_machine.move_to(timezone.now(), tick=False)
    alice, bob = players(2)
    t = services.create(organiser=alice, name="Cup", kind="karenza", format="knockout", best_of=3, round_days=1)
    services.join(t.pk, alice)
    services.join(t.pk, bob)
    services.start(t.pk, alice)
    time_machine.shift(timedelta(days=1, minutes=1))
    services.sweep()  # the first game is adjudicated; the match's next game starts
    table = services.load(Tournament.objects.get(pk=t.pk))["rounds"][0]["tables"][0]
    assert len(table["games"]) >= 2
    for _ in range(5):
        services.sweep()
    later = [g["game"] for g in services.load(Tournament.objects.get(pk=t.pk))["rounds"][0]["tables"][0]["games"][1:]]
    forfeits = Event.objects.filter(game_id__in=later, type="forfeited")
    assert not forfeits.exists(), [(e.game_id, e.data) for e in forfeits]
    assert Tournament.objects.get(pk=t.pk).status == "finished"
