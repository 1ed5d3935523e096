"""A league is an append-only stream of events (like a tournament); the row is its read model."""

from __future__ import annotations

from django.conf import settings
from django.db import models

from games.models import StreamEvent


class League(models.Model):
    """The read model of one league: ``state`` is the fold of its events
    (kinplay.leagues.stream), rebuilt by ``rebuild_projections``."""

    OPEN, RUNNING = "open", "running"  # open: waiting for its first season

    name = models.CharField(max_length=80)
    kind = models.CharField(max_length=32)
    status = models.CharField(max_length=16, default=OPEN)
    organiser = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")
    version = models.PositiveIntegerField(default=0)
    state = models.JSONField(default=dict)
    season = models.PositiveIntegerField(default=0)  # the current season's number
    starts_at = models.DateTimeField(null=True, blank=True)  # the first season starts then
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        indexes = [models.Index(fields=["status"], name="league_status")]

    def __str__(self):
        return self.name


class LeagueEvent(StreamEvent):
    league = models.ForeignKey(League, on_delete=models.PROTECT, related_name="events", db_index=False)

    class Meta:
        ordering = ["league", "seq"]
        constraints = [models.UniqueConstraint(fields=["league", "seq"], name="league_event_unique_seq")]


class Division(models.Model):
    """One division of one season: its tournament. A projection of season_started, the index
    the roll-over sweep reads (every division of the current season finished?)."""

    tournament = models.OneToOneField("tournaments.Tournament", on_delete=models.CASCADE, primary_key=True, related_name="division")
    league = models.ForeignKey(League, on_delete=models.CASCADE, related_name="divisions")
    season = models.PositiveIntegerField()
    number = models.PositiveSmallIntegerField()

    class Meta:
        indexes = [models.Index(fields=["league", "season"], name="division_league_season")]


class Placement(models.Model):
    """A player's season in a league (division, final rank, move): a projection of the stream
    for the player page's league history, one indexed read."""

    league = models.ForeignKey(League, on_delete=models.CASCADE, related_name="placements")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    season = models.PositiveIntegerField()
    division = models.PositiveSmallIntegerField()
    rank = models.PositiveIntegerField(null=True)
    move = models.CharField(max_length=8, null=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["league", "user", "season"], name="placement_unique")]
        indexes = [models.Index(fields=["user"], name="placement_user")]
