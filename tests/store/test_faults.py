"""What the store hands out and what it writes, when other code and other writers meddle:
the state cache copies, the game row's compare-and-set, rebuild_projections during play."""

from __future__ import annotations

import threading

import pytest
from django.db import connections

from games import projections, services
from games.engine import replay
from games.models import Event, Game
from games.registry import get
from games.store import VersionConflict, load_state, states
from tests.play import accepted, step


def a_game(alice, bob, moves=6):
    game = accepted(services.create_game(creator=alice, kind="knonsters", seats=[{"user": "alice"}, {"user": "bob"}], per_move=None))
    for _ in range(moves):
        step(game)
    game.refresh_from_db()
    return game


def fresh(game, upto):
    rows = Event.objects.filter(game=game, seq__lte=upto).order_by("seq").values_list("type", "data")
    return replay(get(game.kind).rules, ({"type": t, "data": d} for t, d in rows), {})


@pytest.mark.django_db
def test_it_replays_the_state_asked_for_even_after_the_caller_changed_what_it_got(alice, bob, django_capture_on_commit_callbacks):
    game = a_game(alice, bob)
    states.clear()
    rules = get(game.kind).rules
    with django_capture_on_commit_callbacks(execute=True):
        old = load_state(game, upto=3)
        # what a move or a replay does next: evolve it in place, before the commit
        for row in Event.objects.filter(game=game, seq__gt=3).order_by("seq"):
            old = rules.evolve(old, {"type": row.type, "data": row.data})
        old.clear()
    assert load_state(game, upto=3) == fresh(game, 3)
    again = load_state(game, upto=3)  # from the cache now
    again["meddled"] = True
    assert load_state(game, upto=3) == fresh(game, 3)


@pytest.mark.django_db
def test_it_never_overwrites_a_game_row_another_writer_changed(alice, bob, monkeypatch):
    """Between reading the game and writing its row, another writer (rebuild_projections, an
    admin) changed the row: the move is refused, not written over it."""
    import kinplay.clocks.scheduling as clocks

    game = a_game(alice, bob, moves=0)
    events = Event.objects.filter(game=game).count()
    real = clocks.reschedule

    def meanwhile(g, *args, **kwargs):
        Game.objects.filter(pk=g.pk).update(version=g.version + 7)  # the other writer
        return real(g, *args, **kwargs)

    monkeypatch.setattr(clocks, "reschedule", meanwhile)
    seat = game.to_act[0]
    from tests.play import bot_action

    with pytest.raises(VersionConflict):
        services.act(game.pk, seat, action=bot_action(game, seat), expected_version=game.version)
    assert Event.objects.filter(game=game).count() == events


@pytest.mark.django_db(transaction=True)
def test_it_never_writes_a_stale_game_row_when_projections_are_rebuilt_during_play(alice, bob, monkeypatch, purgeable_events):
    game = a_game(alice, bob, moves=2)
    read_the_stream, moved = threading.Event(), threading.Event()
    real_bulk_create = projections.Snapshot.objects.bulk_create

    def pause_after_reading(*args, **kwargs):
        read_the_stream.set()
        moved.wait(timeout=3)  # a move lands now, unless the rebuild holds it off
        return real_bulk_create(*args, **kwargs)

    monkeypatch.setattr(projections.Snapshot.objects, "bulk_create", pause_after_reading)

    def rebuild():
        try:
            projections.rebuild(Game.objects.get(pk=game.pk))
        finally:
            connections.close_all()

    def move():
        try:
            read_the_stream.wait(timeout=10)
            step(Game.objects.get(pk=game.pk))
            moved.set()
        finally:
            connections.close_all()

    threads = [threading.Thread(target=rebuild), threading.Thread(target=move)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    game.refresh_from_db()
    assert game.version == Event.objects.filter(game=game).count()
    step(game)  # and play goes on


def _deadlock():
    from django.db import OperationalError

    class DeadlockDetected(Exception):
        sqlstate = "40P01"

    error = OperationalError("deadlock detected")
    error.__cause__ = DeadlockDetected("deadlock detected")
    return error


@pytest.mark.django_db(transaction=True)
def test_it_plays_a_move_that_lost_a_deadlock_to_a_deadline_sweep(alice, bob, monkeypatch, purgeable_events):
    """PostgreSQL picks the move as the victim of a deadlock with a sweep: the player gets
    their move played on the fresh state (or a 409 when they named the version), not a 500."""
    from tests.play import bot_action

    game = a_game(alice, bob, moves=0)
    real, raised = services._act_on, []

    def once_a_victim(*args, **kwargs):
        if not raised:
            raised.append(True)
            raise _deadlock()
        return real(*args, **kwargs)

    monkeypatch.setattr(services, "_act_on", once_a_victim)
    seat = game.to_act[0]
    with pytest.raises(VersionConflict):
        services.act(game.pk, seat, action=bot_action(game, seat), expected_version=game.version)
    raised.clear()
    outcome = services.act(game.pk, seat, action=bot_action(game, seat))
    assert raised and outcome.events and outcome.seat == seat
