"""kinplay.infra.sql, the plain statements of the hot path: they must read and write exactly what
the ORM would, on SQLite and on PostgreSQL (CI runs this file on both)."""

from datetime import UTC, datetime

import pytest
from django.db import connection

from games.models import Event, Game
from kinplay.infra import sql

pytestmark = pytest.mark.django_db

FIELDS = ("kind", "options", "status", "version", "rated", "deadline", "to_act", "result", "created_by")


def _game(alice, **fields):
    return Game.objects.create(kind="kenta", seed="s" * 64, seed_sha256="h" * 64, created_by=alice, **fields)


def test_it_loads_an_instance_from_a_plain_row_as_the_orm_does(alice):
    when = datetime(2026, 11, 24, 12, 0, tzinfo=UTC)
    game = _game(alice, options={"turn_limit": 40, "names": ["ä", None]}, rated=False, deadline=when,
                 to_act=[1, 0], result={"winners": [1]})
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT {sql.columns(Game, FIELDS)} FROM {connection.ops.quote_name(Game._meta.db_table)} "
                       "WHERE id = %s", [game.pk])
        row = cursor.fetchone()
    loaded = sql.instance(Game, FIELDS, row)
    orm = Game.objects.get(pk=game.pk)
    for name in FIELDS:
        attname = Game._meta.get_field(name).attname
        assert getattr(loaded, attname) == getattr(orm, attname), name
    assert loaded.rated is False and loaded.deadline == when and loaded.options["names"] == ["ä", None]
    assert loaded.created_by == alice  # a field it did not load, fetched on first use


def test_it_makes_the_instance_model_from_db_makes(alice):
    """sql.from_db skips Model.__init__: the same attributes, state and deferred fields."""
    user_fields = ["id", "username", "email"]  # a partial row: the other fields deferred
    for model, attnames, values in ((Game, [f.attname for f in Game._meta.concrete_fields], None),
                                    (type(alice), user_fields, [alice.pk, alice.username, alice.email])):
        values = values or [getattr(_game(alice), name) for name in attnames]
        ours, django = sql.from_db(model, "default", attnames, values), model.from_db("default", attnames, values)
        assert type(ours) is model
        assert {k: v for k, v in vars(ours).items() if k != "_state"} == {k: v for k, v in vars(django).items() if k != "_state"}
        assert (ours._state.adding, ours._state.db) == (django._state.adding, django._state.db) == (False, "default")
        assert ours.get_deferred_fields() == django.get_deferred_fields()
        assert ours._state.fields_cache == {} and ours._state is not django._state


def test_it_makes_instances_through_django_when_someone_listens_to_model_init(alice):
    from django.db.models.signals import post_init

    seen = []

    def listener(sender, instance, **kwargs):
        seen.append(instance)

    post_init.connect(listener, sender=Game)
    try:
        game = sql.from_db(Game, "default", ["id", "kind"], [1, "kenta"])
    finally:
        post_init.disconnect(listener, sender=Game)
    assert seen == [game]


def test_it_inserts_several_rows_in_one_statement_that_the_orm_reads_back(alice):
    game = _game(alice)
    at = datetime(2026, 11, 24, 12, 0, tzinfo=UTC)
    rows = [Event(game=game, seq=i, type="rolled", data={"dice": [i, 6]}, seat=i % 2, at=at) for i in (1, 2, 3)]
    sql.insert(Event, rows, ("game", "seq", "type", "data", "seat", "at"))
    stored = list(Event.objects.filter(game=game).order_by("seq").values_list("seq", "data", "seat", "at"))
    assert stored == [(1, {"dice": [1, 6]}, 1, at), (2, {"dice": [2, 6]}, 0, at), (3, {"dice": [3, 6]}, 1, at)]


def test_it_inserts_every_kind_of_value_as_the_orm_would(alice):
    """Each field of an event, a missing one as SQL NULL (PostgreSQL gets the rows as one JSON
    value it unpacks: a JSON null must not land as a JSON null in a JSON column)."""
    game = _game(alice)
    at = datetime(2026, 11, 24, 12, 0, 1, 250, tzinfo=UTC)
    fields = ("game", "seq", "type", "data", "seat", "at", "idempotency_key", "command", "schema_version")
    sql.insert(Event, [Event(game=game, seq=1, type="moved", data={"to": [1, 2], 3: "ä"}, seat=0, at=at,
                             idempotency_key="k", command={"seat": 0, "action": {"type": "pass"}}, schema_version=2),
                       Event(game=game, seq=2, type="ended", data={}, seat=None, at=at)], fields)
    stored = list(Event.objects.filter(game=game).order_by("seq").values_list(*fields[1:]))
    assert stored == [(1, "moved", {"to": [1, 2], "3": "ä"}, 0, at, "k", {"seat": 0, "action": {"type": "pass"}}, 2),
                      (2, "ended", {}, None, at, None, None, None)]
    assert Event.objects.filter(game=game, command__isnull=True).count() == 1


def test_it_writes_only_when_the_row_still_holds_the_expected_values(alice):
    game = _game(alice, version=4)
    game.version, game.to_act = 5, [1]
    assert sql.update_if(game, ["version", "to_act"], {"version": 4}) is True
    stale = Game.objects.get(pk=game.pk)
    stale.version, stale.to_act = 6, [0]
    assert sql.update_if(stale, ["version", "to_act"], {"version": 4}) is False  # someone else moved first
    fresh = Game.objects.get(pk=game.pk)
    assert (fresh.version, fresh.to_act) == (5, [1])


def test_it_adapts_each_value_as_the_orm_would(alice):
    """sql.insert's adapters, chosen once per field, against each field's get_db_prep_save."""
    import json

    from kinplay.ratings.models import Rating

    def plain(value):  # a psycopg Jsonb wrapper holds the object; SQLite gets the JSON text
        value = getattr(value, "obj", value)
        return json.loads(value) if isinstance(value, str) and value[:1] in "{[" else value

    game = _game(alice)
    rows = [Event(game=game, seq=1, type="moved", data={"to": [1, 2], 3: "x"}, seat=0, at=datetime(2026, 1, 2, tzinfo=UTC),
                  idempotency_key="k", command={"seat": 0}, schema_version=2),
            Event(game=game, seq=2, type="ended", data={}, seat=None, at=datetime(2026, 1, 2, tzinfo=UTC),
                  idempotency_key=None, command=None, schema_version=None),
            Rating(id=7, user=alice, kind="kenta")]
    for row in rows:
        fields = tuple(f.name for f in type(row)._meta.concrete_fields)
        for (attname, write), name in zip(sql._writers(type(row), fields, "default"), fields, strict=True):
            orm = type(row)._meta.get_field(name).get_db_prep_save(getattr(row, attname), connection)
            mine = write(getattr(row, attname))
            assert type(mine) is type(orm) and plain(mine) == plain(orm), (name, mine, orm)


def test_it_builds_an_event_the_store_adds_as_the_model_would(alice):
    """games.store._new_event builds rows through sql.unsaved, without Model.__init__."""
    from games.store import _new_event

    game = _game(alice)
    values = dict(seq=3, type="rolled", data={"dice": [1]}, seat=0, idempotency_key="k", command={"seat": 0},
                  schema_version=1)
    ours, django = _new_event(game, **values), Event(game=game, **values)
    assert {k: v for k, v in vars(ours).items() if k != "_state"} == {k: v for k, v in vars(django).items() if k != "_state"}
    assert ours._state.adding and django._state.adding  # not saved; the database is chosen when it is (sql.insert)
    assert ours.game is game and ours.pk is None
    with pytest.raises(KeyError):
        sql.unsaved(Event, {"seq": 1})  # every field given, or none is made


def test_it_looks_a_row_up_as_the_orm_does_and_reads_it_as_it_is_now(alice):
    from django.contrib.auth import get_user_model
    from rest_framework.authtoken.models import Token

    key = Token.objects.create(user=alice).key
    fields = ("id", "username", "is_active")
    found = sql.one(get_user_model(), fields, "auth_token__key", key)
    assert (found.pk, found.username, found.is_active) == (alice.pk, "alice", True) and found.email == alice.email
    get_user_model().objects.filter(pk=alice.pk).update(is_active=False)
    assert sql.one(get_user_model(), fields, "auth_token__key", key).is_active is False  # compiled once, read anew
    assert sql.one(get_user_model(), fields, "auth_token__key", "no such key") is None


def test_it_refuses_a_lookup_that_changes_its_value():
    from django.contrib.auth import get_user_model

    with pytest.raises(ValueError):
        sql.one(get_user_model(), ("id",), "username__icontains", "ali")
