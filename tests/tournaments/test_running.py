"""Whole tournaments through the services, played by scripted clients (the heuristic bot
choosing each human's move); rounds advance with nobody calling start."""

import os
from collections import Counter
from datetime import timedelta

import pytest
import time_machine
from django.core.management import call_command
from django.db import IntegrityError, connection, transaction
from django.utils import timezone

from games.models import AppendOnly, Event, Game
from games.store import game_with_seats
from kinplay.notifications.models import Outbox
from kinplay.tournaments import selectors, services, stream
from kinplay.tournaments.models import Tournament, TournamentEvent
from kinplay.tournaments.projections import verify
from tests.tournaments.conftest import play_round, run_to_end


def _check_rounds(t, sizes):
    s = services.load(t)
    for rnd in s["rounds"]:
        seated = Counter(p for tb in rnd["tables"] for p in tb["players"])
        assert max(seated.values()) == 1, "a player at two tables in one round"
        for tb in rnd["tables"]:
            assert tb["bye"] or len(tb["players"]) in sizes
    return s


def _rebuild_equals_live(t):
    t.refresh_from_db()
    live = selectors.tournament_for(t)
    Tournament.objects.filter(pk=t.pk).update(state={}, state_version=0, status="open", round_ends_at=None)
    call_command("rebuild_projections", stdout=open(os.devnull, "w"))
    t = Tournament.objects.get(pk=t.pk)
    assert selectors.tournament_for(t) == live
    assert verify(t) == []
    call_command("verify_tournament", t.pk)
    return live


def test_it_runs_a_nine_player_karenza_swiss_with_a_vanished_player_and_a_withdrawal(players):
    ps = players(9)
    alice = ps[0]
    t = services.create(organiser=alice, name="Autumn Swiss", kind="karenza", format="swiss", rounds=4, round_days=1)
    for u in ps:
        services.join(t.pk, u)
    services.start(t.pk, alice)
    first = services.load(Tournament.objects.get(pk=t.pk))["rounds"][0]["tables"][0]["players"]
    charlie = next(u for u in ps if u.pk == first[1])  # "charlie" here: whoever sits second at table 1
    bob = next(u for u in ps[1:] if u.pk not in first)  # "bob": another player, not the organiser
    # Round 1: charlie never moves; the others play; the round waits for charlie's game ...
    play_round(t, skip=[charlie])
    services.sweep()
    t.refresh_from_db()
    assert len(t.state["rounds"]) == 1 and t.status == "running"
    # ... until its time is up: adjudicated, recorded in the game's own stream, round 2 starts.
    with time_machine.travel(timezone.now() + timedelta(days=1, minutes=1)):
        services.sweep()
    s = services.load(Tournament.objects.get(pk=t.pk))
    assert len(s["rounds"]) == 2
    charlie_table = next(tb for tb in s["rounds"][0]["tables"] if charlie.pk in tb["players"])
    g = charlie_table["games"][0]
    assert g["adjudicated"] and charlie.pk in g["forfeited"] and g["ranks"] is not None
    assert s["players"][str(charlie.pk)]["timeouts"] == 1, "held the turn: a timeout"
    assert Event.objects.filter(game_id=g["game"], command__by="adjudication").exists()
    # bob withdraws in round 2: his game is resigned, he is not paired again.
    services.withdraw(t.pk, bob)
    t = run_to_end(Tournament.objects.get(pk=t.pk))
    assert t.status == "finished"
    s = _check_rounds(t, [2])
    assert len(s["rounds"]) == 4
    assert all(bob.pk not in tb["players"] for r in s["rounds"][2:] for tb in r["tables"])
    pairs = Counter(frozenset(tb["players"]) for r in s["rounds"] for tb in r["tables"] if not tb["bye"])
    assert max(pairs.values()) == 1, "no rematch in a 9-player Swiss of 4 rounds"
    byes = Counter(tb["players"][0] for r in s["rounds"] for tb in r["tables"] if tb["bye"])
    assert max(byes.values()) == 1
    live = _rebuild_equals_live(t)
    assert live["fairness"]["seed"] and [r["player"] for r in live["standings"]][0] == live["winner"]
    assert next(r for r in live["standings"] if r["player"] == bob.username)["status"] == "withdrawn"
    assert Outbox.objects.filter(kind="tourney_over").count() == 9
    assert sorted(Outbox.objects.filter(kind="round_started", user=alice).values_list("detail", flat=True)) == [f"{t.pk}|{n}" for n in (1, 2, 3, 4)]


def test_it_runs_a_ten_player_knonsters_swiss_at_three_to_four_a_table(players):
    ps = players(10)
    t = services.create(organiser=ps[0], name="Monster night", kind="knonsters", format="swiss",
                        table_size={"min": 3, "max": 4}, rounds=2, points=[6, 4, 2, 0])
    for u in ps:
        services.join(t.pk, u)
    services.start(t.pk, ps[0])
    s = services.load(Tournament.objects.get(pk=t.pk))
    assert sorted(len(tb["players"]) for tb in s["rounds"][0]["tables"]) == [3, 3, 4]
    t = run_to_end(t)
    assert t.status == "finished"
    _check_rounds(t, [3, 4])
    live = _rebuild_equals_live(t)
    assert set(live["standings"][0]["tiebreaks"]) == {"opponents_points", "average_rank", "wins", "lot"}


def test_it_runs_a_six_player_project_kin_knockout_to_one_winner(players):
    ps = players(6)
    t = services.create(organiser=ps[0], name="Cup", kind="project_kin", format="knockout")
    for u in ps:
        services.join(t.pk, u)
    services.start(t.pk, ps[0])
    s = services.load(Tournament.objects.get(pk=t.pk))
    assert sum(tb["bye"] for tb in s["rounds"][0]["tables"]) == 2  # 8-bracket: the top two seeds wait
    t = run_to_end(t)
    assert t.status == "finished"
    live = _rebuild_equals_live(t)
    assert [len(r) for r in live["bracket"]] == [4, 2, 1]
    assert live["bracket"][-1][0]["through"] == [live["winner"]]
    assert live["standings"][0]["player"] == live["winner"]
    assert not any(tb["bye"] for r in live["rounds"][1:] for tb in r["tables"])


def test_it_runs_a_double_round_robin_with_every_pair_twice(players):
    ps = players(3)
    t = services.create(organiser=ps[0], name="Club", kind="karenza", format="round_robin", double=True)
    for u in ps:
        services.join(t.pk, u)
    services.start(t.pk, ps[0])
    t = run_to_end(t)
    s = _check_rounds(t, [2])
    games = [tuple(tb["players"]) for r in s["rounds"] for tb in r["tables"] if not tb["bye"]]
    assert len(s["rounds"]) == 6 and Counter(frozenset(g) for g in games) == {frozenset(g): 2 for g in games}
    assert sorted(games) == sorted((b, a) for a, b in games)
    live = _rebuild_equals_live(t)
    assert len(live["crosstable"]) == 3 and all(len(v) == 2 for row in live["crosstable"] for v in row["results"].values())


def test_it_starts_the_next_round_from_the_last_game_over_without_the_sweep(players, django_capture_on_commit_callbacks):
    from tests.play import finish

    ps = players(3)  # two rounds without a rematch: three players, a bye a round
    t = services.create(organiser=ps[0], name="Trio", kind="karenza", format="swiss", rounds=2)
    for u in ps:
        services.join(t.pk, u)
    services.start(t.pk, ps[0])
    gid = next(tb for tb in services.load(Tournament.objects.get(pk=t.pk))["rounds"][0]["tables"] if not tb["bye"])["games"][0]["game"]
    with django_capture_on_commit_callbacks(execute=True):
        finish(Game.objects.get(pk=gid))
    s = services.load(Tournament.objects.get(pk=t.pk))
    assert len(s["rounds"]) == 2 and s["rounds"][0]["status"] == "finished"


def test_it_cancels_a_scheduled_tournament_below_the_minimum_with_an_email(players, inbox):
    ps = players(1)
    t = services.create(organiser=ps[0], name="Lonely", kind="karenza", format="swiss",
                        starts_at=timezone.now() + timedelta(hours=1))
    services.join(t.pk, ps[0])
    services.sweep()
    assert Tournament.objects.get(pk=t.pk).status == "open"
    with time_machine.travel(timezone.now() + timedelta(hours=2)):
        services.sweep()
    assert Tournament.objects.get(pk=t.pk).status == "cancelled"
    mail = inbox()
    assert [m.subject for m in mail] == ["Lonely was cancelled"]
    assert "at least 2 were needed" in mail[0].body


def test_it_emails_each_player_their_round_and_opponent(players, inbox):
    alice, bob = players(2)
    t = services.create(organiser=alice, name="Duo", kind="karenza", format="swiss", rounds=1)
    services.join(t.pk, alice)
    services.join(t.pk, bob)
    services.start(t.pk, alice)
    rounds = [m for m in inbox() if "round 1 started" in m.subject]
    assert sorted(m.to[0] for m in rounds) == ["alice@example.com", "bob@example.com"]
    to_alice = next(m for m in rounds if m.to == ["alice@example.com"])
    assert "against bob" in to_alice.subject and "/games/" in to_alice.body


def test_it_withdraws_a_player_automatically_after_too_many_timeouts(players):
    from kinplay.clocks.services import sweep as sweep_clocks

    alice, bob, charlie, dave = players(4)
    t = services.create(organiser=alice, name="Strict", kind="karenza", format="swiss", rounds=3, max_timeouts=1,
                        clock={"per_move": 60, "on_timeout": "forfeit"})
    for u in (alice, bob, charlie, dave):
        services.join(t.pk, u)
    services.start(t.pk, alice)
    play_round(t, skip=[dave])
    with time_machine.travel(timezone.now() + timedelta(minutes=5)):
        sweep_clocks()  # dave's clock runs out: forfeit
        services.sweep()
    s = services.load(Tournament.objects.get(pk=t.pk))
    if s["players"][str(dave.pk)]["timeouts"]:
        assert s["players"][str(dave.pk)]["status"] == "withdrawn"
        assert all(dave.pk not in tb["players"] for tb in s["rounds"][-1]["tables"])


def test_it_keeps_the_stream_append_only_in_the_model_and_the_database(players):
    alice, = players(1)
    t = services.create(organiser=alice, name="Solid", kind="karenza", format="swiss")
    e = TournamentEvent.objects.get(tournament=t)
    with pytest.raises(AppendOnly):
        e.save()
    with pytest.raises(AppendOnly):
        TournamentEvent.objects.filter(tournament=t).update(type="x")
    with pytest.raises(AppendOnly):
        e.delete()
    for sql in ("UPDATE tournaments_tournamentevent SET type = 'x'", "DELETE FROM tournaments_tournamentevent"):
        with pytest.raises(Exception, match="append-only"), transaction.atomic(), connection.cursor() as c:
            c.execute(sql)
    with pytest.raises(IntegrityError), transaction.atomic():
        TournamentEvent.objects.create(tournament=t, seq=1, type="joined", data={})
    assert TournamentEvent.objects.get(tournament=t).type == "created"


def test_it_shows_each_standing_with_its_tiebreaks(players):
    alice, bob, charlie = players(3)
    t = services.create(organiser=alice, name="Tiny", kind="karenza", format="swiss", rounds=1)
    for u in (alice, bob, charlie):
        services.join(t.pk, u)
    services.start(t.pk, alice)
    t = run_to_end(t)
    rows = selectors.tournament_for(t)["standings"]
    assert [r["points"] for r in rows] == sorted((r["points"] for r in rows), reverse=True)
    assert all(set(r["tiebreaks"]) == {"buchholz", "median_buchholz", "sonneborn_berger", "direct", "wins", "lot"} for r in rows)
    assert sum(r["byes"] for r in rows) == 1 and t.status == stream.FINISHED


def test_it_keeps_tournament_clocks_running_while_a_player_is_on_vacation(players):
    from kinplay.clocks import vacation
    from kinplay.clocks.models import Deadline

    alice, bob = players(2)
    vacation.start(bob)
    t = services.create(organiser=alice, name="No holidays", kind="karenza", format="swiss", rounds=1,
                        clock={"per_move": 3600, "on_timeout": "forfeit"})
    services.join(t.pk, alice)
    services.join(t.pk, bob)
    services.start(t.pk, alice)
    gid = services.load(Tournament.objects.get(pk=t.pk))["rounds"][0]["tables"][0]["games"][0]["game"]
    held = Deadline.objects.filter(game_id=gid, kind=Deadline.MOVE, paused_left__isnull=False)
    assert not held.exists() and Game.objects.get(pk=gid).deadline is not None


def test_it_runs_a_multiplayer_knockout_where_the_top_of_each_table_goes_through(players):
    ps = players(7)
    t = services.create(organiser=ps[0], name="Monster cup", kind="knonsters", format="knockout",
                        table_size={"min": 3, "max": 4}, advance=2)
    for u in ps:
        services.join(t.pk, u)
    services.start(t.pk, ps[0])
    s = services.load(Tournament.objects.get(pk=t.pk))
    assert sorted(len(tb["players"]) for tb in s["rounds"][0]["tables"]) == [3, 4]
    t = run_to_end(t)
    assert t.status == "finished"
    live = _rebuild_equals_live(t)
    final = live["rounds"][-1]["tables"]
    assert len(live["rounds"]) == 2 and len(final) == 1 and len(final[0]["players"]) == 4  # 2 + 2 through
    assert live["winner"] in final[0]["players"] and live["standings"][0]["player"] == live["winner"]


def test_it_seeds_a_knockout_by_rating_with_the_unrated_after(players):
    from kinplay.ratings.models import Rating

    ps = players(4)
    alice, bob, charlie, dave = ps
    for user, mu in ((charlie, 40.0), (bob, 30.0)):
        r = Rating(user=user, kind="karenza", games=11)
        r.set(mu, 2.0, timezone.now())
        r.save()
    t = services.create(organiser=alice, name="Seeded", kind="karenza", format="knockout")
    for u in ps:
        services.join(t.pk, u)
    services.start(t.pk, alice)
    s = services.load(Tournament.objects.get(pk=t.pk))
    assert s["seeds"][:2] == [charlie.pk, bob.pk]
    assert s["players"][str(alice.pk)]["rating"] is None
    # 1 meets 4 and 2 meets 3: the two rated players can only meet in the final.
    assert all({charlie.pk, bob.pk} != set(tb["players"]) for tb in s["rounds"][0]["tables"])


def test_it_gives_byes_against_a_round_robin_player_who_withdrew(players):
    ps = players(4)
    alice, bob = ps[:2]
    t = services.create(organiser=alice, name="Club RR", kind="karenza", format="round_robin")
    for u in ps:
        services.join(t.pk, u)
    services.start(t.pk, alice)
    play_round(Tournament.objects.get(pk=t.pk))
    services.withdraw(t.pk, bob)
    services.sweep()
    t = run_to_end(Tournament.objects.get(pk=t.pk))
    s = services.load(t)
    assert len(s["rounds"]) == 3
    for rnd in s["rounds"][1:]:
        assert all(bob.pk not in tb["players"] for tb in rnd["tables"])
        assert sum(tb["bye"] for tb in rnd["tables"]) == 1  # bob's scheduled opponent
    _rebuild_equals_live(t)


def test_it_finds_pairings_that_the_seed_does_not_give():
    from kinplay.tournaments.projections import _redraw

    events = [
        {"type": "created", "data": {"name": "x", "kind": "karenza", "options": {}, "format": "swiss", "organiser": 1,
                                     "seed_sha256": "", "config": {"sizes": [2], "rounds": 1, "points": None}}},
        *({"type": "joined", "data": {"player": p, "name": f"p{p}"}} for p in (1, 2, 3, 4)),
    ]
    from kinplay.tournaments import plan
    from kinplay.tournaments import stream as st

    state = st.fold(events)
    seeds = plan.seeding(state, "good-seed")
    events.append({"type": "started", "data": {"seeds": seeds, "rounds": 1}})
    state = st.fold(events)
    honest = plan.next_round(state, "good-seed")
    events.append({"type": "round_started", "data": {"number": 1, "tables": [dict(tb, games=[]) for tb in honest]}})
    assert _redraw(events, "good-seed") == []
    # Duel Swiss pairs by the Dutch system (no chance past the seeding): a seed drawing another seeding.
    other = next(x for x in (f"another-seed-{i}" for i in range(50)) if plan.seeding(st.fold(events[:5]), x) != seeds)
    assert _redraw(events, other) != []
    hand_made = [{"players": [seeds[0], seeds[1]], "bye": False, "games": []},
                 {"players": [seeds[2], seeds[3]], "bye": False, "games": []}]
    events[-1] = {"type": "round_started", "data": {"number": 1, "tables": hand_made}}
    assert any("round 1" in p for p in _redraw(events, "good-seed"))


def test_it_never_crowns_a_knockout_player_who_withdrew(players):
    ps = players(3)
    t = services.create(organiser=ps[0], name="Three cup", kind="karenza", format="knockout")
    for u in ps:
        services.join(t.pk, u)
    services.start(t.pk, ps[0])
    s = services.load(Tournament.objects.get(pk=t.pk))
    bye = next(tb["players"][0] for tb in s["rounds"][0]["tables"] if tb["bye"])  # the top seed waits
    services.withdraw(t.pk, next(u for u in ps if u.pk == bye))
    t = run_to_end(Tournament.objects.get(pk=t.pk))
    s = services.load(t)
    duel = next(tb for tb in s["rounds"][0]["tables"] if not tb["bye"])
    won = stream.match_winner(s, duel)
    assert t.status == "finished" and s["winner"] == won != bye
    live = selectors.tournament_for(t)
    assert live["standings"][0]["player"] == live["winner"] and live["standings"][0]["status"] == "active"


def test_it_tells_a_multiplayer_bye_what_it_is_worth(players, inbox):
    ps = players(5)
    t = services.create(organiser=ps[0], name="Odd night", kind="knonsters", format="swiss",
                        table_size={"min": 3, "max": 4}, rounds=1)
    for u in ps:
        services.join(t.pk, u)
    services.start(t.pk, ps[0])
    s = services.load(Tournament.objects.get(pk=t.pk))
    bye = next(tb["players"][0] for tb in s["rounds"][0]["tables"] if tb["bye"])
    mail = next(m for m in inbox() if "you have a bye" in m.subject and m.to == [f"{s['players'][str(bye)]['name']}@example.com"])
    html = mail.alternatives[0][0]
    assert stream.bye_points(s) == 1.5 and next(r for r in stream.standings(s) if r["player"] == bye)["points"] == 1.5
    for text in (mail.body, html):
        assert "counts as a win" not in text and "worth 1.5 points" in text


def test_it_plays_a_round_robins_later_games_after_a_round_of_byes_only(players):
    from kinplay.tournaments import pairing

    ps = players(4)
    t = services.create(organiser=ps[0], name="Thin club", kind="karenza", format="round_robin")
    for u in ps:
        services.join(t.pk, u)
    services.start(t.pk, ps[0])
    s = services.load(Tournament.objects.get(pk=t.pk))
    schedule = pairing.round_robin(s["seeds"])
    stay = schedule[2][0]["players"]  # they meet in round 3; in round 2 each meets one of the others
    play_round(Tournament.objects.get(pk=t.pk))
    for u in ps:
        if u.pk not in stay:
            services.withdraw(t.pk, u)
    services.sweep()
    t = run_to_end(Tournament.objects.get(pk=t.pk))
    s = services.load(t)
    assert t.status == "finished" and len(s["rounds"]) == 3
    assert all(tb["bye"] for tb in s["rounds"][1]["tables"])  # both opponents gone: byes
    assert [tb["players"] for tb in s["rounds"][2]["tables"] if not tb["bye"]] == [stay]  # and still their game
    assert all(r["played"] == 2 for r in stream.standings(s) if r["player"] in stay)
    _rebuild_equals_live(t)


def test_it_starts_no_match_game_between_two_players_who_both_withdrew(players):
    from games import services as games
    from games.engine import RESIGN

    ps = players(4)
    t = services.create(organiser=ps[0], name="Best of three", kind="karenza", format="knockout", best_of=3)
    for u in ps:
        services.join(t.pk, u)
    services.start(t.pk, ps[0])
    s = services.load(Tournament.objects.get(pk=t.pk))
    table = s["rounds"][0]["tables"][0]
    a, b = (next(u for u in ps if u.pk == p) for p in table["players"])
    first = game_with_seats(table["games"][0]["game"])
    games.act(first.pk, next(x.index for x in first.seat_list if x.user_id == b.pk), action=RESIGN)  # a leads 1-0
    services.sweep()  # the match's second game (the worker's task after commit)
    services.withdraw(t.pk, a)  # resigns game 2: 1-1, b goes through ...
    services.withdraw(t.pk, b)  # ... and withdraws too, waiting for the next round
    services.sweep()
    s = services.load(Tournament.objects.get(pk=t.pk))
    assert len(s["rounds"][0]["tables"][0]["games"]) == 2  # no third game for two players who left
    assert not Game.objects.filter(status=Game.ACTIVE, seats__user=a).exists()
    t = run_to_end(Tournament.objects.get(pk=t.pk))
    s = services.load(t)
    other = s["rounds"][0]["tables"][1]
    assert t.status == "finished" and s["winner"] == stream.match_winner(s, other)


def test_it_plays_a_final_when_a_multiplayer_knockout_leaves_too_few_for_a_table(players):
    ps = players(5)  # Kinapa at tables of 4 (never 3): a table of 4 and the top seed's bye; 2 + 1 go through
    t = services.create(organiser=ps[0], name="Emperor cup", kind="kinapa", format="knockout")
    for u in ps:
        services.join(t.pk, u)
    services.start(t.pk, ps[0])
    t = run_to_end(Tournament.objects.get(pk=t.pk))
    s = services.load(t)
    first, bye = s["rounds"][0]["tables"]
    assert bye["bye"] and bye["players"] == [s["seeds"][0]]
    assert t.status == "finished" and len(s["rounds"]) == 2  # a final, not the top seed crowned on a bye
    final = s["rounds"][1]["tables"]
    assert len(final) == 1 and len(final[0]["players"]) == 2 and s["seeds"][0] in final[0]["players"]
    best = stream.advancers(s, first)[0]  # the table's best placed meets the top seed
    assert best in final[0]["players"]
    g = final[0]["games"][-1]
    assert s["winner"] == min(zip(g["ranks"], (s["seeds"].index(p) for p in g["players"]), g["players"]))[2]
    live = _rebuild_equals_live(t)
    assert live["standings"][0]["player"] == live["winner"]
