"""Compacted streams (games.store.compact): a game that is over keeps its events in one row,
and every reader sees the same events as before: History, the events API, replays,
verify_game, a retried request's answer. Games in play are never compacted, and the database
lets an event row go only once a stream holds it."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.core.management import call_command
from django.db import DatabaseError, connection, transaction
from django.utils import timezone

from games import selectors, services, store
from games.models import CompactedStream, Event, Game, History
from games.store import load_state
from tests.play import accepted, bot_action, finish
from tests.threads import run_together, unexpected

COLUMNS = ("id", "game_id", "seq", "type", "data", "at", "seat", "idempotency_key", "command", "schema_version")


def history(game):
    return list(History.objects.filter(game=game).order_by("seq").values_list(*COLUMNS))


def rows_of(game):
    """The game's events as the table held them (Event's columns, History's order)."""
    return list(Event.objects.filter(game=game).order_by("seq").values_list(*COLUMNS))


@pytest.fixture
def played(db, alice, bob):
    game = accepted(services.create_game(creator=alice, kind="kenta", options={}, per_move=None,
                                         seats=[{"user": "alice"}, {"user": "bob"}]))
    return finish(game)


def test_it_reads_every_event_of_a_compacted_game_as_it_was(played, api, alice):
    before = rows_of(played)
    assert len(before) > 10 and History.objects.filter(game=played).count() == len(before)
    answer_before = api(alice).get(f"/api/games/{played.pk}/events/").json()
    states_before = [load_state(played, upto=v, cached=False) for v in range(1, played.version + 1)]

    assert store.compact([played.pk]) == 1

    assert not Event.objects.filter(game=played).exists()
    assert CompactedStream.objects.get(game=played).upto == played.version
    assert history(played) == before  # every column: ids, times to the microsecond, payloads, keys
    assert api(alice).get(f"/api/games/{played.pk}/events/").json() == answer_before
    assert [load_state(played, upto=v, cached=False) for v in range(1, played.version + 1)] == states_before
    store.states.clear()  # the game page and the games list read many games' states together
    assert store.load_states([played]) == {played.pk: states_before[-1]}
    call_command("verify_game", played.pk)


def test_it_gives_the_last_events_of_compacted_and_running_games_together(played, alice, bob):
    running = accepted(services.create_game(creator=alice, kind="knonsters", options={}, per_move=None,
                                            seats=[{"user": "alice"}, {"user": "bob"}]))
    def recent():  # every column, times to the microsecond and in UTC
        return {g: [tuple(getattr(r, c) for c in COLUMNS) for r in rows]
                for g, rows in selectors.recent_rows([played, running], 5).items()}

    before = recent()
    assert store.compact([played.pk]) == 1
    after = recent()
    assert after == before and len(after[played.pk]) == 5 and after[running.pk]
    assert [r[2] for r in after[played.pk]] == list(range(played.version - 4, played.version + 1))
    assert all(r[5].utcoffset() is not None for r in after[played.pk])


def test_it_answers_a_retried_last_move_of_a_compacted_game_as_the_first_time(db, alice, bob, api):
    game = accepted(services.create_game(creator=alice, kind="knonsters", options={}, per_move=None,
                                         seats=[{"user": "alice"}, {"user": "bob"}]))
    client = {0: api(alice), 1: api(bob)}
    for _ in range(2000):
        game.refresh_from_db()
        if game.status != Game.ACTIVE:
            break
        seat = game.to_act[0]
        first = client[seat].post(f"/api/games/{game.pk}/actions/", {"action": bot_action(game, seat)}, format="json",
                                  HTTP_IDEMPOTENCY_KEY=f"move-{game.version}")
        assert first.status_code == 201, first.content
        last = (seat, game.version, first.json())
    assert game.status == Game.FINISHED
    seat, version, answer = last
    game = Game.objects.get(pk=game.pk)
    action = History.objects.get(game=game, seq=version + 1).command["action"]

    assert store.compact([game.pk]) == 1

    again = client[seat].post(f"/api/games/{game.pk}/actions/", {"action": action}, format="json",
                              HTTP_IDEMPOTENCY_KEY=f"move-{version}")
    assert again.status_code in (200, 201), again.content
    assert again.json()["events"] == answer["events"]
    assert History.objects.filter(game=game).count() == game.version


def test_it_leaves_games_in_play_alone(db, alice, bob):
    game = accepted(services.create_game(creator=alice, kind="kenta", options={}, per_move=None,
                                         seats=[{"user": "alice"}, {"user": "bob"}]))
    before = rows_of(game)
    assert store.compact([game.pk]) == 0
    assert rows_of(game) == before and not CompactedStream.objects.filter(game=game).exists()
    services.act(game.pk, game.to_act[0], action=bot_action(game, game.to_act[0]))  # it plays on


def test_it_compacts_the_games_over_for_a_day_and_no_others(played, alice, bob):
    fresh = finish(accepted(services.create_game(creator=alice, kind="knonsters", options={}, per_move=None,
                                                 seats=[{"user": "alice"}, {"user": "bob"}])))
    Game.objects.filter(pk=played.pk).update(updated_at=timezone.now() - timedelta(hours=25))

    assert services.compact_streams() == 1
    assert CompactedStream.objects.filter(game=played).exists()
    assert Event.objects.filter(game=fresh).exists() and not CompactedStream.objects.filter(game=fresh).exists()
    assert services.compact_streams() == 0  # nothing left that is due
    assert services.compact_streams(now=timezone.now() + timedelta(hours=25)) == 1


def _refused(sql, params):
    with pytest.raises(DatabaseError) as caught, transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(sql, params)
    assert "append-only" in str(caught.value), caught.value


def test_it_lets_an_event_row_go_only_once_a_stream_holds_it(played, alice, bob):
    other = finish(accepted(services.create_game(creator=alice, kind="knonsters", options={}, per_move=None,
                                                 seats=[{"user": "alice"}, {"user": "bob"}])))
    before = rows_of(other)
    # a stream that stops short of the last event does not let the last one go
    with transaction.atomic():
        CompactedStream.objects.create(game=other, upto=other.version - 1, events="[]")
        _refused("DELETE FROM games_event WHERE game_id = %s", [other.pk])
        transaction.set_rollback(True)
    _refused("DELETE FROM games_event WHERE game_id = %s", [other.pk])
    assert store.compact([played.pk]) == 1  # another game's stream lets none of this one's go
    _refused("DELETE FROM games_event WHERE game_id = %s", [other.pk])
    _refused("UPDATE games_event SET type = 'forged' WHERE game_id = %s", [other.pk])
    assert rows_of(other) == before
    with pytest.raises(DatabaseError), transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("UPDATE games_compactedstream SET events = '[]' WHERE game_id = %s", [played.pk])


def test_it_compacts_each_game_once_when_two_sweeps_run_at_once(purgeable_events, alice, bob):
    games = [finish(accepted(services.create_game(creator=alice, kind="knonsters", options={}, per_move=None,
                                                  seats=[{"user": "alice"}, {"user": "bob"}]))) for _ in range(6)]
    before = {g.pk: rows_of(g) for g in games}
    later = timezone.now() + timedelta(hours=25)
    done = run_together(2, lambda i: services.compact_streams(now=later))
    assert not unexpected(done)
    assert sum(done) == len(games) == CompactedStream.objects.count()
    for g in games:
        assert history(g) == before[g.pk]


@pytest.mark.postgresql
def test_it_reads_a_compacted_stream_by_its_key_in_every_reader(played, alice, bob):
    """History's view unpacks only the streams a query names; a join or an OR of per-game
    conditions would have it unpack every stream there is (at a million games, minutes). With
    sequential scans priced out, a plan that still scans the streams' table has no other way."""
    from django.test.utils import CaptureQueriesContext

    other = finish(accepted(services.create_game(creator=alice, kind="knonsters", options={}, per_move=None,
                                                 seats=[{"user": "alice"}, {"user": "bob"}])))
    assert store.compact([played.pk, other.pk]) == 2
    played, other = Game.objects.get(pk=played.pk), Game.objects.get(pk=other.pk)
    with CaptureQueriesContext(connection) as captured:
        store.load_states([played, other])
        store.load_state(played, upto=3, cached=False)
        selectors.recent_rows([played, other], 3)
        selectors.last_platform_events([played, other])
        list(store.stream(played, after=2))
        call_command("verify_game", played.pk)
    reads = [q["sql"] for q in captured.captured_queries if "games_history" in q["sql"]]
    assert len(reads) >= 5
    with connection.cursor() as cursor:
        cursor.execute("SET LOCAL enable_seqscan = off")
        for sql in reads:
            cursor.execute(f"EXPLAIN {sql}")
            plan = "\n".join(line for (line,) in cursor.fetchall())
            assert "Seq Scan on games_compactedstream" not in plan, f"{sql}\n{plan}"
