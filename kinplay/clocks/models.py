"""Deadlines are rows swept by Celery beat, claimed by compare-and-set (DESIGN.md, "Time")."""

from django.db import models
from django.utils import timezone


class Deadline(models.Model):
    MOVE, REMINDER, TIMER = "move", "reminder", "timer"
    INVITATION = "invitation"  # an unanswered invitation lapses (games.services.expire_invitation)
    BOTS = "bots"  # bot moves a request left to the worker (games.services.play_bots): the safety net

    game = models.ForeignKey("games.Game", on_delete=models.CASCADE, related_name="deadlines")
    kind = models.CharField(max_length=16, choices=[(k, k) for k in (MOVE, REMINDER, TIMER, INVITATION, BOTS)])
    seat = models.SmallIntegerField(null=True)  # None for a game timer
    key = models.CharField(max_length=128, blank=True)  # a timer's key from rules.timers()
    due_at = models.DateTimeField(db_index=True)
    version = models.PositiveIntegerField()  # the game version when it was set
    done_at = models.DateTimeField(null=True, blank=True)
    outcome = models.CharField(max_length=32, blank=True)  # applied / superseded / moved-first ...
    # Held while the seat's player is on vacation (kinplay.clocks.vacation): the seconds the
    # clock had left; due_at is then PAUSED, so the sweep never finds the row.
    paused_left = models.PositiveIntegerField(null=True, blank=True)

    class Meta:
        indexes = [models.Index(fields=["done_at", "due_at"])]

    def claim(self) -> bool:
        """Compare-and-set: exactly one sweeper gets a due row."""
        return bool(Deadline.objects.filter(pk=self.pk, done_at__isnull=True).update(done_at=timezone.now(), outcome="claimed"))

    def finish(self, outcome: str):
        Deadline.objects.filter(pk=self.pk).update(outcome=outcome)
