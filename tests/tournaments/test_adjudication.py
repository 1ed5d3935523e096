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


def _swiss_of_three(players, **settings):
    alice, bob, charlie = players(3)
    t = services.create(organiser=alice, name="Slow Swiss", kind="karenza", format="swiss", rounds=2, round_days=1, **settings)
    for u in (alice, bob, charlie):
        services.join(t.pk, u)
    services.start(t.pk, alice)
    table = next(tb for tb in services.load(Tournament.objects.get(pk=t.pk))["rounds"][0]["tables"] if not tb["bye"])
    return t, table["games"][0]["game"]


def test_it_counts_an_adjudicated_forfeit_as_a_timeout_and_withdraws_who_never_moves(players):
    from games import services as games
    from games.engine import clone
    from games.rng import Rng
    t, gid = _swiss_of_three(players, max_timeouts=1)
    game = game_with_seats(gid)
    mover = game.to_act[0]
    state = load_state(game)
    games.act(gid, mover, action=get("karenza").bots.heuristic_bot(clone(state), mover, Rng("t", "move")))  # one player moves
    game = game_with_seats(gid)
    stalled = game.seat_list[game.to_act[0]]
    assert stalled.index != mover
    with time_machine.travel(timezone.now() + timedelta(days=1, minutes=1)):
        services.sweep()
    s = services.load(Tournament.objects.get(pk=t.pk))
    me = s["players"][str(stalled.user_id)]
    assert me["timeouts"] == 1 and me["status"] == "withdrawn" and me["withdrawn"]["reason"] == "timeouts"
    assert len(s["rounds"]) == 2 and all(stalled.user_id not in tb["players"] for tb in s["rounds"][1]["tables"]), \
        "not paired again"


def test_it_counts_a_game_nobody_moved_in_as_lost_by_both_not_by_the_first_seat(players, api):
    t, gid = _swiss_of_three(players)
    game = game_with_seats(gid)
    seated, holder = [x.user_id for x in game.seat_list], game.seat_list[game.to_act[0]].user_id
    with time_machine.travel(timezone.now() + timedelta(days=1, minutes=1)):
        services.sweep()
    s = services.load(Tournament.objects.get(pk=t.pk))
    rows = {r["player"]: r for r in services.stream.standings(s)}
    # No points from the game (a bye of round 2, if any, is all they have), and not played.
    assert all(rows[p]["points"] == rows[p]["byes"] and rows[p]["played"] == 0 for p in seated)
    assert [s["players"][str(p)]["timeouts"] for p in seated] == [1 if p == holder else 0 for p in seated], \
        "a timeout for who held the turn only"
    assert Game.objects.get(pk=gid).status == Game.FINISHED
    shown = api(Tournament.objects.get(pk=t.pk).organiser).get(f"/api/tournaments/{t.pk}/").json()
    result = next(tb["result"] for tb in shown["rounds"][0]["tables"] if not tb["bye"])
    assert result.startswith("double forfeit")
    assert len(s["rounds"]) == 2, "both still in: under the limit of two timeouts"
