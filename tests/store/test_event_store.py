import pytest
from django.core.management import CommandError, call_command

from games import services
from games.engine import canonical, replay
from games.models import AppendOnly, Event, Game, Snapshot
from games.registry import get
from games.store import load_state, load_states
from tests.play import accepted, finish

pytestmark = pytest.mark.django_db


@pytest.fixture
def played(alice, bob, charlie, settings):
    settings.SNAPSHOT_EVERY = 5
    game = accepted(services.create_game(
        creator=alice, kind="knonsters", per_move=None,
        seats=[{"user": "alice"}, {"user": "bob"}, {"user": "charlie"}],
    ))
    return finish(game)


def test_it_numbers_events_without_gaps_and_snapshots_agree_with_replay(played):
    seqs = list(Event.objects.filter(game=played).values_list("seq", flat=True))
    assert seqs == list(range(1, played.version + 1))
    rules = get(played.kind).rules
    events = [e.as_rules_event() for e in Event.objects.filter(game=played)]
    assert Snapshot.objects.filter(game=played).exists()
    for snap in Snapshot.objects.filter(game=played):
        assert canonical(snap.state) == canonical(replay(rules, events[: snap.seq]))
    assert canonical(load_state(played)) == canonical(replay(rules, events))


def test_it_refuses_to_change_history_through_the_model(played):
    event = Event.objects.filter(game=played).first()
    event.data = {"forged": True}
    with pytest.raises(AppendOnly):
        event.save()
    with pytest.raises(AppendOnly):
        event.delete()
    with pytest.raises(AppendOnly):
        Event.objects.filter(game=played).update(type="forged")


def test_it_verifies_a_finished_game_down_to_the_dice(played, capsys):
    call_command("verify_game", played.pk)
    assert "OK" in capsys.readouterr().out


def test_it_reports_the_first_mismatch(played):
    snap = Snapshot.objects.filter(game=played).first()
    snap.state = {"forged": True}
    snap.save()
    with pytest.raises(CommandError, match=f"snapshot at seq {snap.seq}"):
        call_command("verify_game", played.pk)


def test_it_notices_a_seed_that_does_not_match_the_history(played):
    Game.objects.filter(pk=played.pk).update(seed="f" * 64)
    with pytest.raises(CommandError, match="revealed seed"):
        call_command("verify_game", played.pk)


def test_it_rebuilds_read_models_from_the_streams(played, capsys):
    Game.objects.filter(pk=played.pk).update(version=1, status=Game.ACTIVE, result=None, to_act=[0])
    Snapshot.objects.filter(game=played).delete()
    call_command("rebuild_projections")
    game = Game.objects.get(pk=played.pk)
    assert game.version == played.version and game.status == Game.FINISHED and game.result == played.result
    assert Snapshot.objects.filter(game=played).exists()
    call_command("verify_game", played.pk)


def test_it_loads_many_games_states_together_as_one_at_a_time(played, alice, bob):
    # the lobby and the API list load their games' states together (store.load_states)
    fresh = accepted(services.create_game(creator=alice, kind="kenta", per_move=None,
                                          seats=[{"user": "alice"}, {"user": "bob"}]))
    games = [Game.objects.get(pk=played.pk), fresh]
    assert Snapshot.objects.filter(game=played).exists() and not Snapshot.objects.filter(game=fresh).exists()
    together = load_states(games)
    assert {pk: canonical(s) for pk, s in together.items()} == {g.pk: canonical(load_state(g, cached=False)) for g in games}


def test_it_loads_the_states_of_more_games_than_one_sqlite_statement_takes(db):
    # an API page of games or a long lobby: SQLite refuses a WHERE of about 1,000 games' ORs
    games = [Game(pk=10**6 + i, kind="kenta", version=3) for i in range(1_200)]
    assert set(load_states(games)) == {g.pk for g in games}


def test_it_snapshots_a_game_dealt_past_a_snapshot_in_its_creation(alice, settings):
    """A game gets its id after its setup events and their snapshot were added: the snapshot
    is stored with it, and agrees with a replay."""
    settings.SNAPSHOT_EVERY = 1
    game = services.create_game(creator=alice, kind="knonsters", per_move=None, seats=[{"user": "alice"}, {"bot": "random"}])
    rules = get(game.kind).rules
    events = [e.as_rules_event() for e in Event.objects.filter(game=game)]
    snaps = list(Snapshot.objects.filter(game=game))
    assert snaps and snaps[-1].seq <= game.version
    for snap in snaps:
        assert canonical(snap.state) == canonical(replay(rules, events[:snap.seq]))
