"""A tournament is an append-only stream of events (like a game); the row is its read model."""

from __future__ import annotations

from django.conf import settings
from django.db import models

from games.models import StreamEvent


class Tournament(models.Model):
    """The read model of one tournament: ``state`` is the fold of its events
    (kinplay.tournaments.stream), rebuilt by ``rebuild_projections``."""

    OPEN, RUNNING, FINISHED, CANCELLED = "open", "running", "finished", "cancelled"
    STATUSES = [(s, s) for s in (OPEN, RUNNING, FINISHED, CANCELLED)]
    FORMATS = ["swiss", "round_robin", "knockout"]

    name = models.CharField(max_length=80)
    kind = models.CharField(max_length=32)
    format = models.CharField(max_length=16)
    status = models.CharField(max_length=16, choices=STATUSES, default=OPEN)
    organiser = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")
    seed = models.CharField(max_length=64)  # secret until the tournament ends
    seed_sha256 = models.CharField(max_length=64)
    version = models.PositiveIntegerField(default=0)
    state = models.JSONField(default=dict)  # the projection: players, rounds, results
    # The event the projection has folded in: a game-over appends its event without reading
    # the (large) state; the next read folds the few events after this one (services.load).
    state_version = models.PositiveIntegerField(default=0)
    starts_at = models.DateTimeField(null=True, blank=True)  # registration closes, it starts
    round_ends_at = models.DateTimeField(null=True, blank=True)  # the running round's time limit
    # When players whose game still runs are warned that the round ends (plan.warning_at); set
    # when a round starts, cleared by the sweep that claims it (claim_warning): one email a round.
    warn_at = models.DateTimeField(null=True, blank=True)
    # A round is complete (or its time is up) and the next has not been paired yet: the sweep's index.
    needs_advance = models.BooleanField(default=False)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        indexes = [models.Index(fields=["status"], name="tournament_status")]

    def __str__(self):
        return self.name

    def claim_warning(self, now) -> bool:
        """Compare-and-set inside the caller's transaction: of the sweeps that listed this row
        with this ``warn_at``, one gets the round's warning; the claim commits, or rolls back,
        with the emails it queued. A round started since has its own ``warn_at``."""
        return bool(Tournament.objects.filter(pk=self.pk, status=self.RUNNING, warn_at=self.warn_at, warn_at__lte=now)
                    .update(warn_at=None))


class TournamentEvent(StreamEvent):
    tournament = models.ForeignKey(Tournament, on_delete=models.PROTECT, related_name="events", db_index=False)

    class Meta:
        ordering = ["tournament", "seq"]
        constraints = [models.UniqueConstraint(fields=["tournament", "seq"], name="tournament_event_unique_seq")]


class TournamentGame(models.Model):
    """Which tournament, round and table a game belongs to: how a game-over finds its
    tournament in one indexed read. A projection of the round_started/game_added events."""

    game = models.OneToOneField("games.Game", on_delete=models.CASCADE, related_name="tournament_link", primary_key=True)
    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="games")
    round = models.PositiveSmallIntegerField()
    table = models.PositiveIntegerField()
