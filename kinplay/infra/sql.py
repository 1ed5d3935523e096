"""Plain statements for the few queries every move makes, with each field's own conversions.

Building a query costs the ORM several times what running it costs the database, and a
move makes a few; these do without the query builder. games.store and the token check
(api.authentication, through ``one``) are their users (an import-linter contract); everything
else uses the ORM. They build instances as Django's
``from_db`` would, without ``Model.__init__`` (``from_db``, ``unsaved``): Django internals,
hence here, behind the fence (tests/infra/test_private_names.py).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from functools import cache, lru_cache, partial
from typing import Any

import orjson
from django.db import connections
from django.db.models import Model
from django.db.models.base import ModelState
from django.db.models.signals import post_init, pre_init
from psycopg.types.json import Jsonb

from kinplay.infra.postgres.base import DatabaseWrapper


def _column(conn, model, name) -> str:
    return conn.ops.quote_name(model._meta.get_field(name).column)


def columns(model, fields, prefix="", alias="default") -> str:
    """``fields`` of ``model`` as a SELECT list; ``prefix`` is a table alias and a dot."""
    conn = connections[alias]
    return ", ".join(prefix + _column(conn, model, f) for f in fields)


@cache
def _converters(model, fields: tuple, alias: str):
    """What the ORM applies to each column it reads (an SQLite boolean arrives as 0 or 1,
    a PostgreSQL jsonb as text...); it depends only on the model and the database."""
    conn = connections[alias]
    out = []
    for name in fields:
        field = model._meta.get_field(name)
        out.append((field, conn.ops.get_db_converters(field.get_col(model._meta.db_table)) + field.get_db_converters(conn)))
    return out


@cache
def _model_order(model, fields: tuple) -> tuple[list[int], list[str]]:
    """``Model.from_db`` takes a partial row in the model's field order: the positions of
    ``fields`` in that order, and their attribute names."""
    rank = {f.name: i for i, f in enumerate(model._meta.concrete_fields)}
    order = sorted(range(len(fields)), key=lambda i: rank[model._meta.get_field(fields[i]).name])
    return order, [model._meta.get_field(fields[i]).attname for i in order]


def json_value(value):
    """A JSON column read with a plain cursor: text from SQLite (and PostgreSQL's jsonb, as
    Django sets psycopg up), already decoded from PostgreSQL's json."""
    return json.loads(value) if isinstance(value, (str, bytes)) else value


def instance(model, fields: tuple, values, alias="default"):
    """A model instance from one row of ``fields``, as the ORM would load it (other fields
    load on first use)."""
    conn = connections[alias]
    loaded = []
    for value, (field, converters) in zip(values, _converters(model, fields, alias)):
        for convert in converters:
            value = convert(value, field, conn)
        loaded.append(value)
    order, attnames = _model_order(model, tuple(fields))
    return from_db(model, alias, attnames, [loaded[i] for i in order])


# Stands for the looked-up value while the ORM compiles a lookup (``one``).
_LOOKED_UP = "kinplay.infra.sql: the value looked up"


@cache
def _lookup_sql(model, fields: tuple, lookup: str, alias: str) -> tuple[str, list, int]:
    """The ORM's own statement for ``one``, compiled once: its SQL, its parameters and the
    position of the looked-up value among them."""
    query = model._default_manager.using(alias).filter(**{lookup: _LOOKED_UP}).values_list(*fields)[:1].query
    sql, params = query.get_compiler(alias).as_sql()
    params = list(params)
    if params.count(_LOOKED_UP) != 1:  # a lookup that transforms its value (icontains...) cannot be reused
        raise ValueError(f"{lookup} is not an exact lookup")
    return sql, params, params.index(_LOOKED_UP)


def one(model, fields: tuple, lookup: str, value, alias="default"):
    """``model.objects.only(*fields).filter(**{lookup: value}).first()``: the same statement,
    built by the ORM once per process rather than on every call (building it costs several
    times what the database takes to run it); each call runs it with its own value and reads
    the row as it is now. An exact lookup only (ValueError otherwise)."""
    sql, params = lookup_statement(model, fields, lookup, value, alias)
    with connections[alias].cursor() as cursor:
        cursor.execute(sql, params)
        row = cursor.fetchone()
    return None if row is None else instance(model, fields, row, alias)


def lookup_statement(model, fields: tuple, lookup: str, value, alias="default") -> tuple[str, list]:
    """``one``'s statement and parameters, for a caller that sends it along with another
    (games.store.game_with_seats_after); ``instance`` reads its row."""
    sql, params, at = _lookup_sql(model, fields, lookup, alias)
    params = params.copy()
    params[at] = value
    return sql, params


def from_db(model, alias: str, attnames, values):
    """``model.from_db(alias, attnames, values)`` (``attnames`` in the model's field order, as
    there), at about a third of the CPU: the instance is made as unpickling makes one
    (``Model.__reduce__``: ``__new__``, then its attributes), not through ``Model.__init__``,
    which walks every field (the deferred ones too) and sends pre_init and post_init. That is the
    same instance only while nobody listens to those signals and the model keeps Django's
    ``__init__`` and ``from_db`` (``_bare``); otherwise Django's own way."""
    if not _bare(model):
        return model.from_db(alias, attnames, values)
    new = model.__new__(model)
    new.__dict__.update(zip(attnames, values))  # a deferred field is one not in __dict__, as from_db leaves it
    new._state = state = ModelState()
    state.adding, state.db = False, alias
    return new


def unsaved(model, values: dict):
    """``model(**values)`` for every concrete field's attname, without Model.__init__ (as
    ``from_db``, and on the same conditions): an instance not yet saved."""
    if not _bare(model):
        return model(*[values[name] for name in attnames(model)])
    new = model.__new__(model)
    new.__dict__.update({name: values[name] for name in attnames(model)})  # a KeyError for a field not given
    new._state = ModelState()  # adding, no database: as __init__ leaves it
    return new


def _bare(model) -> bool:
    """Whether an instance made without Model.__init__ is the one Django would make."""
    return not (pre_init.receivers or post_init.receivers) and _plain(model)


@cache
def attnames(model) -> tuple[str, ...]:
    """The attribute names of ``model``'s concrete fields, in its field order (as from_db takes values)."""
    return tuple(f.attname for f in model._meta.concrete_fields)


@cache
def _plain(model) -> bool:
    # vars(): Model's classmethod object itself (mypy types the bound form as a plain callable, without __func__)
    return model.__init__ is Model.__init__ and model.from_db.__func__ is vars(Model)["from_db"].__func__


@cache
def _writers(model, fields: tuple, alias: str):
    """For each field, its attribute and how its values are adapted for this database, chosen
    once: Django's ``get_db_prep_save`` walks several layers for every value, and a move
    writes some thirty. Numbers, times and JSON take the last step directly
    (JSON encoded with orjson); other fields keep ``get_db_prep_save``."""
    conn = connections[alias]
    out = []
    for name in fields:
        field = model._meta.get_field(name)
        kind = field.get_internal_type()
        write: Callable[[Any], Any]
        if kind in conn.ops.integer_field_ranges and not kind.endswith("AutoField"):  # primary keys: Django's way
            write = partial(conn.ops.adapt_integerfield_value, internal_type=kind)
        elif kind == "DateTimeField":  # aware times only (timezone.now()): no naive-time warning to give
            write = conn.ops.adapt_datetimefield_value
        elif kind == "JSONField" and field.encoder is None:
            write = _json_writer(conn.vendor)
        else:
            write = partial(field.get_db_prep_save, connection=conn)
        out.append((field.attname, write))
    return out


def _json_writer(vendor):
    def to_json(value):
        return orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS)

    if vendor == "postgresql":
        return lambda value: None if value is None else Jsonb(value, dumps=to_json)
    return lambda value: None if value is None else to_json(value).decode()


def insert(model, objs, fields, alias="default", *, on_conflict="") -> None:
    """INSERT ``objs`` (their ``fields``) in one statement; the objects get no primary key.
    ``on_conflict``: what to do with a row that breaks a unique constraint, the SQL after
    ON CONFLICT (PostgreSQL and SQLite spell it alike), e.g. "DO NOTHING". A fraction of
    ``bulk_create``'s CPU."""
    if objs:
        with connections[alias].cursor() as cursor:
            cursor.execute(*insert_statement(model, objs, fields, alias, on_conflict=on_conflict))


def insert_statement(model, objs, fields, alias="default", *, on_conflict="") -> tuple[str, list]:
    """``insert``'s statement and parameters.

    On PostgreSQL, rows of plain fields go as one JSON parameter that the server unpacks with
    the table's own column types (jsonb_populate_recordset): psycopg adapts one value instead
    of one per field and row, the costliest part of a move's INSERT."""
    fields = tuple(fields)
    recordset = _recordset(model, fields, alias, on_conflict)
    if recordset is not None:
        sql, keys = recordset
        return sql, [_json_rows(objs, keys)]
    conn = connections[alias]
    writers = _writers(model, fields, alias)
    row = "(" + ", ".join(["%s"] * len(writers)) + ")"
    sql = (f"INSERT INTO {conn.ops.quote_name(model._meta.db_table)} ({columns(model, fields, alias=alias)}) "
           f"VALUES {', '.join([row] * len(objs))}" + (f" ON CONFLICT {on_conflict}" if on_conflict else ""))
    return sql, [write(getattr(o, attname)) for o in objs for attname, write in writers]


def _insert_where_statement(model, objs, fields: tuple, where: str, params=(), alias="default") -> tuple[str, list]:
    """An INSERT of those of ``objs`` (their ``fields``) for which the SQL condition ``where``
    holds, on PostgreSQL when ``_recordset`` takes the fields: its statement and parameters."""
    return _insert_where_sql(model, fields, where, alias), [_json_rows(objs, _recordset(model, fields, alias, "")[1]), *params]


@lru_cache(maxsize=64)  # callers pass a few fixed conditions; an unforeseen variety stays bounded
def _insert_where_sql(model, fields: tuple, where: str, alias: str) -> str:
    """The statement alone, built once (quoting the columns again would cost every move)."""
    table = connections[alias].ops.quote_name(model._meta.db_table)
    return (f"INSERT INTO {table} ({columns(model, fields, alias=alias)}) SELECT {columns(model, fields, 'r.', alias)} "
            f"FROM jsonb_populate_recordset(NULL::{table}, %s) r WHERE {where}")


def _json_rows(objs, keys):
    """``objs`` as one JSON parameter for jsonb_populate_recordset: ``keys`` (attribute, column) of ``_recordset``."""
    return _json_writer("postgresql")([{column: getattr(o, attname) for attname, column in keys} for o in objs])


# Fields whose Python values are their JSON values for PostgreSQL (aware times as ISO 8601 text)
PLAIN = {"CharField", "TextField", "BooleanField", "DateTimeField", "JSONField", "IntegerField", "BigIntegerField",
         "SmallIntegerField", "PositiveIntegerField", "PositiveSmallIntegerField", "PositiveBigIntegerField",
         "AutoField", "BigAutoField"}


@cache
def _recordset(model, fields: tuple, alias: str, on_conflict: str):
    """On PostgreSQL, when every field is plain: the INSERT of rows given as one JSON value, and
    each field's attribute and column (the rows' keys). None otherwise."""
    def plain(field):
        if field.is_relation:
            return plain(field.target_field)
        return field.get_internal_type() in PLAIN and getattr(field, "encoder", None) is None

    conn = connections[alias]
    if conn.vendor != "postgresql" or not all(plain(model._meta.get_field(name)) for name in fields):
        return None
    table, cols = conn.ops.quote_name(model._meta.db_table), columns(model, fields, alias=alias)
    sql = (f"INSERT INTO {table} ({cols}) SELECT {cols} FROM jsonb_populate_recordset(NULL::{table}, %s)"
           + (f" ON CONFLICT {on_conflict}" if on_conflict else ""))
    return sql, [(f.attname, f.column) for f in map(model._meta.get_field, fields)]


def update_if(obj: Model, fields, expected: dict, alias="default", *, then: tuple | None = None, last=False) -> bool:
    """Write ``fields`` of ``obj`` to its row if the row still holds the ``expected`` values
    (a compare-and-set); False if it does not.

    ``then``: rows to INSERT only if the row was written, ``(model, objs, fields)``, in the
    same statement (PostgreSQL's data-modifying WITH; every field plain, ``_recordset``): one
    round trip instead of two, and a statement that writes all or nothing by itself. ``last``:
    no statement of the caller's transaction follows this one, so on PostgreSQL it may run as a
    transaction of its own (kinplay.infra.postgres ``execute_last``) when none came before it either."""
    model, fields, conn = type(obj), tuple(fields), connections[alias]
    sql = _update_sql(model, fields, tuple(expected), alias)
    params = [write(getattr(obj, attname)) for attname, write in _writers(model, fields, alias)]
    params += [obj.pk, *(write(value) for value, (_, write) in zip(expected.values(), _writers(model, tuple(expected), alias)))]
    if then is not None:
        then_model, objs, then_fields = then
        insert, insert_params = _insert_where_statement(then_model, objs, tuple(then_fields), "EXISTS (SELECT FROM written)",
                                                        alias=alias)
        sql, params = f"WITH written AS ({sql} RETURNING 1) {insert}", [*params, *insert_params]
    if last and isinstance(conn, DatabaseWrapper):  # settings gives the default alias this backend, not every PostgreSQL one
        return conn.execute_last(sql, params) > 0
    with conn.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.rowcount > 0


@cache
def _update_sql(model, fields: tuple, expected: tuple, alias: str) -> str:
    conn = connections[alias]
    sets = ", ".join(f"{_column(conn, model, f)} = %s" for f in fields)
    where = " AND ".join([f"{conn.ops.quote_name(model._meta.pk.column)} = %s", *(f"{_column(conn, model, k)} = %s" for k in expected)])
    return f"UPDATE {conn.ops.quote_name(model._meta.db_table)} SET {sets} WHERE {where}"
