"""The event store (DESIGN.md, "The event store") and the game read model."""

from __future__ import annotations

import marshal
import threading
import time
from collections import OrderedDict
from datetime import datetime
from functools import cache
from itertools import chain

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import connections, models, transaction
from django.utils import timezone

from games.engine import only_default
from games.registry import get
from games.schema import upcast
from kinplay import sql

# A game row and its seats (with each player's name and address) in one statement: every
# move and every page starts here, and the ORM's prefetch would take three.
# Tables are named from the models ({seat}, {user}, {game}: see _game_with_seats_sql).
SEATS_OF_GAME = {
    "postgresql": """(
        SELECT json_agg(json_build_array(s.id, s."index", s.user_id, s.bot, s.invited, u.username, u.email, s.standing) ORDER BY s."index")
        FROM {seat} s LEFT JOIN {user} u ON u.id = s.user_id WHERE s.game_id = g.id)""",
    "sqlite": """(
        SELECT json_group_array(json_array(id, "index", user_id, bot, invited, username, email, standing)) FROM (
            SELECT s.id, s."index", s.user_id, s.bot, s.invited, u.username, u.email, s.standing
            FROM {seat} s LEFT JOIN {user} u ON u.id = s.user_id WHERE s.game_id = g.id ORDER BY s."index"))""",
}


@cache
def _game_with_seats_sql(fields, alias, vendor):
    table = connections[alias].ops.quote_name
    seats = SEATS_OF_GAME[vendor].format(seat=table(Seat._meta.db_table), user=table(get_user_model()._meta.db_table))
    return f"SELECT {sql.columns(Game, fields, 'g.', alias)}, {seats} FROM {table(Game._meta.db_table)} g WHERE g.id = %s"


class GameQuerySet(models.QuerySet):
    def update(self, **kwargs):
        """Every write to game rows stamps ``updated_at``, which a move's compare-and-set checks,
        and drops this process's copies of them (RowCache): a move that started from a copy
        read before, here or in another process, reads the row again."""
        kwargs.setdefault("updated_at", timezone.now())
        if game_rows.entries:
            game_rows.drop(*self.values_list("pk", flat=True))
        return super().update(**kwargs)

    def with_seats(self):
        """Games with their seats and the seats' users (and who called a cancelled game off, its
        card's line): two queries, whatever is read after."""
        return self.select_related("called_off_by").prefetch_related(
            models.Prefetch("seats", queryset=Seat.objects.select_related("user")))

    def get_with_seats(self, pk) -> Game:
        """One game, ``game.seat_list`` and each seat's user (username and email loaded) in
        one query; Game.DoesNotExist if there is none."""

        conn = connections[self.db]
        if conn.vendor not in SEATS_OF_GAME:  # another database: the ORM's way, in three queries
            return self.with_seats().get(pk=pk)
        fields = tuple(f.name for f in Game._meta.concrete_fields)
        with conn.cursor() as cursor:
            cursor.execute(_game_with_seats_sql(fields, self.db, conn.vendor), [pk])
            row = cursor.fetchone()
        if row is None:
            raise Game.DoesNotExist(f"no game {pk}")
        game = sql.instance(Game, fields, row[:-1], self.db)
        _hold(game, sql.json_value(row[-1]) or [], self.db)
        return game


def _hold(game, seat_rows, db) -> None:
    """Give ``game`` its seats (and their players' names and addresses) from rows in
    SEATS_OF_GAME's order (RowCache keeps them in the same). The instances as from_db makes
    them (sql.from_db) and the seats' game and user set as their descriptors would set them,
    less the descriptors' checks (type, router): both are this game's and this row's."""
    user_model, seats = get_user_model(), []
    to_game, to_user = Seat.game.field, Seat.user.field
    for seat_id, index, user_id, bot, invited, username, email, standing in seat_rows:
        seat = sql.from_db(Seat, db, SEAT_ATTNAMES, [seat_id, game.pk, index, user_id, bot, bool(invited), standing])
        to_game.set_cached_value(seat, game)  # seat.game = game
        if user_id is not None:
            to_user.set_cached_value(seat, sql.from_db(user_model, db, USER_ATTNAMES, [user_id, username, email]))
        seats.append(seat)
    game.hold_seats(seats)


# In the models' field order, as from_db takes them (tests/store/test_row_cache.py checks).
SEAT_ATTNAMES = ["id", "game_id", "index", "user_id", "bot", "invited", "standing"]
USER_ATTNAMES = ["id", "username", "email"]


class RowCache:
    """The rows of the running games this process last moved in, with their seats and players:
    the same player's next move, a moment later, starts here instead of reading them again
    (a round trip and about a sixth of a move's CPU).

    Stale entries cost a retry, never a lost update: a move's write lands only if the row still
    has the version, ``updated_at`` and seed read here (games.store.Appender.save_with_game),
    and every write to a game row stamps ``updated_at`` (a seat's standing answer too); the
    writes in this process also drop the entry. Entries are written at commit and kept
    SECONDS, for what no stamp covers: a player's name and address, as the token check keeps
    them (api.authentication)."""

    SECONDS = 10.0

    def __init__(self, size: int):
        self.size, self.lock = size, threading.Lock()
        self.entries: OrderedDict[int, tuple[float, tuple]] = OrderedDict()  # (expires, _freeze's)

    def get(self, game_id, using="default"):
        with self.lock:
            hit = self.entries.get(game_id)
        if hit is None or hit[0] < time.monotonic():
            return None
        values, json, seat_rows = hit[1]  # _freeze's
        values = list(values)
        # a copy of its own for each reader: moves change the game; the rest is immutable
        for i, value in zip(_json_positions(), marshal.loads(json)):
            values[i] = value
        game = sql.from_db(Game, using, sql.attnames(Game), values)
        _hold(game, seat_rows, using)
        return game

    def put_on_commit(self, game) -> None:
        """Remember ``game`` as the caller wrote it, once the write commits (never a row rolled back)."""
        frozen = _freeze(game) if game.status == Game.ACTIVE else None
        if frozen is None:
            self.drop(game.pk)
            return
        game_id = game.pk
        transaction.on_commit(lambda: self._store(game_id, frozen))

    def _store(self, game_id, frozen) -> None:
        with self.lock:
            self.entries[game_id] = (time.monotonic() + self.SECONDS, frozen)
            self.entries.move_to_end(game_id)
            while len(self.entries) > self.size:
                self.entries.popitem(last=False)

    def drop(self, *game_ids) -> None:
        """Rows written outside a move (GameQuerySet.update, Game.save; the stamp tells the other processes)."""
        with self.lock:
            for game_id in game_ids:
                self.entries.pop(game_id, None)

    def clear(self) -> None:
        with self.lock:
            self.entries.clear()


@cache
def _json_positions() -> tuple[int, ...]:
    return tuple(i for i, f in enumerate(Game._meta.concrete_fields) if isinstance(f, models.JSONField))


# Values a RowCache entry may hand every reader as they are: none can be changed in place.
IMMUTABLE = frozenset({type(None), bool, int, float, str, datetime})  # exact types: a subclass is not kept


def _freeze(game) -> tuple | None:
    """A game row and its seats as RowCache keeps them, or None when it cannot: the JSON fields
    (options, to_act, result: dicts and lists a reader may change) marshalled, a copy for each
    reader at a tenth of pickle's price; every other value immutable (numbers, text, times:
    pickle spent most of its time on the times) and kept as it is, as are the seat rows (tuples
    of ids, names and flags). A value of another type, or JSON marshal cannot copy, is not kept."""
    values, json = [getattr(game, name) for name in sql.attnames(Game)], []
    for i in _json_positions():
        json.append(values[i])
        values[i] = None
    if not set(map(type, values)) <= IMMUTABLE:
        return None
    try:
        frozen_json = marshal.dumps(json)
    except ValueError:
        return None
    seats = tuple((s.id, s.index, s.user_id, s.bot, s.invited, s.user.username if s.user_id else None,
                   s.user.email if s.user_id else None, s.standing) for s in game.seat_list)
    if not set(map(type, chain.from_iterable(seats))) <= IMMUTABLE:
        return None
    return tuple(values), frozen_json, seats


class Game(models.Model):
    """The read model of one game: rebuilt from its events by ``rebuild_projections``."""

    WAITING, ACTIVE, FINISHED, ABORTED = "waiting", "active", "finished", "aborted"
    STATUSES = [(s, s) for s in (WAITING, ACTIVE, FINISHED, ABORTED)]
    OVER = (FINISHED, ABORTED)
    TIMEOUT_POLICIES = [("bot", "the bot plays"), ("skip", "skip the player"), ("forfeit", "forfeit")]

    kind = models.CharField(max_length=32)
    options = models.JSONField(default=dict)
    status = models.CharField(max_length=16, choices=STATUSES, default=WAITING)
    version = models.PositiveIntegerField(default=0)
    seed = models.CharField(max_length=64)  # secret until the game ends
    seed_sha256 = models.CharField(max_length=64)
    per_move = models.PositiveIntegerField(null=True, blank=True)  # seconds; None = no clock
    # A reaction window's length (seconds) when the organiser wants it shorter than per_move.
    window = models.PositiveIntegerField(null=True, blank=True)
    on_timeout = models.CharField(max_length=8, choices=TIMEOUT_POLICIES, default="bot")
    to_act = models.JSONField(default=list)  # seat indexes
    deadline = models.DateTimeField(null=True, blank=True)
    result = models.JSONField(null=True, blank=True)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")
    rated = models.BooleanField(default=True)  # the creator may play a friendly game (kinplay.ratings)
    finished_at = models.DateTimeField(null=True, blank=True)  # the finish order ratings replay
    # A declined or expired invitation cancels the game instead of opening the seat to anyone.
    invite_only = models.BooleanField(default=False)
    # Why a game that never started was cancelled, and whose act it was (the creator, or the
    # invited player who declined, let the invitation lapse or left): its page says so. A
    # waiting game has no events to tell it, and the outbox and deadline rows are pruned.
    CALLED_OFF = [("cancelled", "cancelled by its creator"), ("declined", "an invitation declined"),
                  ("expired", "an invitation unanswered"), ("left", "a player left")]
    called_off = models.CharField(max_length=16, choices=CALLED_OFF, blank=True)
    called_off_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                                      related_name="+")
    # The finished game this one is the rematch of (same players and options, seats rotated).
    rematch_of = models.ForeignKey("self", null=True, blank=True, on_delete=models.SET_NULL, related_name="rematches")
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    objects = GameQuerySet.as_manager()

    class Meta:
        # Not updated_at: a move changes it, and an index on it would stop PostgreSQL
        # updating the row in place (HOT) on every move.
        indexes = [models.Index(fields=["status"], name="games_game_status")]

    def __str__(self):
        return f"{self.kind} #{self.pk}"

    def save(self, *args, update_fields=None, **kwargs):
        if update_fields is not None and "updated_at" not in update_fields:  # stamped, as GameQuerySet.update does
            update_fields = [*update_fields, "updated_at"]
        game_rows.drop(self.pk)
        super().save(*args, update_fields=update_fields, **kwargs)

    def hold_seats(self, seats):
        """Keep ``seats`` (in order, with their users) as this game's ``seat_list``: read
        without a query from then on. A plain attribute rather than the related manager's
        prefetch cache, which Django gives no public way to fill."""
        self._held_seats = list(seats)

    def refresh_from_db(self, using=None, fields=None, from_queryset=None):
        super().refresh_from_db(using, fields, from_queryset)
        if fields is None:  # the seats may have changed too: read them again, as after a prefetch
            self.__dict__.pop("_held_seats", None)

    @property
    def seat_list(self) -> list[Seat]:
        """The seats in order: those held (``get_with_seats``, ``hold_seats``), else from
        ``with_seats()``'s prefetch, else one query each time."""
        held = self.__dict__.get("_held_seats")
        return held if held is not None else list(self.seats.all())

    def seconds_for(self, entry: dict) -> int | None:
        """How long one to_act entry may wait. A turn: the engine's seconds, else the move
        clock. A reaction window: the organiser's window, else the move clock (people read
        their email once a day); an engine's own window option can only make it shorter."""
        engine = entry.get("seconds")
        if entry.get("kind") != "window":
            return engine or self.per_move
        limits = [s for s in (self.window or self.per_move, engine) if s]
        return min(limits) if limits else None

    def project(self, rules, state: dict) -> dict:
        """Set the read model (to_act, result, status) from ``state``, the state after the last
        event: the one computation a move (games.services) and a rebuild (games.projections)
        share. Returns the engine's to_act entries (none once the game is over)."""
        result = rules.result(state)
        entries = {} if result is not None else rules.to_act(state)
        self.to_act, self.result = sorted(entries), result
        if result is not None:
            self.status = self.FINISHED
        elif self.status != self.ABORTED:
            self.status = self.ACTIVE
        return entries

    @property
    def is_over(self):
        return self.status in self.OVER

    def seat_of(self, user):
        if user is None or not user.is_authenticated:
            return None
        for seat in self.seat_list:
            if seat.user_id == user.pk:
                return seat.index
        return None


class Seat(models.Model):
    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="seats")
    index = models.PositiveSmallIntegerField()
    user = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="seats")
    bot = models.CharField(max_length=16, blank=True)  # "", "random" or "heuristic"
    # Seated by someone else at creation and not yet accepted: the game waits for the answer.
    invited = models.BooleanField(default=False)
    # The player's standing answer to reaction windows (games.services.set_standing_answer).
    ASK, UNABLE, ALWAYS = "ask", "unable", "always"
    STANDING = [(ASK, "ask me every time"), (UNABLE, "pass for me when I cannot react"),
                (ALWAYS, "always pass (let cards resolve, never raise my hand) unless I answer")]
    standing = models.CharField(max_length=8, choices=STANDING, default=ASK)

    class Meta:
        ordering = ["index"]
        constraints = [
            models.UniqueConstraint(fields=["game", "index"], name="seat_unique_index"),
            models.UniqueConstraint(fields=["game", "user"], name="seat_unique_user"),
        ]

    @property
    def name(self):
        if self.user_id:
            return self.user.username
        if self.bot:
            return f"Bot {self.index + 1} ({self.bot})"
        return "open seat"

    @property
    def is_open(self):
        return not self.user_id and not self.bot

    def stands_for(self, rules, state, entry: dict) -> bool:
        """Whether this player's standing answer gives the default of the window ``entry``
        now: "always", or "unable" when they can do nothing else. With "ask" they answer
        themselves, or the clock does: an early answer would tell the others who holds STOP."""
        if not self.user_id or entry.get("kind") != "window" or entry.get("default") is None:
            return False
        if entry["default"] not in [i["action"] for i in rules.legal_actions(state, self.index)]:
            return False  # a default that is no choice (a Kenta vote's "no marker") is only the clock's
        if self.standing == self.ALWAYS:
            return True
        return self.standing == self.UNABLE and only_default(rules, state, self.index)


class AppendOnly(Exception):
    pass


class AppendOnlyQuerySet(models.QuerySet):
    """Refuses bulk changes to a stream's rows (the row guard is AppendOnlyModel's)."""

    def update(self, **kwargs):
        raise AppendOnly(f"{self.model._meta.verbose_name_plural} are append-only")

    def delete(self):
        raise AppendOnly(f"{self.model._meta.verbose_name_plural} are append-only")


class AppendOnlyModel(models.Model):
    """A row of an append-only stream: the model refuses to update or delete it, and so does the
    database (list the table in games.triggers.APPEND_ONLY)."""

    objects = AppendOnlyQuerySet.as_manager()

    class Meta:
        abstract = True

    def save(self, *args, **kwargs):
        if not self._state.adding:
            raise AppendOnly(f"{self._meta.verbose_name_plural} are append-only")
        super().save(*args, **kwargs)

    def delete(self, *args, **kwargs):
        raise AppendOnly(f"{self._meta.verbose_name_plural} are append-only")


class StreamEvent(AppendOnlyModel):
    """One fact in a stream (a game, a tournament, a league). Each stream adds its foreign key
    and the unique (stream, seq) constraint."""

    seq = models.PositiveIntegerField()  # gap-free from 1 within the stream
    type = models.CharField(max_length=32)
    data = models.JSONField(default=dict)
    at = models.DateTimeField(auto_now_add=True)

    class Meta:
        abstract = True


class Event(StreamEvent):
    """One fact in a game's history. Rows are never updated or deleted (a trigger agrees)."""

    # db_index=False: the unique (game, seq) index serves every lookup by game.
    game = models.ForeignKey(Game, on_delete=models.PROTECT, related_name="events", db_index=False)
    type = models.CharField(max_length=64)  # wider than a tournament's or league's: engines name their own
    seat = models.SmallIntegerField(null=True)  # the acting seat; None for the system
    idempotency_key = models.CharField(max_length=128, null=True, blank=True)  # the acting seat's
    # On the first event of each command: what was decided, so verify_game can decide it again.
    command = models.JSONField(null=True, blank=True)
    # The schema version of this event's type when it was written; NULL: 1 (games.schema).
    schema_version = models.PositiveSmallIntegerField(null=True, blank=True)

    class Meta:
        ordering = ["game", "seq"]
        constraints = [
            models.UniqueConstraint(fields=["game", "seq"], name="event_unique_seq"),
            # A key is the acting seat's (one player's), never another player's.
            models.UniqueConstraint(
                fields=["game", "seat", "idempotency_key"],
                condition=models.Q(idempotency_key__isnull=False),
                name="event_unique_seat_idempotency_key",
            ),
        ]

    def as_rules_event(self, rules=None):
        """The event as its engine (``rules``, else the game's) reads it today: upcast to its
        type's current version."""
        return upcast(rules or get(self.game.kind).rules, self.type, self.data, self.schema_version)


class ChatMessage(AppendOnlyModel):
    """Table talk: one line of a game's chat. Each channel is its own append-only stream beside
    the game's events (players and spectators talk apart); rows are never updated or deleted
    (a trigger agrees), and nothing here ever touches the game's version or state."""

    PLAYERS, SPECTATORS = "players", "spectators"
    CHANNELS = [(PLAYERS, "Players"), (SPECTATORS, "Spectators")]
    MAX_LENGTH = 500

    game = models.ForeignKey(Game, on_delete=models.PROTECT, related_name="chat", db_index=False)
    channel = models.CharField(max_length=16, choices=CHANNELS)
    seq = models.PositiveIntegerField()
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    text = models.CharField(max_length=MAX_LENGTH)
    at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["game", "channel", "seq"]
        constraints = [models.UniqueConstraint(fields=["game", "channel", "seq"], name="chat_unique_seq")]


class Snapshot(models.Model):
    """A cache of a game's state after event ``seq``; rebuildable, checked against replay."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="snapshots", db_index=False)  # (game, seq) is unique
    seq = models.PositiveIntegerField()
    state = models.JSONField()
    # The engine's RULES_VERSION when this state was built: another version's is ignored.
    rules_version = models.PositiveIntegerField(default=1)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["game", "seq"], name="snapshot_unique_seq")]


game_rows = RowCache(settings.STATE_CACHE_SIZE)
