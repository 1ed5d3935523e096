"""The event store (docs/architecture.md#the-event-store) and the game read model."""

from __future__ import annotations

from functools import partial

from django.conf import settings
from django.db import models
from django.db.models.fields.json import KeyTransform, KeyTransformFactory
from django.db.models.functions import Cast
from django.utils import timezone

from games.engine import only_default
from games.registry import get
from games.schema import upcast


class GameQuerySet(models.QuerySet):
    def update(self, **kwargs):
        """Every write to game rows stamps ``updated_at``, which a move's compare-and-set checks:
        a move that read the row before, in any process, reads it again."""
        kwargs.setdefault("updated_at", timezone.now())
        return super().update(**kwargs)

    def with_seats(self):
        """Games with their seats and the seats' users (and who created the game and who called
        it off, the lines of an invitation's and a cancelled game's cards): two queries,
        whatever is read after."""
        return self.select_related("called_off_by", "created_by").prefetch_related(
            models.Prefetch("seats", queryset=Seat.objects.select_related("user"), to_attr=Game.HELD_SEATS))


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
                  ("expired", "an invitation unanswered"), ("left", "a player left"),
                  ("repaired", "re-paired by the tournament's organiser")]
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
        # updating the row in place (HOT) on every move. Status changes a few times in a
        # game's life; (status, id) walks one status newest first (the open games' list).
        indexes = [models.Index(fields=["status", "id"], name="game_status_id")]

    def __str__(self):
        return f"{self.kind} #{self.pk}"

    def save(self, *args, update_fields=None, **kwargs):
        if update_fields is not None and "updated_at" not in update_fields:  # stamped, as GameQuerySet.update does
            update_fields = [*update_fields, "updated_at"]
        super().save(*args, update_fields=update_fields, **kwargs)

    # The attribute holding the game's seats as a plain list: filled by with_seats()'s prefetch
    # (its to_attr: read without a queryset each time, where the manager's all() builds one) or
    # by hold_seats.
    HELD_SEATS = "_held_seats"

    def hold_seats(self, seats):
        """Keep ``seats`` (in order, with their users) as this game's ``seat_list``: read
        without a query from then on, as after ``with_seats()``."""
        setattr(self, self.HELD_SEATS, list(seats))

    def refresh_from_db(self, using=None, fields=None, from_queryset=None):
        super().refresh_from_db(using, fields, from_queryset)
        if fields is None:  # the seats may have changed too: read them again, as after a prefetch
            self.__dict__.pop(self.HELD_SEATS, None)

    @property
    def seat_list(self) -> list[Seat]:
        """The seats in order: those held (``with_seats()``, ``games.store.game_with_seats``,
        ``hold_seats``), else one query each time."""
        held = self.__dict__.get(self.HELD_SEATS)
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
    # db_index=False: the (user, game) index serves every lookup by user, in the lists' order.
    user = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT,
                             related_name="seats", db_index=False)
    bot = models.CharField(max_length=16, blank=True)  # "", "random" or "heuristic"
    # Seated by someone else at creation and not yet accepted: the game waits for the answer.
    invited = models.BooleanField(default=False)
    # The player's standing answer to reaction windows (games.services.set_standing_answer).
    ASK, UNABLE, ALWAYS = "ask", "unable", "always"
    STANDING = [(ASK, "ask me every time"), (UNABLE, "pass for me when I cannot react"),
                (ALWAYS, "always pass (let cards resolve, never raise my hand) unless I answer")]
    standing = models.CharField(max_length=8, choices=STANDING, default=ASK)
    # The game is over (finished or cancelled): set when it ends (``mark_over``). Only a
    # shortcut to a player's few running games through the seat_live index; the game's status
    # stays the truth, which every list checks.
    over = models.BooleanField(default=False)

    class Meta:
        ordering = ["index"]
        constraints = [
            models.UniqueConstraint(fields=["game", "index"], name="seat_unique_index"),
            models.UniqueConstraint(fields=["game", "user"], name="seat_unique_user"),
        ]
        indexes = [
            # a player's games newest first (the finished ones page by game id)
            models.Index(fields=["user", "game"], name="seat_user_game"),
            # a player's games still running or waiting: a few rows of an index however long the history
            models.Index(fields=["user", "game"], condition=models.Q(over=False), name="seat_live"),
        ]

    @classmethod
    def mark_over(cls, game) -> None:
        """The game has ended: its seats leave the running games' index (seat_live)."""
        cls.objects.filter(game_id=game.pk, over=False).update(over=True)

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


class JSONText(models.JSONField):
    """JSON kept as its text: PostgreSQL's ``json`` rather than ``jsonb``, for the columns of
    the biggest table. An event's payloads are small objects that are always read whole and
    never indexed into, and jsonb's binary form of such objects (an offset per key and value,
    numbers as numerics) is larger than their text. Key lookups (``command__by``) read the
    value as jsonb, so the ORM's JSON lookups work as on a JSONField."""

    def db_type(self, connection):
        return "json" if connection.vendor == "postgresql" else super().db_type(connection)

    def from_db_value(self, value, expression, connection):
        if isinstance(value, dict | list):  # psycopg decodes json itself (Django leaves only jsonb as text)
            return value
        return super().from_db_value(value, expression, connection)

    def get_transform(self, name):
        found = super().get_transform(name)
        if isinstance(found, KeyTransformFactory):
            return partial(_key_of_jsonb, name)
        return found


def _key_of_jsonb(name, lhs, *args, **kwargs):
    """A key of a JSONText value, read from the value cast to jsonb (PostgreSQL's key
    operators on json return json, which has no equality for the lookups to compare with)."""
    return KeyTransform(name, Cast(lhs, models.JSONField()), *args, **kwargs)


class Event(StreamEvent):
    """One fact in a game's history. Rows are never updated or deleted (a trigger agrees).
    (game, seq) is its one unique key: on PostgreSQL the id has no index (migration
    0012_lean_events), as nothing looks an event up by its id."""

    # db_index=False: the unique (game, seq) index serves every lookup by game.
    game = models.ForeignKey(Game, on_delete=models.PROTECT, related_name="events", db_index=False)
    type = models.CharField(max_length=64)  # wider than a tournament's or league's: engines name their own
    data = JSONText(default=dict)
    seat = models.SmallIntegerField(null=True)  # the acting seat; None for the system
    # The acting seat's, on the first event of a command sent with one: a repeat of the request
    # finds it (games.services), through event_keyed_seat below.
    idempotency_key = models.CharField(max_length=128, null=True, blank=True)
    # On the first event of each command: what was decided, so verify_game can decide it again.
    command = JSONText(null=True, blank=True)
    # The schema version of this event's type when it was written; NULL: 1 (games.schema).
    schema_version = models.PositiveSmallIntegerField(null=True, blank=True)

    class Meta:
        ordering = ["game", "seq"]
        # (game, seq) is the one unique key: of two commands decided against one version, one
        # lands. Two repeats of one keyed request are two such commands, so the key needs no
        # unique index of its own; the index of the keyed commands finds a repeat's first answer
        # (a key is the acting seat's, never another player's) and holds no key, only where
        # to look among the game's few keyed rows.
        constraints = [models.UniqueConstraint(fields=["game", "seq"], name="event_unique_seq")]
        indexes = [models.Index(fields=["game", "seat"], condition=models.Q(idempotency_key__isnull=False),
                                name="event_keyed_seat"),
                   # the games with Event rows, one entry each: the compaction sweep finds those over
                   models.Index(fields=["game"], condition=models.Q(seq=1), name="event_stream_head")]

    def as_rules_event(self, rules=None):
        return as_rules_event(self, rules)


def as_rules_event(row: Event | History, rules=None):
    """The event as its engine (``rules``, else the game's) reads it today: upcast to its
    type's current version."""
    return upcast(rules or get(row.game.kind).rules, row.type, row.data, row.schema_version)


class CompactedStream(AppendOnlyModel):
    """The whole stream of a game that is over, in one row: a JSON array with an array per
    event, its columns in ``games.store.COMPACTED_COLUMNS``' order (PostgreSQL compresses it,
    lz4). ``games.store.compact`` writes it and deletes the game's Event rows in one
    transaction; the events table's trigger lets a row go only once a stream here holds its seq."""

    game = models.OneToOneField(Game, on_delete=models.PROTECT, primary_key=True, related_name="+")
    upto = models.PositiveIntegerField()  # the last seq it holds (from 1: a stream has no gaps)
    events = models.TextField()
    at = models.DateTimeField(auto_now_add=True)


class History(models.Model):
    """Every event of every game, as Event's columns: the game's Event rows and, for a game
    compacted, the events of its CompactedStream (the view ``games_history``, migration
    0014_compacted_streams). Read events through it; only ``games.store`` writes Event rows
    and reads them for games still in play, which are never compacted.

    Filter it by game (an id, or a list of ids): PostgreSQL then reads the streams of those games
    only. Joined with another table or a VALUES list, it unpacks every stream there is
    (``games.store.event_ranges`` shows the way round)."""

    id = models.BigIntegerField(primary_key=True)
    game = models.ForeignKey(Game, on_delete=models.DO_NOTHING, related_name="+", db_constraint=False)
    seq = models.PositiveIntegerField()
    type = models.CharField(max_length=64)
    data = JSONText(default=dict)
    at = models.DateTimeField()
    seat = models.SmallIntegerField(null=True)
    idempotency_key = models.CharField(max_length=128, null=True, blank=True)
    command = JSONText(null=True, blank=True)
    schema_version = models.PositiveSmallIntegerField(null=True, blank=True)

    objects = AppendOnlyQuerySet.as_manager()

    class Meta:
        managed = False
        db_table = "games_history"
        ordering = ["game", "seq"]
        verbose_name_plural = "history"

    def as_rules_event(self, rules=None):
        return as_rules_event(self, rules)


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

