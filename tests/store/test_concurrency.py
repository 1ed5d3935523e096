"""Concurrency and immutability of the event store, on whichever database the suite runs on.

docs/architecture.md#the-event-store: two commands decided against the same version cannot both
land (the loser gets VersionConflict / 409); the same Idempotency-Key twice gives one set of
events and the same answer; nothing ever updates or deletes an event row: the model refuses
and so does the database itself (a trigger on SQLite and on PostgreSQL).

The threaded tests really commit (each thread has its own database connection, closed when
the thread ends), so they use ``purgeable_events`` instead of the rolled-back ``db``.
"""

from __future__ import annotations

import pytest
from django.db import DatabaseError, IntegrityError, connection, transaction
from django.db.models import QuerySet
from rest_framework.authtoken.models import Token

from games import services
from games.models import AppendOnly, Event, Game
from games.registry import get
from games.store import VersionConflict, load_state
from tests.play import accepted
from tests.threads import run_together, unexpected

THREADS = 10


def _new_game(creator, *seats):
    return accepted(services.create_game(
        creator=creator, kind="knonsters", options={}, per_move=None, seats=[{"user": u.username} for u in seats],
    ))


def _legal(game, seat):
    game.refresh_from_db()
    state = load_state(game)
    legal = get(game.kind).rules.legal_actions(state, seat)
    assert legal, f"seat {seat} has no legal action at version {game.version}"
    return legal


def _event_rows(game):
    return list(Event.objects.filter(game=game).order_by("seq").values_list("seq", "type", "seat", "idempotency_key"))


# ------------------------------------------------------------------ optimistic concurrency


def test_it_lets_exactly_one_of_many_concurrent_submissions_at_one_version_land(purgeable_events, alice, bob):
    game = _new_game(alice, alice, bob)
    version = game.version
    before = _event_rows(game)
    # The favourites choice is simultaneous: both seats may act at this version. Every
    # thread submits a legal action (varied, from both seats) decided against the same one.
    choices = {seat: _legal(game, seat) for seat in (0, 1)}

    def submit(i):
        seat = i % 2
        action = choices[seat][i % len(choices[seat])]["action"]
        return services.act(game.pk, seat, action=action, expected_version=version)

    results = run_together(THREADS, submit)

    assert not unexpected(results, VersionConflict), "\n".join(unexpected(results, VersionConflict))
    landed = [r for r in results if not isinstance(r, BaseException)]
    conflicts = [r for r in results if isinstance(r, VersionConflict)]
    assert len(landed) == 1, f"{len(landed)} submissions landed at version {version}"
    assert len(conflicts) == THREADS - 1
    game.refresh_from_db()
    rows = _event_rows(game)
    assert rows[: len(before)] == before
    assert [seq for seq, *_ in rows] == list(range(1, game.version + 1)), "seq must stay gap-free"
    new = rows[len(before):]
    assert [seq for seq, *_ in new] == [e.seq for e in landed[0].events]
    # Exactly one command was decided against `version`.
    commands = Event.objects.filter(game=game, seq=version + 1, command__isnull=False)
    assert commands.count() == 1
    # Every loser was told the version that won, so it can decide again.
    assert {c.current for c in conflicts} <= set(range(version + 1, game.version + 1))


def test_it_lets_exactly_one_of_many_concurrent_identical_moves_land(purgeable_events, alice, bob):
    """The same seat double-clicking the same move from many tabs at once."""
    game = _new_game(alice, alice, bob)
    version = game.version
    action = _legal(game, 0)[0]["action"]

    results = run_together(THREADS, lambda i: services.act(game.pk, 0, action=action, expected_version=version))

    assert not unexpected(results, VersionConflict), "\n".join(unexpected(results, VersionConflict))
    assert sum(not isinstance(r, BaseException) for r in results) == 1
    assert sum(isinstance(r, VersionConflict) for r in results) == THREADS - 1
    game.refresh_from_db()
    assert Event.objects.filter(game=game, seat=0, command__isnull=False).count() == 1


def test_it_retries_a_lost_race_without_expected_version_but_never_doubles_a_move(purgeable_events, alice, bob):
    """Without expected_version the service decides again on the fresh state: the first
    choice lands, the repeats are refused as illegal (the seat has already chosen)."""
    from games.engine import IllegalAction

    game = _new_game(alice, alice, bob)
    action = _legal(game, 0)[0]["action"]

    results = run_together(THREADS, lambda i: services.act(game.pk, 0, action=action))

    allowed = (IllegalAction, VersionConflict)
    assert not unexpected(results, *allowed), "\n".join(unexpected(results, *allowed))
    assert sum(not isinstance(r, BaseException) for r in results) == 1
    assert Event.objects.filter(game=game, seat=0, command__isnull=False).count() == 1


def test_it_stores_one_set_of_events_for_concurrent_repeats_of_one_idempotency_key(purgeable_events, alice, bob):
    game = _new_game(alice, alice, bob)
    version = game.version
    action = _legal(game, 0)[0]["action"]
    before = _event_rows(game)

    def submit(i):
        out = services.act(game.pk, 0, action=action, expected_version=version, idempotency_key="click-1")
        seqs = [e.seq for e in out.events]
        return max(seqs), seqs, out.replayed  # the version the API answers with

    results = run_together(THREADS, submit)

    assert not unexpected(results), "\n".join(unexpected(results))
    versions = {v for v, _, _ in results}
    seqs = {tuple(s) for _, s, _ in results}
    assert len(versions) == 1, f"different versions returned: {versions}"
    assert len(seqs) == 1, f"different events returned: {seqs}"
    assert sum(not replayed for _, _, replayed in results) == 1, "exactly one request stores the events"
    game.refresh_from_db()
    rows = _event_rows(game)
    assert rows[len(before):] and [seq for seq, *_ in rows[len(before):]] == list(next(iter(seqs)))
    assert versions == {game.version}
    assert Event.objects.filter(game=game, idempotency_key="click-1").count() == 1


def test_it_answers_concurrent_api_repeats_of_one_idempotency_key_alike(purgeable_events, alice, bob, api):
    game = _new_game(alice, alice, bob)
    notation = _legal(game, 0)[0]["notation"]
    api(alice)  # creates the token before the threads start
    token = f"Token {Token.objects.get(user=alice).key}"

    def post(i):
        from rest_framework.test import APIClient

        c = APIClient()
        c.credentials(HTTP_AUTHORIZATION=token)
        r = c.post(f"/api/games/{game.pk}/actions/", {"notation": notation}, format="json", HTTP_IDEMPOTENCY_KEY="tab-42")
        body = r.json()
        return r.status_code, body.get("version"), tuple(e["seq"] for e in body.get("events", []))

    results = run_together(8, post)

    assert not unexpected(results), "\n".join(unexpected(results))
    assert {status for status, _, _ in results} == {201}, results
    assert len({(v, seqs) for _, v, seqs in results}) == 1, results
    assert Event.objects.filter(game=game, idempotency_key="tab-42").count() == 1


def test_it_answers_409_with_the_current_version_to_the_losers_over_http(purgeable_events, alice, bob, api):
    game = _new_game(alice, alice, bob)
    version = game.version
    notation = _legal(game, 0)[0]["notation"]
    api(alice)  # creates the token
    token = f"Token {Token.objects.get(user=alice).key}"

    def post(i):
        from rest_framework.test import APIClient

        c = APIClient()
        c.credentials(HTTP_AUTHORIZATION=token)
        r = c.post(f"/api/games/{game.pk}/actions/", {"notation": notation, "expected_version": version}, format="json")
        return r.status_code, r.json()

    results = run_together(8, post)

    assert not unexpected(results), "\n".join(unexpected(results))
    statuses = sorted(s for s, _ in results)
    assert statuses == [201] + [409] * 7, results
    game.refresh_from_db()
    for status, body in results:
        if status == 409:
            assert body.get("error") and body.get("detail"), body
            assert str(game.version) in repr(body), body


# ------------------------------------------------------------------ append-only


@pytest.fixture
def stored(db, alice, bob):
    game = _new_game(alice, alice, bob)
    services.act(game.pk, 0, action=_legal(game, 0)[0]["action"])
    game.refresh_from_db()
    assert game.version >= 2
    return game


def _refused_by_the_database(sql, params):
    with pytest.raises(DatabaseError) as caught:
        with transaction.atomic(), connection.cursor() as cursor:  # a savepoint: PostgreSQL goes on after
            cursor.execute(sql, params)
    assert "append-only" in str(caught.value), caught.value
    return caught.value


@pytest.mark.django_db
def test_it_has_the_database_refuse_raw_updates_of_events(stored):
    before = _event_rows(stored)
    data_before = list(Event.objects.filter(game=stored).order_by("seq").values_list("data", flat=True))
    _refused_by_the_database("UPDATE games_event SET type = %s WHERE game_id = %s", ["forged", stored.pk])
    _refused_by_the_database("UPDATE games_event SET data = %s WHERE game_id = %s AND seq = 1", ['{"forged": true}', stored.pk])
    _refused_by_the_database("UPDATE games_event SET seq = seq + 1000 WHERE game_id = %s", [stored.pk])
    assert _event_rows(stored) == before
    assert list(Event.objects.filter(game=stored).order_by("seq").values_list("data", flat=True)) == data_before


@pytest.mark.django_db
def test_it_has_the_database_refuse_raw_deletes_of_events(stored):
    before = _event_rows(stored)
    _refused_by_the_database("DELETE FROM games_event WHERE game_id = %s AND seq = %s", [stored.pk, stored.version])
    _refused_by_the_database("DELETE FROM games_event WHERE game_id = %s", [stored.pk])
    _refused_by_the_database("DELETE FROM games_event WHERE 1 = %s", [1])
    assert _event_rows(stored) == before


@pytest.mark.django_db
def test_it_raises_an_error_django_maps_to_its_own_exceptions(stored):
    """Callers catch Django's exceptions, not a driver's: the refusal is a DatabaseError
    (IntegrityError on SQLite, a raised exception on PostgreSQL)."""
    err = _refused_by_the_database("DELETE FROM games_event WHERE game_id = %s", [stored.pk])
    assert isinstance(err, DatabaseError)
    if connection.vendor == "sqlite":
        assert isinstance(err, IntegrityError)


@pytest.mark.django_db
def test_it_has_the_database_refuse_a_queryset_that_bypasses_the_model_guard(stored):
    """Even code that builds a plain QuerySet (skipping AppendOnlyQuerySet's guard) cannot change
    history: the trigger is the last line."""
    before = _event_rows(stored)
    with pytest.raises(DatabaseError, match="append-only"), transaction.atomic():
        QuerySet(model=Event).filter(game=stored).update(type="forged")
    with pytest.raises(DatabaseError, match="append-only"), transaction.atomic():
        QuerySet(model=Event).filter(game=stored).delete()  # a plain DELETE: nothing cascades from events
    assert _event_rows(stored) == before


@pytest.mark.django_db
def test_it_has_the_model_and_queryset_refuse_updates_and_deletes(stored):
    before = _event_rows(stored)
    event = Event.objects.filter(game=stored).order_by("seq").first()
    event.type = "forged"
    with pytest.raises(AppendOnly):
        event.save()
    with pytest.raises(AppendOnly):
        event.delete()
    with pytest.raises(AppendOnly):
        Event.objects.filter(game=stored).update(type="forged")
    with pytest.raises(AppendOnly):
        Event.objects.filter(game=stored).delete()
    with pytest.raises(AppendOnly):
        Event.objects.all().delete()
    with pytest.raises(AppendOnly), transaction.atomic():  # bulk_update runs inside its own atomic
        Event.objects.bulk_update([event], ["type"])
    with pytest.raises(AppendOnly):
        stored.events.all().update(type="forged")
    assert _event_rows(stored) == before


@pytest.mark.django_db
def test_it_does_not_let_deleting_a_game_take_its_history_along(stored):
    from django.db.models import ProtectedError

    with pytest.raises((ProtectedError, AppendOnly, DatabaseError)), transaction.atomic():
        Game.objects.filter(pk=stored.pk).delete()
    assert Game.objects.filter(pk=stored.pk).exists()
    assert Event.objects.filter(game=stored).count() == stored.version
