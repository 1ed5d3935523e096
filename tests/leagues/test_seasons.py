"""A whole league by the services: 14 Karenza players in divisions of 6 over two seasons,
scripted results, the roll-over by the beat sweeps alone (nobody starts a season)."""

import os
from datetime import timedelta

import pytest
import time_machine
from django.core.management import call_command
from django.db import DatabaseError, IntegrityError, connection, transaction
from django.utils import timezone

from games.models import AppendOnly
from kinplay.leagues import selectors, services, stream
from kinplay.leagues.models import League, LeagueEvent, Placement
from kinplay.notifications.models import Outbox
from kinplay.tournaments import services as tournaments
from kinplay.tournaments import stream as tstream
from kinplay.tournaments.emails import ROUND_STARTED
from kinplay.tournaments.models import Tournament
from tests.leagues.conftest import division_ids, play_round, play_season


def _divisions(league):
    league.refresh_from_db()
    return [list(d["players"]) for d in league.state["seasons"][-1]["divisions"]]


def _rebuild_equals_live(league):
    league.refresh_from_db()
    live = (selectors.league_for(league), selectors.history(league), list(Placement.objects.filter(league=league)
            .order_by("season", "user_id").values_list("user_id", "season", "division", "rank", "move")))
    League.objects.filter(pk=league.pk).update(state={}, version=0, status="open", season=0)
    Placement.objects.filter(league=league).delete()
    with open(os.devnull, "w") as quiet:
        call_command("rebuild_projections", stdout=quiet)
    league = League.objects.get(pk=league.pk)
    again = (selectors.league_for(league), selectors.history(league), list(Placement.objects.filter(league=league)
             .order_by("season", "user_id").values_list("user_id", "season", "division", "rank", "move")))
    assert again == live


def test_it_runs_two_seasons_moving_players_up_down_and_out(players):
    ps = players(14)
    alice = ps[0]
    league = services.create(organiser=alice, name="Karenza League", kind="karenza", division_size=6,
                             promote=2, relegate=2, season_days=14, drop_limit=0)
    assert league.state["config"]["format"] == "round_robin"
    for u in ps:
        services.sign_up(league.pk, u)
    services.sweep()
    assert League.objects.get(pk=league.pk).season == 0  # a week to sign up by default
    services.sweep(now=timezone.now() + timedelta(days=7))  # the first season starts by itself
    league.refresh_from_db()
    assert league.status == "running" and league.season == 1
    d1, d2 = _divisions(league)
    assert [len(d1), len(d2)] == [7, 7]  # 14 in sixes: 7 and 7, not 6, 6 and 2
    assert d1 == [u.pk for u in ps[:7]] and d2 == [u.pk for u in ps[7:]]  # nobody rated: sign-up order
    # One email per player: the league's (division and first game), not the round's as well.
    mails = Outbox.objects.filter(kind="league_season")
    assert mails.count() == 14 and not Outbox.objects.filter(kind=ROUND_STARTED).exists()
    assert mails.filter(game__isnull=False).count() == 12  # one bye a division of 7

    # Strength: inside each division, later sign-ups are stronger; so the bottom of division 1
    # is alice and bob, the top of division 2 is p14 and p13.
    strength = {u.pk: i for i, u in enumerate(ps)}
    strength.update({u.pk: 100 + i for i, u in enumerate(ps[7:])})
    by_name = {u.username: u for u in ps}
    p13, p14, p8, p10 = by_name["p13"], by_name["p14"], by_name["p8"], by_name["p10"]
    # p10 (division 2) withdraws from his division: dropped; p8 leaves the league.
    tournaments.withdraw(division_ids(league)[1], p10)
    services.leave(league.pk, p8)
    assert tournaments.load(Tournament.objects.get(pk=division_ids(league)[1]))["players"][str(p8.pk)]["status"] == "withdrawn"
    newcomers = players(2, start=15)  # p15, p16 sign up during the season
    for u in newcomers:
        services.sign_up(league.pk, u)
        strength[u.pk] = 50
    league = play_season(league, strength)

    assert league.season == 2
    s1 = league.state["seasons"][0]["moves"]
    assert s1[0]["down"] == [ps[1].pk, ps[0].pk]  # bob above alice (1 strength more)
    assert s1[1]["up"] == [p14.pk, p13.pk]
    assert s1[1]["dropped"] == [p10.pk] and p8.pk not in s1[1]["ranked"]
    n1, n2 = _divisions(league)
    assert {p14.pk, p13.pk} <= set(n1) and not {ps[0].pk, ps[1].pk} & set(n1)
    assert {ps[0].pk, ps[1].pk} <= set(n2)
    assert p10.pk not in n1 + n2 and p8.pk not in n1 + n2
    assert {u.pk for u in newcomers} <= set(n2)  # new sign-ups start at the bottom
    assert len(n1) == 7 and len(n2) == 7
    assert league.state["members"][str(p10.pk)]["status"] == stream.DROPPED
    assert Outbox.objects.filter(kind="league_season", detail=f"{league.pk}|2").count() == 14

    # Season 2: in the last round of division 1 one game is never played; when the round's
    # time is up the tournament adjudicates it and the league rolls over by itself.
    top = Tournament.objects.get(pk=division_ids(league)[0])
    while len(tournaments.load(top)["rounds"]) < tournaments.load(top)["total_rounds"]:
        play_round(league, strength)
        tournaments.sweep()
        top.refresh_from_db()
    table = next(tb for tb in tournaments.load(top)["rounds"][-1]["tables"] if not tb["bye"])
    stuck = [u for u in ps + newcomers if u.pk in table["players"]]
    play_round(league, strength, skip=stuck)
    tournaments.sweep()
    services.sweep()
    league.refresh_from_db()
    assert league.season == 2 and league.state["seasons"][1]["status"] == "running"
    with time_machine.travel(timezone.now() + timedelta(days=3)):
        tournaments.sweep()
        services.sweep()
    league.refresh_from_db()
    assert league.season == 3
    path = selectors.path_of(league, p14.pk)
    assert [(r["season"], r["division"]) for r in path] == [(1, 2), (2, 1), (3, 1)]
    assert path[0]["move"] == "up" and path[0]["rank"] == 1
    _rebuild_equals_live(league)


def test_it_keeps_league_events_append_only(alice):
    league = services.create(organiser=alice, name="L", kind="karenza")
    services.sign_up(league.pk, alice)
    with pytest.raises(AppendOnly):
        LeagueEvent.objects.filter(league=league).update(type="x")
    with pytest.raises(AppendOnly):
        LeagueEvent.objects.first().delete()
    with pytest.raises(DatabaseError), transaction.atomic(), connection.cursor() as cur:
        cur.execute("UPDATE leagues_leagueevent SET type = 'x'")
    with pytest.raises(DatabaseError), transaction.atomic(), connection.cursor() as cur:
        cur.execute("DELETE FROM leagues_leagueevent")
    assert LeagueEvent.objects.filter(league=league).count() == 2
    with pytest.raises(IntegrityError), transaction.atomic():
        LeagueEvent.objects.create(league=league, seq=2, type="signed_up", data={})


def test_it_waits_for_enough_players_before_the_first_season(alice):
    league = services.create(organiser=alice, name="L", kind="karenza", division_size=4)
    services.sign_up(league.pk, alice)
    services.sweep(now=timezone.now() + timedelta(days=8))
    league.refresh_from_db()
    assert league.status == "open" and league.season == 0


def test_it_places_newcomers_by_rating_when_the_league_says_so(players, monkeypatch):
    ps = players(6)
    league = services.create(organiser=ps[0], name="L", kind="karenza", division_size=3, promote=1, relegate=1,
                             placement="rating")
    for u in ps[:4]:
        services.sign_up(league.pk, u)
    services.sweep(now=timezone.now() + timedelta(days=8))
    league.refresh_from_db()
    assert len(_divisions(league)) == 1
    rating = {ps[4].pk: 40.0, ps[5].pk: None}
    rating.update({u.pk: 20.0 for u in ps[:4]})
    monkeypatch.setattr(tournaments, "_ratings", lambda users, kind: {u.pk: rating[u.pk] for u in users})
    for u in ps[4:]:
        services.sign_up(league.pk, u)
    play_season(league, {u.pk: i for i, u in enumerate(ps)})
    first, second = _divisions(league)
    assert ps[4].pk in first and ps[5].pk in second  # rated above the average: the top; unrated: bottom


def test_it_runs_a_multiplayer_league_of_swiss_tables(players):
    """Knonsters at tables of 3–4, divisions of one table: the winner of division 2 goes up,
    the last of division 1 goes down, as each division's standings say."""
    from games.models import Game
    from tests.play import step

    ps = players(8)
    league = services.create(organiser=ps[0], name="Tables", kind="knonsters", format="swiss", rounds=1,
                             table_size={"min": 3, "max": 4}, division_size=4, promote=1, relegate=1)
    for u in ps:
        services.sign_up(league.pk, u)
    services.sweep(now=timezone.now() + timedelta(days=7))
    for tid in division_ids(league):
        for tb in tournaments.load(Tournament.objects.get(pk=tid))["rounds"][0]["tables"]:
            assert len(tb["players"]) == 4
            game = Game.objects.get(pk=tb["games"][0]["game"])
            for _ in range(3000):
                game.refresh_from_db()
                if game.status != Game.ACTIVE:
                    break
                step(game)
    tournaments.sweep()
    services.sweep()
    league.refresh_from_db()
    assert league.season == 2
    s1 = league.state["seasons"][0]["moves"]
    top, bottom = (tournaments.load(Tournament.objects.get(pk=m["tournament"])) for m in s1)
    from kinplay.tournaments import stream as tstream

    assert s1[1]["up"] == [tstream.standings(bottom)[0]["player"]]
    assert s1[0]["down"] == [tstream.standings(top)[-1]["player"]]
    n1, n2 = _divisions(league)
    assert s1[1]["up"][0] in n1 and s1[0]["down"][0] in n2


def test_it_goes_on_when_the_organisers_account_is_gone(players):
    ps = players(4)
    organiser = players(1, start=5)[0]
    league = services.create(organiser=organiser, name="Orphan", kind="karenza", division_size=4)
    for u in ps:
        services.sign_up(league.pk, u)
    organiser.delete()
    services.sweep(now=timezone.now() + timedelta(days=7))
    league.refresh_from_db()
    assert league.season == 1 and league.organiser is None


def test_it_drops_a_player_who_timed_out_more_than_the_limit(players):
    """drop_limit 0: one move lost to the clock and the player is out of the next season."""
    from kinplay.clocks import services as clocks

    ps = players(4)
    league = services.create(organiser=ps[0], name="Clocked", kind="karenza", division_size=4, promote=1,
                             relegate=1, drop_limit=0, clock={"per_move": 3600, "on_timeout": "forfeit"})
    for u in ps:
        services.sign_up(league.pk, u)
    services.sweep(now=timezone.now() + timedelta(days=7))
    tid = division_ids(league)[0]
    game = tournaments.load(Tournament.objects.get(pk=tid))["rounds"][0]["tables"][0]["games"][0]
    from games.models import Game

    late = Game.objects.get(pk=game["game"]).seats.get(index=Game.objects.get(pk=game["game"]).to_act[0]).user_id
    play_round(league, {u.pk: i for i, u in enumerate(ps)}, skip=[u for u in ps if u.pk == late])  # the other game ends
    with time_machine.travel(timezone.now() + timedelta(hours=2)):
        clocks.sweep()
        tournaments.sweep()
    assert tournaments.load(Tournament.objects.get(pk=tid))["players"][str(late)]["status"] == "withdrawn"
    league = play_season(league, {u.pk: i for i, u in enumerate(ps)})
    assert league.season == 2
    assert league.state["seasons"][0]["moves"][0]["dropped"] == [late]
    assert late not in _divisions(league)[0]


def test_it_does_not_tell_a_player_who_left_and_came_back_that_they_stay(players, inbox):
    ps = players(4)
    alice, bob = ps[:2]
    league = services.create(organiser=alice, name="Back again", kind="karenza", division_size=4, promote=0, relegate=0)
    for u in ps:
        services.sign_up(league.pk, u)
    services.sweep(now=timezone.now() + timedelta(days=7))
    services.leave(league.pk, alice)  # mid-season: withdrawn from her division
    services.sign_up(league.pk, alice)  # and back for the next season
    league = play_season(league, {u.pk: i for i, u in enumerate(ps)})
    assert league.season == 2
    season2 = {m.to[0]: m for m in inbox() if "season 2 starts" in m.subject}
    assert "(you stay)" in season2["bob@example.com"].body
    assert "division 1 of 1." in season2["alice@example.com"].body
    assert all("you stay" not in text for text in (season2["alice@example.com"].body, season2["alice@example.com"].alternatives[0][0]))


def test_it_warns_a_divisions_players_before_their_rounds_time_runs_out(players, inbox, time_machine):
    """A division is a tournament whose rounds share the season's days: 7 days over 3 rounds
    end every 56 hours, adjudicated then; a quarter of that before, its players are told."""
    time_machine.move_to(timezone.now(), tick=False)
    ps = players(4)
    league = services.create(organiser=ps[0], name="Ladder", kind="karenza", division_size=4, season_days=7)
    for u in ps:
        services.sign_up(league.pk, u)
    services.sweep(now=timezone.now() + timedelta(days=8))
    time_machine.shift(timedelta(hours=42, minutes=1))
    tournaments.sweep()
    warned = [m for m in inbox() if "still running" in m.subject]
    assert sorted(m.to[0] for m in warned) == sorted(u.email for u in ps)
    assert all(m.subject.startswith("Ladder · S1 D1: round 1 ends soon") and "adjudicated" in m.body for m in warned)


def test_it_ranks_a_season_as_its_divisions_standings_show_them(players):
    ps = players(8)
    league = services.create(organiser=ps[0], name="Tied league", kind="karenza", division_size=4,
                             promote=1, relegate=1, season_days=14)
    for u in ps:
        services.sign_up(league.pk, u)
    services.sweep(now=timezone.now() + timedelta(days=7))
    league.refresh_from_db()
    tids = division_ids(league)
    strength = {u.pk: i for i, u in enumerate(ps)}
    league = play_season(league, strength)
    moves = league.state["seasons"][0]["moves"]
    for i, tid in enumerate(tids):
        shown = tstream.standings(tournaments.load(Tournament.objects.get(pk=tid)))
        assert [r["player"] for r in shown] == moves[i]["ranked"]
        assert all(r["tiebreaks"].get("lot") for r in shown)
        placed = dict(Placement.objects.filter(league=league, season=1, division=i + 1).values_list("user_id", "rank"))
        assert placed == {r["player"]: r["rank"] for r in shown}
    assert moves[1]["up"] == [moves[1]["ranked"][0]] and moves[0]["down"] == [moves[0]["ranked"][-1]]
