"""The game store: reading a game (its row, seats and state) and committing a move (its events
and the row's compare-and-set). The unique key (game, seq) is the concurrency check.

This module is the only one with plain SQL for games, with a cache (StateCache), with the
one-statement commit (``Appender.commit``, which alone decides the order of a move's last
writes) and with Event rows: it appends them, reads them for games in play, and compacts the
streams of games that are over (``compact``). Everything else reads events through History and
writes games through the ORM or through these functions."""

from __future__ import annotations

import json
import marshal
import operator
import threading
from collections import OrderedDict
from datetime import UTC, datetime
from functools import cache, lru_cache, reduce

import orjson
from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import connections, transaction
from django.db.models import Q
from django.utils import timezone

from games.engine import clone, replay
from games.models import CompactedStream, Event, Game, History, Seat, Snapshot
from games.registry import get
from games.schema import current_version, rules_version, upcast
from kinplay.infra import sql


class VersionConflict(Exception):
    """``sent``: the expected_version the client gave, when that was the trouble."""

    def __init__(self, current: int, sent: int | None = None):
        super().__init__(f"the game is at version {current}")
        self.current, self.sent = current, sent


class StaleRow(VersionConflict):
    """The game row changed since it was read, but not its version (a seat's standing answer, a
    clock paused for a vacation...): no move came first, so the command is tried again on the row
    as it is now, whatever the client sent."""


class StateCache:
    """The latest states this process has seen, by (game, version): a cache like snapshots.

    The state after event N of a game never changes (the stream is append-only), so a hit
    needs no check but the game's seed, which tells a new game from an old one that had the
    same id (a test database flushed). Entries are written only after their transaction
    commits, so a rolled-back move is never remembered. So an entry can never be wrong, in this
    process or another: what another process commits is a later version, a key not yet here, and
    the version a reader asks for is the one on the row it read. (The game row itself is never
    cached: it changes.) States are kept marshalled: a
    reader always gets its own copy, since ``evolve`` updates states in place.
    """

    def __init__(self, size: int):
        self.size, self.lock = size, threading.Lock()
        self.entries: OrderedDict[tuple[int, int], tuple[str, bytes]] = OrderedDict()

    def get(self, game, version):
        with self.lock:
            hit = self.entries.get((game.pk, version))
            if hit is None or hit[0] != game.seed:
                return None
            self.entries.move_to_end((game.pk, version))
        return marshal.loads(hit[1])

    def put(self, game, version, state):
        frozen = self.freeze(game, state)
        if frozen is not None:
            self._store(game.pk, version, frozen)

    @staticmethod
    def freeze(game, state):
        try:
            return game.seed, marshal.dumps(state)
        except ValueError:  # not plain data: do without the cache
            return None

    def _store(self, game_id, version, frozen):
        with self.lock:
            self.entries[(game_id, version)] = frozen
            self.entries.move_to_end((game_id, version))
            while len(self.entries) > self.size:
                self.entries.popitem(last=False)

    def put_on_commit(self, game, version, state):
        """Copied now, stored at commit: the caller goes on evolving ``state`` in place (a
        move, a replay), and the entry must stay the state after ``version``."""
        frozen = self.freeze(game, state)
        if frozen is not None:
            game_id = game.pk
            transaction.on_commit(lambda: self._store(game_id, version, frozen))

    def clear(self):
        with self.lock:
            self.entries.clear()


states = StateCache(settings.STATE_CACHE_SIZE)


# A game row and its seats (with each player's name and address) in one statement: every
# move and every page starts here, and the ORM's prefetch would take three.
# Tables are named from the models ({seat}, {user}, {game}: see _game_with_seats_sql).
SEATS_OF_GAME = {
    "postgresql": """(
        SELECT json_agg(json_build_array(s.id, s."index", s.user_id, s.bot, s.invited, u.username, u.email, s.standing, s.over) ORDER BY s."index")
        FROM {seat} s LEFT JOIN {user} u ON u.id = s.user_id WHERE s.game_id = g.id)""",
    "sqlite": """(
        SELECT json_group_array(json_array(id, "index", user_id, bot, invited, username, email, standing, over)) FROM (
            SELECT s.id, s."index", s.user_id, s.bot, s.invited, u.username, u.email, s.standing, s.over
            FROM {seat} s LEFT JOIN {user} u ON u.id = s.user_id WHERE s.game_id = g.id ORDER BY s."index"))""",
}


@cache
def _game_with_seats_sql(fields, alias, vendor):

    table = connections[alias].ops.quote_name
    seats = SEATS_OF_GAME[vendor].format(seat=table(Seat._meta.db_table), user=table(get_user_model()._meta.db_table))
    return f"SELECT {sql.columns(Game, fields, 'g.', alias)}, {seats} FROM {table(Game._meta.db_table)} g WHERE g.id = %s"


def game_with_seats(pk, using="default") -> Game:
    """One game as it is now, ``game.seat_list`` and each seat's user (username and email
    loaded), in one query; Game.DoesNotExist if there is none."""
    conn = connections[using]
    if conn.vendor not in SEATS_OF_GAME:  # another database: the ORM's way, in two queries
        return Game.objects.using(using).with_seats().get(pk=pk)
    with conn.cursor() as cursor:
        cursor.execute(_game_with_seats_sql(_game_fields(), using, conn.vendor), [pk])
        row = cursor.fetchone()
    if row is None:
        raise Game.DoesNotExist(f"no game {pk}")
    return _game_of_row(row, using)


def game_with_seats_after(lead: tuple[str, list], pk, using="default") -> tuple[tuple | None, Game | None]:
    """Another statement's row and game ``pk`` as ``game_with_seats`` reads it, in one round
    trip: a request's token check (api.authentication) and the game it names. ``lead`` is a
    statement of at most one row with its parameters (kinplay.infra.sql.lookup_statement).
    Returns the lead's row, without the game's columns, or None (and then no game is read), and
    the game, or None when there is none."""
    conn = connections[using]
    if conn.vendor not in SEATS_OF_GAME:
        with conn.cursor() as cursor:
            cursor.execute(*lead)
            row = cursor.fetchone()
        return row, None if row is None else Game.objects.using(using).with_seats().filter(pk=pk).first()
    fields = _game_fields()
    with conn.cursor() as cursor:
        cursor.execute(_after_sql(lead[0], fields, using, conn.vendor), [*lead[1], pk])
        row = cursor.fetchone()
    if row is None:
        return None, None
    width = len(fields) + 1  # the game's columns and its seats, last
    game = row[-width:]
    return row[:-width], None if game[0] is None else _game_of_row(game, using)


@lru_cache(maxsize=16)  # a few leading statements, each built once (the token check's)
def _after_sql(lead: str, fields, alias, vendor) -> str:
    # Every row of the lead with the game's row beside it, or NULLs: no game is no error here.
    return f"SELECT * FROM ({lead}) l LEFT JOIN ({_game_with_seats_sql(fields, alias, vendor)}) game ON 1 = 1"


@cache
def _game_fields() -> tuple[str, ...]:
    return tuple(f.name for f in Game._meta.concrete_fields)


def _game_of_row(row, using) -> Game:
    """A game and its seats from a row of ``_game_with_seats_sql``."""
    game = sql.instance(Game, _game_fields(), row[:-1], using)
    game.hold_seats(_seats(game, sql.json_value(row[-1]) or [], using))
    return game


def _seats(game, seat_rows, db) -> list[Seat]:
    """``game``'s seats (and their players' names and addresses) from rows in SEATS_OF_GAME's
    order, each seat's game and user set through their descriptors, as a prefetch sets them."""

    user_model, seats = get_user_model(), []
    for seat_id, index, user_id, bot, invited, username, email, standing, over in seat_rows:
        seat = sql.from_db(Seat, db, SEAT_ATTNAMES,
                           [seat_id, game.pk, index, user_id, bot, bool(invited), standing, bool(over)])
        seat.game = game
        if user_id is not None:
            seat.user = sql.from_db(user_model, db, USER_ATTNAMES, [user_id, username, email])
        seats.append(seat)
    return seats


# In the models' field order, as from_db takes them (tests/store/test_game_rows.py checks).
SEAT_ATTNAMES = ["id", "game_id", "index", "user_id", "bot", "invited", "standing", "over"]
USER_ATTNAMES = ["id", "username", "email"]


def load_state(game, upto: int | None = None, *, cached=True) -> dict:
    """The state after event ``upto`` (default: the last), from the cache or the nearest snapshot."""
    upto = game.version if upto is None else upto
    state = states.get(game, upto) if cached else None
    if state is not None:
        return state
    with connections[Event.objects.db].cursor() as cursor:
        cursor.execute(_snapshot_and_events_sql(cursor.db.alias, _events_of(game)._meta.db_table),
                       [game.pk, upto, rules_version(get(game.kind).rules), game.pk, upto])
        rows = cursor.fetchall()
    rules = get(game.kind).rules
    state = {}
    if rows and rows[0][1] is None:  # the snapshot leads, then the events after it
        state = sql.json_value(rows.pop(0)[2])
    state = replay(rules, (upcast(rules, t, sql.json_value(d), v) for _, t, d, v in rows), state)
    states.put_on_commit(game, upto, state)
    return state


def load_states(games) -> dict[int, dict]:
    """``load_state`` of many games (each at its last event), by game id, in three queries for
    each 200 games (``any_of``, ``event_ranges``): a player's list of thirty games costs what one of five does."""
    out, missing = {}, []
    for game in games:
        state = states.get(game, game.version)
        if state is None:
            missing.append(game)
        else:
            out[game.pk] = state
    if not missing:
        return out
    wanted = [Q(game_id=g.pk, seq__lte=g.version, rules_version=rules_version(get(g.kind).rules)) for g in missing]
    nearest: dict[int, int] = {}
    for game_id, seq in any_of(Snapshot.objects.values_list("game_id", "seq"), wanted):
        nearest[game_id] = max(seq, nearest.get(game_id, 0))
    snaps = dict(any_of(Snapshot.objects.values_list("game_id", "state"),
                            [Q(game_id=g, seq=s) for g, s in nearest.items()]))
    rows: dict[int, list] = {g.pk: [] for g in missing}
    for row in event_ranges([(g.pk, nearest.get(g.pk, 0), g.version) for g in missing]):
        rows[row.game_id].append((row.type, row.data, row.schema_version))
    for game in missing:
        rules = get(game.kind).rules
        state = replay(rules, (upcast(rules, t, d, v) for t, d, v in rows[game.pk]), snaps.get(game.pk) or {})
        states.put_on_commit(game, game.version, state)
        out[game.pk] = state
    return out


# The nearest snapshot at or before a version (built by today's rules) and the events after it
# (with their schema versions, to upcast), in one statement (a
# page view or a move in another worker process pays for this when the cache has no state).
SNAPSHOT_AND_EVENTS = """
    WITH snap AS (SELECT seq, state FROM {snapshot} WHERE game_id = %s AND seq <= %s AND rules_version = %s
                  ORDER BY seq DESC LIMIT 1)
    SELECT seq, NULL, {state}, NULL FROM snap
    UNION ALL
    SELECT seq, type, data, schema_version FROM {event}
    WHERE game_id = %s AND seq > COALESCE((SELECT seq FROM snap), 0) AND seq <= %s
    ORDER BY 1"""


@cache
def _snapshot_and_events_sql(alias: str, events: str) -> str:
    conn = connections[alias]
    table = conn.ops.quote_name
    # PostgreSQL keeps a snapshot in jsonb and an event in json (Event.data): one column of
    # the UNION must be of one type, and json is the one that costs no conversion to send.
    state = "state::json" if conn.vendor == "postgresql" else "state"
    return SNAPSHOT_AND_EVENTS.format(snapshot=table(Snapshot._meta.db_table), event=table(events), state=state)


def _events_of(game) -> type[Event] | type[History]:
    """Where a game's events are: a game in play (or not begun) is never compacted, and its
    Event rows are read without History's view over the compacted streams."""
    return Event if game.status in (Game.ACTIVE, Game.WAITING) else History


def events_of(game):
    """The events of ``game`` (a queryset, by seq): what History holds, read the cheapest way."""
    return _events_of(game).objects.filter(game=game)


def stream(game, after: int = 0, upto: int | None = None):
    """The events of ``game`` after seq ``after`` (up to ``upto``), by seq (``events_of``)."""
    qs = events_of(game).filter(seq__gt=after)
    if upto is not None:
        qs = qs.filter(seq__lte=upto)
    return qs.order_by("seq")


def snapshot_due(before: int, after: int) -> bool:
    """Whether a command that took a game from version ``before`` to ``after`` leaves a snapshot
    (at ``after``): one per SNAPSHOT_EVERY events, at the end of the command that crosses the
    multiple (states between the events of one command are never stored)."""
    every = settings.SNAPSHOT_EVERY
    return after // every > before // every


class Appender:
    """The events of one request (a command and the bot answers it woke), stored together.

    ``add`` stamps each command's events with their sequence numbers; ``commit`` writes them
    with the game row's compare-and-set, and ``save`` writes them alone, in one INSERT with
    the snapshots due, inside the caller's transaction.
    """

    def __init__(self, game, version: int):
        self.game, self.start, self.version = game, version, version
        self.stamp = game.updated_at  # the row as read: commit writes only over it
        self.rows: list[Event] = []
        self.snapshots: list[Snapshot] = []
        self.state: dict | None = None

    def add(self, events: list[dict], state_after: dict, *, seat, command, idempotency_key=None) -> None:
        version, rules = self.version, get(self.game.kind).rules
        command = {**command, "rules": rules_version(rules)}  # the rules it was decided under (verify_game)
        self.rows += [
            _new_event(self.game, seq=version + i, type=e["type"], data=e["data"], seat=seat,
                       idempotency_key=idempotency_key if i == 1 else None,
                       command=command if i == 1 else None, schema_version=current_version(rules, e["type"]))
            for i, e in enumerate(events, start=1)
        ]
        self.version += len(events)
        if snapshot_due(version, self.version):
            self.snapshots.append(Snapshot(game=self.game, seq=self.version, state=clone(state_after),
                                           rules_version=rules_version(rules)))
        self.state = state_after

    def save(self) -> list[Event]:
        """Store everything added; IntegrityError if another command took these numbers first."""
        save_all([self])
        return self.rows

    def commit(self, fields, *, then=None) -> None:
        """Store everything added and write ``fields`` of the game row if the row is still as
        read: at the version this appender started from, with the same ``updated_at`` and seed.
        VersionConflict if another command moved first (IntegrityError if it took these numbers
        first), StaleRow if only the row changed; the caller's transaction then rolls back.

        The order of a move's last writes is decided here: the caller's other writes come
        before this call, and ``then`` (what must follow the row's write in the same
        transaction, a finished game's hooks) runs right after it. With nothing to follow, the
        row's write is the transaction's last statement, and when it is also the first,
        PostgreSQL commits it on its own (``sql.update_if``'s ``last``): a usual move is one
        round trip. The backend refuses any statement sent after it in that transaction."""
        if not self._save_with_game(fields, last=then is None):
            current = Game.objects.filter(pk=self.game.pk).values_list("version", flat=True).get()
            raise StaleRow(current) if current == self.start else VersionConflict(current)
        if then is not None:
            then()

    def _save_with_game(self, fields, *, last: bool) -> bool:
        """``commit``'s writes: False if the row is no longer as read. PostgreSQL does both in
        one statement that writes all or nothing; the unique (game, seq) key and the row are
        checked as ever."""
        game, conn = self.game, connections[Event.objects.db]
        _stamp(self.rows)
        _snapshots([self])  # before the row's write, which may end the transaction (``last``)
        expected = {"version": self.start, "updated_at": self.stamp, "seed": game.seed}
        if conn.vendor == "postgresql" and 0 < len(self.rows) <= INSERT_ROWS:
            written = sql.update_if(game, fields, expected, then=(Event, self.rows, EVENT_FIELDS), last=last)
        else:
            _insert(self.rows)
            written = sql.update_if(game, fields, expected, last=last)
        if written:
            _states_on_commit([self])
        return written


def _new_event(game, **values) -> Event:
    """``Event(game=game, **values)``, unsaved, for much less CPU: Model.__init__ takes
    keywords field by field (the game through its descriptor and the router) and sends
    pre_init and post_init for every event, where a move builds several; sql.unsaved sets
    the fields in one pass. A field added to Event and not given here is a KeyError, never a
    silent default."""
    values.update(id=None, at=None, game_id=game.pk)  # ``at``: stamped when saved (_stamp)
    row = sql.unsaved(Event, values)
    row.game = game  # as the keyword would have set it
    return row


EVENT_FIELDS = ("game", "seq", "type", "data", "seat", "at", "idempotency_key", "command", "schema_version")
INSERT_ROWS = 500  # events per INSERT: SQLite takes at most 32,766 parameters a statement


def save_all(appenders: list[Appender]) -> None:
    """Store the events of several games' appenders (games.services.create_games) in as few
    INSERTs as their number allows."""
    rows = [row for a in appenders for row in a.rows]
    _stamp(rows)
    _insert(rows)
    _snapshots(appenders)
    _states_on_commit(appenders)


def _stamp(rows) -> None:
    at = timezone.now()
    for row in rows:
        row.at = at


def _insert(rows) -> None:
    for i in range(0, len(rows), INSERT_ROWS):
        sql.insert(Event, rows[i:i + INSERT_ROWS], EVENT_FIELDS)


def _snapshots(appenders) -> None:
    """The snapshots due, in one plain INSERT (cheaper than bulk_create's per-object work on
    the move that leaves one). Their game's id set here, as for the events: a game created in this
    transaction (create_games) got its id after its snapshot was added."""
    snapshots = []
    for a in appenders:
        for snapshot in a.snapshots:
            snapshot.game_id = a.game.pk
            snapshots.append(snapshot)
    sql.insert(Snapshot, snapshots, SNAPSHOT_FIELDS)


SNAPSHOT_FIELDS = ("game", "seq", "state", "rules_version")


def _states_on_commit(appenders) -> None:
    for a in appenders:
        if a.rows:
            states.put_on_commit(a.game, a.version, a.state)


def append(game, version: int, events: list[dict], state_after: dict, *, seat, command, idempotency_key=None) -> list[Event]:
    """Append one command's events after ``version``; IntegrityError if another landed first."""
    appender = Appender(game, version)
    appender.add(events, state_after, seat=seat, command=command, idempotency_key=idempotency_key)
    return appender.save()


ANY_OF = 200  # conditions a statement: SQLite refuses an expression deeper than 1,000 (about 1,000 ORs)


def event_ranges(ranges: list[tuple[int, int, int]]) -> list[Event | History]:
    """The events of each ``(game id, after, upto)`` (seq after ``after``, up to ``upto``), by
    game and seq: one range of the (game, seq) index per game, ANY_OF ranges a statement. (The
    same as ``any_of`` with a Q per range, whose OR the ORM takes longer to build than the
    database to run.) The games compacted, whose rows have left the table, are read from History
    by their ids: joined with the ranges, History's view would unpack every stream there is."""
    db = Event.objects.db
    table = connections[db].ops.quote_name(Event._meta.db_table)
    out: list[Event | History] = []
    for i in range(0, len(ranges), ANY_OF):
        chunk = ranges[i:i + ANY_OF]
        wanted = ", ".join(["(%s, %s, %s)"] * len(chunk))
        out += Event.objects.using(db).raw(
            f"WITH wanted(game, lo, hi) AS (VALUES {wanted}) SELECT e.* FROM {table} e JOIN wanted w"
            " ON e.game_id = w.game AND e.seq > w.lo AND e.seq <= w.hi ORDER BY e.game_id, e.seq",
            [x for r in chunk for x in r])
    found = {row.game_id for row in out}
    compacted = [(game, lo, hi) for game, lo, hi in ranges if game not in found and lo < hi]
    if compacted:
        out += _compacted_ranges(compacted, db)
        out.sort(key=lambda row: (row.game_id, row.seq))
    return out


def _compacted_ranges(ranges: list[tuple[int, int, int]], db) -> list[History]:
    """``event_ranges`` of compacted games, sliced from their streams here: a stream holds seq 1
    to ``upto`` in order, so a range is a slice. (Filtered in History's view, every element of
    every stream is parsed again for each condition: ten times the cost of the lobby's cards.)"""
    wanted = {game: (lo, hi) for game, lo, hi in ranges}
    out = []
    ids = list(wanted)
    for i in range(0, len(ids), ANY_OF):
        streams = CompactedStream.objects.using(db).filter(game_id__in=ids[i:i + ANY_OF]).values_list("game_id", "events")
        for game, text in streams:
            lo, hi = wanted[game]
            out += [_compacted_event(game, columns) for columns in orjson.loads(text)[lo:hi]]
    return out


def _compacted_event(game: int, columns: list) -> History:
    """One element of a compacted stream as History's view gives it."""
    row = dict(zip(COMPACTED_COLUMNS, columns, strict=True))
    at = datetime.fromisoformat(row.pop("at"))  # PostgreSQL's ISO text, or SQLite's (naive, UTC)
    return History(game_id=game, at=at if timezone.is_aware(at) else timezone.make_aware(at, UTC), **row)


def any_of(qs, conditions: list):
    """The rows of ``qs`` that match any of ``conditions`` (Q objects, one a game say), read
    ANY_OF conditions a statement: a list of many games costs a few queries, never an error.
    Each statement keeps ``qs``'s order; rows of one condition come from one statement."""
    for i in range(0, len(conditions), ANY_OF):
        yield from qs.filter(reduce(operator.or_, conditions[i:i + ANY_OF]))


# Each compacted event is an array of its columns in this order (the view games_history reads
# them back by position: games/migrations/0014_compacted_streams.py).
COMPACTED_COLUMNS = ("id", "seq", "at", "type", "data", "seat", "idempotency_key", "command", "schema_version")
COMPACT = {
    "postgresql": """
        INSERT INTO {stream} (game_id, upto, events, at)
        SELECT game_id, max(seq), json_agg(json_build_array({columns}) ORDER BY seq)::text, %s
        FROM {event} WHERE game_id = ANY(%s) GROUP BY game_id""",
    # SQLite keeps the subquery's order in the aggregate (3.44 would take ORDER BY in it).
    "sqlite": """
        INSERT INTO {stream} (game_id, upto, events, at)
        SELECT game_id, max(seq), json_group_array(json_array({sqlite_columns})), %s
        FROM (SELECT * FROM {event} WHERE game_id IN (SELECT value FROM json_each(%s)) ORDER BY game_id, seq)
        GROUP BY game_id""",
}
UNCOMPACTED = {
    "postgresql": "DELETE FROM {event} WHERE game_id = ANY(%s)",
    "sqlite": "DELETE FROM {event} WHERE game_id IN (SELECT value FROM json_each(%s))",
}


def compact_over(before, limit: int = 500) -> int:
    """``compact`` up to ``limit`` games that are over and were last written before ``before``."""
    ids = (Event.objects.filter(seq=1, game__status__in=Game.OVER, game__updated_at__lt=before)
           .values_list("game_id", flat=True)[:limit])
    return compact(list(ids))


def compact(game_ids) -> int:
    """Move the Event rows of each of ``game_ids`` that is over into one CompactedStream row,
    in the caller's transaction (or its own): History reads the same events before and after.
    Games in play, or compacted already, are left as they are. Returns the games compacted."""
    db = Event.objects.db
    conn = connections[db]
    quote = conn.ops.quote_name
    with transaction.atomic(using=db):
        # the rows of games that are over and still have events, locked: no move lands meanwhile
        ids = list(Game.objects.using(db).select_for_update().filter(pk__in=list(game_ids), status__in=Game.OVER)
                   .values_list("pk", flat=True).order_by("pk"))
        if not ids:
            return 0
        sqlite_columns = ", ".join(f"json({c})" if c in ("data", "command") else c for c in COMPACTED_COLUMNS)
        statement = COMPACT[conn.vendor].format(stream=quote(CompactedStream._meta.db_table),
                                                event=quote(Event._meta.db_table),
                                                columns=", ".join(COMPACTED_COLUMNS), sqlite_columns=sqlite_columns)
        games = ids if conn.vendor == "postgresql" else json.dumps(ids)
        with conn.cursor() as cursor:
            cursor.execute(statement, [timezone.now(), games])
            done = cursor.rowcount
            # the trigger lets each row go because a stream now holds its seq
            cursor.execute(UNCOMPACTED[conn.vendor].format(event=quote(Event._meta.db_table)), [games])
    return done
