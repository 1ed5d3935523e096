"""Event schema versions, upcasting on read, and snapshots an older engine built (games.schema)."""

import io
import types

import pytest
from django.core.management import CommandError, call_command

from games import projections, schema, selectors, services
from games.engine import canonical, event, replay
from games.models import Event, Game, Snapshot
from games.registry import get
from games.store import load_state, states
from tests.play import accepted, finish, step
from tests.web import tinygame

pytestmark = pytest.mark.django_db


class _Kind:
    """The tiny test game, with rules an engineer can change mid-test (as a deploy would)."""

    def __init__(self):
        self.slug, self.name, self.render = "tiny", "Tiny", tinygame.render
        self.rules = types.SimpleNamespace(**{k: v for k, v in vars(tinygame).items() if not k.startswith("__")})
        self.bots = self.rules

    def bot(self, name):
        return tinygame.random_bot


@pytest.fixture
def tiny():
    from games import registry

    kind = _Kind()
    registry.kinds()["tiny"] = kind
    yield kind
    registry.kinds().pop("tiny", None)


def _v2(rules):
    """Version 2 of "played": the card is now called "value" (and evolve only reads that)."""
    old_evolve, old_decide = tinygame.evolve, tinygame.decide

    def evolve(state, e):
        if e["type"] == "played":
            assert "card" not in e["data"], "evolve was handed a version 1 event"
            e = event("played", seat=e["data"]["seat"], card=e["data"]["value"])
        return old_evolve(state, e)

    def decide(state, seat, action, rng):
        return [event("played", seat=e["data"]["seat"], value=e["data"]["card"]) if e["type"] == "played" else e
                for e in old_decide(state, seat, action, rng)]

    rules.EVENT_VERSIONS = {"played": 2}
    rules.upcast_played_v1_v2 = lambda data: {"seat": data["seat"], "value": data["card"]}
    rules.evolve, rules.decide = evolve, decide


def _game(alice, cards=3):
    return accepted(services.create_game(creator=alice, kind="tiny", per_move=None, options={"cards": cards},
                                         seats=[{"user": "alice"}, {"user": "bob"}]))


def test_it_reads_events_stored_before_a_change_of_shape_in_the_new_shape(tiny, alice, bob):
    game = _game(alice)
    step(game)
    step(game)
    game.refresh_from_db()
    before = load_state(game)
    assert set(Event.objects.filter(game=game).values_list("schema_version", flat=True)) == {1}

    _v2(tiny.rules)
    states.clear()
    assert canonical(load_state(game, cached=False)) == canonical(before)
    played = [e for e in selectors.redacted_events(game, 0) if e["type"] == "played"]
    assert len(played) == 2 and all(set(e["data"]) == {"seat", "value"} for e in played)

    step(game)  # a move under the new rules is stored at version 2, the old rows stay as they were
    rows = list(Event.objects.filter(game=game, type="played").order_by("seq").values_list("schema_version", "data"))
    assert [v for v, _ in rows] == [1, 1, 2]
    assert "card" in rows[0][1] and "value" in rows[2][1]
    game.refresh_from_db()
    assert canonical(load_state(game, cached=False)) == canonical(load_state(game))


def test_it_reads_events_stored_before_versions_existed_as_version_1(tiny, alice, bob):
    rules = tiny.rules
    _v2(rules)
    assert schema.upcast(rules, "played", {"seat": 1, "card": 7}, None) == event("played", seat=1, value=7)
    assert schema.upcast(rules, "played", {"seat": 1, "value": 7}, 2) == event("played", seat=1, value=7)
    assert schema.upcast(rules, "dealt", {"hands": []}, None) == event("dealt", hands=[])


def test_it_names_the_upcasting_steps_an_engine_forgot():
    rules = types.SimpleNamespace(EVENT_VERSIONS={"played": 3, "dealt": 1}, upcast_played_v1_v2=lambda d: d)
    assert schema.missing_upcasters(rules) == ["upcast_played_v2_v3"]


def test_it_ignores_snapshots_an_older_engine_built_and_rebuilds_them(tiny, alice, bob, settings):
    settings.SNAPSHOT_EVERY = 2
    game = _game(alice, cards=4)
    for _ in range(4):
        step(game)
    game.refresh_from_db()
    snap = Snapshot.objects.filter(game=game).order_by("seq").last()
    assert snap.rules_version == 1
    Snapshot.objects.filter(pk=snap.pk).update(state={"built": "by the old engine"})
    states.clear()
    assert load_state(game, snap.seq, cached=False) == {"built": "by the old engine"}  # still trusted

    tiny.rules.RULES_VERSION = 2  # the engine changed what evolve builds
    events = [e.as_rules_event(tiny.rules) for e in Event.objects.filter(game=game, seq__lte=snap.seq)]
    replayed = canonical(replay(tiny.rules, events))
    assert canonical(load_state(game, snap.seq, cached=False)) == replayed

    projections.rebuild(game)
    assert set(Snapshot.objects.filter(game=game).values_list("rules_version", flat=True)) == {2}
    assert canonical(Snapshot.objects.get(game=game, seq=snap.seq).state) == replayed


def test_it_rebuilds_the_snapshots_and_game_row_the_moves_wrote(alice, bob, settings):
    settings.SNAPSHOT_EVERY = 5
    game = finish(accepted(services.create_game(  # Karenza: many commands write several events
        creator=alice, kind="karenza", per_move=None, seats=[{"user": "alice"}, {"user": "bob"}])))
    snapshots = list(Snapshot.objects.filter(game=game).order_by("seq").values_list("seq", "state"))
    row = Game.objects.values("version", "status", "to_act", "result").get(pk=game.pk)
    assert any(seq % 5 for seq, _ in snapshots), "no command crossed a multiple of 5 mid-way: the test proves nothing"

    Game.objects.filter(pk=game.pk).update(status=Game.ACTIVE, to_act=[0], result=None)
    projections.rebuild(Game.objects.get(pk=game.pk))

    assert list(Snapshot.objects.filter(game=game).order_by("seq").values_list("seq", "state")) == snapshots
    assert Game.objects.values("version", "status", "to_act", "result").get(pk=game.pk) == row
    assert get(game.kind).rules.result(load_state(game, cached=False)) == row["result"]


def _announcing(rules):
    """Version 2 of the tiny game's rules: a played card is announced (the same move now
    decides other events; evolve reads them as before)."""
    old_decide = tinygame.decide

    def decide(state, seat, action, rng):
        return [event("played", **e["data"], announced=True) if e["type"] == "played" else e
                for e in old_decide(state, seat, action, rng)]

    rules.RULES_VERSION, rules.decide = 2, decide


def _verify(game):
    out = io.StringIO()
    call_command("verify_game", game.pk, stdout=out)
    return out.getvalue()


def test_it_verifies_a_game_played_before_a_rules_change_and_says_what_it_could_not_prove(tiny, alice, bob, settings):
    settings.SNAPSHOT_EVERY = 2
    game = _game(alice, cards=3)
    step(game)
    step(game)  # the deal and two cards under version 1
    _announcing(tiny.rules)  # a deploy changes the rules mid-game
    states.clear()
    game = finish(game)
    commands = Event.objects.filter(game=game, command__isnull=False).order_by("seq").values_list("command", flat=True)
    assert [c["rules"] for c in commands] == [1, 1, 1, 2, 2, 2, 2]

    out = _verify(game)
    assert "played under rules versions 1 and 2; today's rules are version 2" in out
    assert "3 command(s) decided under older rules, 2 of them give other events today" in out
    assert "1 snapshot(s) built under another rules version skipped" in out
    assert f"OK: game {game.pk}, 7 events (re-derived from the revealed seed: 5 of 7 commands" in out
    assert "MISMATCH" not in out


def test_it_still_calls_a_difference_under_todays_rules_a_mismatch(tiny, alice, bob):
    game = finish(_game(alice))
    assert "Note" not in _verify(game)
    old_result = tiny.rules.result
    tiny.rules.result = lambda state: old_result(state) and {**old_result(state), "winners": []}  # scoring changed

    with pytest.raises(CommandError, match=r"the game row \(to_act/result\) differs from the replay"):
        _verify(game)  # the engine changed without saying so: the read model is wrong for today's rules

    tiny.rules.RULES_VERSION = 2  # said so: the game was played under version 1
    out = _verify(game)
    assert "played under rules version 1; today's rules are version 2" in out
    assert "differs from the replay with today's rules: expected" in out
    assert "every roll and shuffle still re-derived" in out
    assert "OK: game" in out and "(every roll and shuffle re-derived from the revealed seed)" in out


def test_it_reads_an_engines_constants_without_asking_for_missing_ones():
    # getattr's default would raise and drop an AttributeError for each one left out: a
    # microsecond, eight times a move
    class Engine(types.SimpleNamespace):
        def __getattr__(self, name):
            raise AssertionError(f"{name} asked for past the engine's own attributes")

    rules = Engine(EVENT_VERSIONS={"played": 2}, upcast_played_v1_v2=lambda d: {**d, "v": 2})
    assert schema.upcast(rules, "played", {}, None) == event("played", v=2)
    assert schema.current_version(rules, "dealt") == 1 and schema.rules_version(rules) == 1
    assert schema.current_version(Engine(), "played") == 1
