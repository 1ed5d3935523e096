"""The ladder's rules: places, reach, limits, repeats, answers (accepted, declined, lapsed),
results moving places, leaving, and the stream replayed."""

import os
from datetime import timedelta
from unittest import mock

import pytest
from django.core.management import call_command
from django.db import DatabaseError, IntegrityError, connection, transaction
from django.utils import timezone

from games import services as games
from games.models import AppendOnly, Game
from kinplay.clocks.models import Deadline
from kinplay.ladders import projections, services, stream
from kinplay.ladders.models import Ladder, LadderEvent
from tests.ladders.conftest import after_commit, closed, names, open_game, play


def test_it_puts_each_newcomer_at_the_bottom(ladder):
    lad, ps = ladder(4)
    assert names(lad) == ["alice", "bob", "charlie", "p4"]
    with pytest.raises(services.LadderError, match="already on this ladder"):
        services.join(lad.pk, ps[1])


def test_it_moves_the_winning_challenger_into_the_losers_place_and_everyone_between_down_one(ladder):
    lad, (alice, bob, charlie, p4, p5) = ladder(5)
    gid = play(lad, p4, bob, winner=p4)
    assert Game.objects.get(pk=gid).status == Game.FINISHED
    assert names(lad) == ["alice", "p4", "bob", "charlie", "p5"]
    assert closed(lad, gid) == ("result", {"game": gid, "challenger": p4.pk, "challenged": bob.pk, "winner": p4.pk, "moved": True})
    assert LadderEvent.objects.get(ladder=lad, type="challenged").data["places"] == [4, 2]


def test_it_keeps_the_places_when_the_challenged_player_wins(ladder):
    lad, (alice, bob, charlie) = ladder(3)
    gid = play(lad, charlie, alice, winner=alice)
    assert names(lad) == ["alice", "bob", "charlie"]
    kind, data = closed(lad, gid)
    assert kind == "result" and data["winner"] == alice.pk and not data["moved"]


def test_it_leaves_the_places_after_a_draw():
    s = stream.fold([
        {"type": "created", "data": {"name": "L", "kind": "karenza", "options": {}, "config": {"repeat_days": 7}, "organiser": 1}},
        {"type": "joined", "data": {"player": 1, "name": "alice"}},
        {"type": "joined", "data": {"player": 2, "name": "bob"}},
        {"type": "challenged", "data": {"game": 9, "challenger": 2, "challenged": 1, "at": "2026-01-01T00:00:00+00:00",
                                        "answer_by": "2026-01-04T00:00:00+00:00", "places": [2, 1]}},
        {"type": "accepted", "data": {"game": 9, "challenger": 2, "challenged": 1}},
    ])
    draw = stream.result(s, 9, None)
    assert draw == {"game": 9, "challenger": 2, "challenged": 1, "winner": None, "moved": False}
    assert stream.result(s, 9, 1)["moved"] is False and stream.result(s, 9, 2)["moved"] is True
    s = stream.evolve(s, "result", draw)
    assert s["ranking"] == [1, 2] and s["challenges"] == {}


def test_it_lets_players_challenge_only_up_to_reach_places_above(ladder):
    lad, (alice, bob, charlie, p4) = ladder(4, reach=2)
    with pytest.raises(services.LadderError, match="up to 2 places above"):
        services.challenge(lad.pk, p4, "alice")
    with pytest.raises(services.LadderError, match="only challenge players above"):
        services.challenge(lad.pk, bob, "charlie")
    with pytest.raises(games.Unprocessable, match="no player"):
        services.challenge(lad.pk, bob, "nobody")
    assert not LadderEvent.objects.filter(ladder=lad, type="challenged").exists() and not Game.objects.exists()
    services.challenge(lad.pk, p4, "bob")
    assert LadderEvent.objects.filter(ladder=lad, type="challenged").count() == 1


def test_it_allows_one_open_challenge_out_and_one_in_by_default(ladder):
    lad, (alice, bob, charlie, p4, p5) = ladder(5)
    services.challenge(lad.pk, charlie, "alice")
    with pytest.raises(services.LadderError, match="open challenge"):
        services.challenge(lad.pk, charlie, "bob")  # one out
    with pytest.raises(services.LadderError, match="alice already has an open challenge"):
        services.challenge(lad.pk, p4, "alice")  # one in
    services.challenge(lad.pk, p4, "bob")  # others are free
    assert Game.objects.count() == 2


def test_it_takes_the_limits_from_the_settings(ladder):
    lad, (alice, bob, charlie, p4) = ladder(4, max_out=2, max_in=2)
    services.challenge(lad.pk, charlie, "alice")
    services.challenge(lad.pk, charlie, "bob")
    services.challenge(lad.pk, p4, "alice")
    with pytest.raises(services.LadderError, match="at most 2"):
        services.challenge(lad.pk, charlie, "bob")


def test_it_refuses_the_same_opponent_again_within_repeat_days_either_way_round(ladder):
    lad, (alice, bob, charlie) = ladder(3, repeat_days=7)
    play(lad, bob, alice, winner=bob)
    assert names(lad) == ["bob", "alice", "charlie"]
    with pytest.raises(services.LadderError, match="recently"):
        services.challenge(lad.pk, alice, "bob")  # the loser's revenge waits too
    later = timezone.now() + timedelta(days=7, minutes=1)
    with mock.patch.object(services.timezone, "now", return_value=later):
        services.challenge(lad.pk, alice, "bob")
    assert open_game(lad, alice)


def test_it_counts_a_decline_as_nothing_moving_and_frees_both_players(ladder):
    lad, (alice, bob, charlie) = ladder(3)
    services.challenge(lad.pk, charlie, "bob")
    gid = open_game(lad, charlie)
    games.decline_invitation(gid, bob)
    lad.refresh_from_db()
    assert closed(lad, gid)[0] == "declined" and names(lad) == ["alice", "bob", "charlie"]
    assert Game.objects.get(pk=gid).status == Game.ABORTED  # invitations only: the game is called off
    assert [e.type for e in LadderEvent.objects.filter(ladder=lad).order_by("seq")][-2:] == ["challenged", "declined"]
    with pytest.raises(services.LadderError, match="recently"):
        services.challenge(lad.pk, charlie, "bob")  # a declined challenge still counts for the repeat limit
    services.challenge(lad.pk, charlie, "alice")  # charlie's one open challenge is free again


def test_it_starts_the_game_when_the_challenge_is_accepted(ladder):
    lad, (alice, bob) = ladder(2)
    services.challenge(lad.pk, bob, "alice")
    gid = open_game(lad, bob)
    game = Game.objects.get(pk=gid)
    assert game.status == Game.WAITING and [s.user_id for s in game.seats.order_by("index")] == [bob.pk, alice.pk]
    games.accept_invitation(gid, alice)
    lad.refresh_from_db()
    assert Game.objects.get(pk=gid).status == Game.ACTIVE and lad.state["challenges"][str(gid)]["status"] == "accepted"


def test_it_counts_a_lapsed_invitation_as_declined_after_the_answer_days(ladder):
    lad, (alice, bob) = ladder(2, answer_days=2)
    before = timezone.now()
    services.challenge(lad.pk, bob, "alice")
    gid = open_game(lad, bob)
    clock = Deadline.objects.get(game_id=gid, kind=Deadline.INVITATION, done_at__isnull=True)
    assert before + timedelta(days=2) <= clock.due_at <= timezone.now() + timedelta(days=2)
    assert games.expire_invitation(gid, 1) == "cancelled"  # what the clocks' sweep calls when it falls due
    lad.refresh_from_db()
    assert closed(lad, gid)[0] == "lapsed" and names(lad) == ["alice", "bob"]
    assert not stream.open_challenges(lad.state)


def test_it_records_a_challenge_the_challenger_calls_off(ladder):
    lad, (alice, bob) = ladder(2)
    services.challenge(lad.pk, bob, "alice")
    gid = open_game(lad, bob)
    games.cancel_game(gid, bob)
    lad.refresh_from_db()
    assert closed(lad, gid)[0] == "cancelled"


def test_it_moves_the_players_below_up_when_one_leaves_and_closes_their_challenges(ladder):
    lad, (alice, bob, charlie, p4) = ladder(4)
    services.challenge(lad.pk, charlie, "bob")
    waiting = open_game(lad, charlie)
    services.challenge(lad.pk, p4, "alice")
    running = open_game(lad, p4)
    games.accept_invitation(running, alice)
    services.leave(lad.pk, charlie)  # made a challenge: called off
    with after_commit():
        services.leave(lad.pk, alice)  # playing one: resigned, and nobody moves for it
    lad.refresh_from_db()
    assert names(lad) == ["bob", "p4"]
    assert closed(lad, waiting)[0] == "cancelled"
    assert Game.objects.get(pk=running).status == Game.FINISHED
    kind, data = closed(lad, running)
    assert kind == "result" and data["winner"] == p4.pk and not data["moved"]
    with pytest.raises(services.LadderError, match="not on this ladder"):
        services.leave(lad.pk, alice)
    services.join(lad.pk, alice)  # back, at the bottom
    assert names(lad) == ["bob", "p4", "alice"]


def ladder_kicks(callbacks) -> list:
    return [f for f in callbacks if f.__module__ == "kinplay.ladders.services"]


def test_the_sweep_records_a_result_the_task_missed(ladder, django_capture_on_commit_callbacks):
    lad, (alice, bob) = ladder(2)
    services.challenge(lad.pk, bob, "alice")
    gid = open_game(lad, bob)
    games.accept_invitation(gid, alice)
    with django_capture_on_commit_callbacks(execute=False) as kicks:  # the broker never got the task
        games.resign(gid, user=alice)
    assert len(ladder_kicks(kicks)) == 1 and closed(lad, gid) is None and names(lad) == ["alice", "bob"]
    assert services.sweep() == 1
    assert closed(lad, gid)[0] == "result" and names(lad) == ["bob", "alice"]
    assert services.sweep() == 0 and services.record_result(gid) == "not-open"  # once only


def test_it_ignores_games_that_are_not_challenges(alice, bob):
    lad = services.create(organiser=alice, name="Karenza ladder", kind="karenza")
    game = games.create_game(creator=alice, kind="karenza", seats=[{"user": "alice"}, {"user": "bob"}])
    games.accept_invitation(game.pk, bob)
    with after_commit() as kicks:
        games.resign(game.pk, user=bob)
    assert ladder_kicks(kicks) == []  # not invite_only: no task at all
    invited = games.create_game(creator=alice, kind="karenza", seats=[{"user": "alice"}, {"user": "bob"}], invite_only=True)
    games.accept_invitation(invited.pk, bob)
    with after_commit():
        games.resign(invited.pk, user=bob)
    assert services.record_result(invited.pk) == "not-open"  # no ladder's
    lad.refresh_from_db()
    assert lad.version == 1 and lad.state["challenges"] == {}


def test_it_replays_the_stream_to_the_same_ranking(ladder):
    lad, (alice, bob, charlie, p4, p5) = ladder(5)
    play(lad, p5, charlie, winner=p5)
    play(lad, p4, bob, winner=bob)
    play(lad, charlie, bob, winner=charlie)
    services.challenge(lad.pk, p4, "charlie")
    games.decline_invitation(open_game(lad, p4), charlie)
    services.leave(lad.pk, alice)
    services.challenge(lad.pk, p4, "p5")  # still open when the stream is replayed
    lad.refresh_from_db()
    live, ranking = lad.state, names(lad)
    assert ranking == ["charlie", "bob", "p5", "p4"]
    events = projections.events_of(lad)
    assert stream.fold(events) == live
    links = sorted(lad.games.values_list("game_id", "done"))
    assert [done for _, done in links] == [True, True, True, True, False]  # the last one is open
    Ladder.objects.filter(pk=lad.pk).update(state={}, version=0)
    lad.games.all().delete()
    with open(os.devnull, "w") as quiet:
        call_command("rebuild_projections", stdout=quiet)
    lad.refresh_from_db()
    assert lad.state == live and names(lad) == ranking and lad.version == len(events)
    assert sorted(lad.games.values_list("game_id", "done")) == links


def test_it_keeps_ladder_events_append_only(ladder):
    lad, _ = ladder(2)
    with pytest.raises(AppendOnly):
        LadderEvent.objects.filter(ladder=lad).update(type="x")
    with pytest.raises(AppendOnly):
        LadderEvent.objects.first().delete()
    with pytest.raises(DatabaseError), transaction.atomic(), connection.cursor() as cur:
        cur.execute("UPDATE ladders_ladderevent SET type = 'x'")
    with pytest.raises(DatabaseError), transaction.atomic(), connection.cursor() as cur:
        cur.execute("DELETE FROM ladders_ladderevent")
    assert LadderEvent.objects.filter(ladder=lad).count() == 3
    with pytest.raises(IntegrityError), transaction.atomic():
        LadderEvent.objects.create(ladder=lad, seq=3, type="joined", data={})


def test_it_keeps_the_state_small_dropping_closed_challenges_and_meetings_past_the_repeat_limit():
    at = lambda day: f"2026-01-{day:02d}T00:00:00+00:00"  # noqa: E731
    s = stream.fold([
        {"type": "created", "data": {"name": "L", "kind": "karenza", "options": {}, "config": {"repeat_days": 7}, "organiser": 1}},
        *({"type": "joined", "data": {"player": p, "name": f"p{p}"}} for p in (1, 2, 3)),
        {"type": "challenged", "data": {"game": 9, "challenger": 2, "challenged": 1, "at": at(1), "answer_by": at(4), "places": [2, 1]}},
        {"type": "declined", "data": {"game": 9, "challenger": 2, "challenged": 1}},
        {"type": "challenged", "data": {"game": 10, "challenger": 3, "challenged": 2, "at": at(5), "answer_by": at(8), "places": [3, 2]}},
    ])
    assert list(s["challenges"]) == ["10"] and s["met"] == {"1-2": at(1), "2-3": at(5)}
    s = stream.evolve(s, "challenged", {"game": 11, "challenger": 3, "challenged": 1, "at": at(9), "answer_by": at(12),
                                        "places": [3, 1]})
    assert s["met"] == {"2-3": at(5), "1-3": at(9)}  # 1-2 met on the 1st: no longer bars them on the 8th
