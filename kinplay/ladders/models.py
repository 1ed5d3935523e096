"""A ladder is an append-only stream of events (like a tournament); the row is its read model."""

from __future__ import annotations

from django.conf import settings
from django.db import models

from games.models import StreamEvent


class Ladder(models.Model):
    """The read model of one ladder: ``state`` is the fold of its events (kinplay.ladders.stream),
    rebuilt by ``rebuild_projections``. A ladder never ends: players join, challenge and leave."""

    name = models.CharField(max_length=80)
    kind = models.CharField(max_length=32)
    organiser = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")
    version = models.PositiveIntegerField(default=0)
    state = models.JSONField(default=dict)
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self):
        return self.name


class LadderEvent(StreamEvent):
    ladder = models.ForeignKey(Ladder, on_delete=models.PROTECT, related_name="events", db_index=False)

    class Meta:
        ordering = ["ladder", "seq"]
        constraints = [models.UniqueConstraint(fields=["ladder", "seq"], name="ladder_event_unique_seq")]


class LadderGame(models.Model):
    """Which ladder a challenge's game belongs to: how a game's answer or end finds its ladder in
    one indexed read. A projection of the challenged events."""

    game = models.OneToOneField("games.Game", on_delete=models.CASCADE, related_name="ladder_link", primary_key=True)
    ladder = models.ForeignKey(Ladder, on_delete=models.CASCADE, related_name="games")
    # The challenge has closed (its result or its answer is in the stream): the sweep's index of
    # finished games whose result the task has not recorded yet.
    done = models.BooleanField(default=False)

    class Meta:
        indexes = [models.Index(fields=["done"], name="laddergame_done", condition=models.Q(done=False))]
