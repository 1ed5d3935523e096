"""The event store (DESIGN.md, "The event store") and the game read model."""

from __future__ import annotations

from django.conf import settings
from django.db import models


class Game(models.Model):
    """The read model of one game: rebuilt from its events by ``rebuild_projections``."""

    WAITING, ACTIVE, FINISHED, ABORTED = "waiting", "active", "finished", "aborted"
    STATUSES = [(s, s) for s in (WAITING, ACTIVE, FINISHED, ABORTED)]
    TIMEOUT_POLICIES = [("bot", "the bot plays"), ("skip", "skip the player"), ("forfeit", "forfeit")]

    kind = models.CharField(max_length=32)
    options = models.JSONField(default=dict)
    status = models.CharField(max_length=16, choices=STATUSES, default=WAITING)
    version = models.PositiveIntegerField(default=0)
    seed = models.CharField(max_length=64)  # secret until the game ends
    seed_sha256 = models.CharField(max_length=64)
    per_move = models.PositiveIntegerField(null=True, blank=True)  # seconds; None = no clock
    on_timeout = models.CharField(max_length=8, choices=TIMEOUT_POLICIES, default="bot")
    to_act = models.JSONField(default=list)  # seat indexes
    deadline = models.DateTimeField(null=True, blank=True)
    result = models.JSONField(null=True, blank=True)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        indexes = [models.Index(fields=["status", "updated_at"])]

    def __str__(self):
        return f"{self.kind} #{self.pk}"

    @property
    def is_over(self):
        return self.status in (self.FINISHED, self.ABORTED)

    def seat_of(self, user):
        if user is None or not user.is_authenticated:
            return None
        for seat in self.seats.all():
            if seat.user_id == user.pk:
                return seat.index
        return None


class Seat(models.Model):
    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="seats")
    index = models.PositiveSmallIntegerField()
    user = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="seats")
    bot = models.CharField(max_length=16, blank=True)  # "", "random" or "heuristic"

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


class AppendOnly(Exception):
    pass


class EventQuerySet(models.QuerySet):
    def update(self, **kwargs):
        raise AppendOnly("events are append-only")

    def delete(self):
        raise AppendOnly("events are append-only")


class Event(models.Model):
    """One fact in a game's history. Rows are never updated or deleted (a trigger agrees)."""

    game = models.ForeignKey(Game, on_delete=models.PROTECT, related_name="events")
    seq = models.PositiveIntegerField()
    type = models.CharField(max_length=64)
    data = models.JSONField(default=dict)
    seat = models.SmallIntegerField(null=True)  # the acting seat; None for the system
    at = models.DateTimeField(auto_now_add=True)
    idempotency_key = models.CharField(max_length=128, null=True, blank=True)
    # On the first event of each command: what was decided, so verify_game can decide it again.
    command = models.JSONField(null=True, blank=True)

    objects = EventQuerySet.as_manager()

    class Meta:
        ordering = ["game", "seq"]
        constraints = [
            models.UniqueConstraint(fields=["game", "seq"], name="event_unique_seq"),
            models.UniqueConstraint(
                fields=["game", "idempotency_key"],
                condition=models.Q(idempotency_key__isnull=False),
                name="event_unique_idempotency_key",
            ),
        ]

    def save(self, *args, **kwargs):
        if not self._state.adding:
            raise AppendOnly("events are append-only")
        super().save(*args, **kwargs)

    def delete(self, *args, **kwargs):
        raise AppendOnly("events are append-only")

    def as_rules_event(self):
        return {"type": self.type, "data": self.data}


class Snapshot(models.Model):
    """A cache of a game's state after event ``seq``; rebuildable, checked against replay."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="snapshots")
    seq = models.PositiveIntegerField()
    state = models.JSONField()

    class Meta:
        constraints = [models.UniqueConstraint(fields=["game", "seq"], name="snapshot_unique_seq")]
