"""Deadlines are rows swept by Celery beat, claimed and applied in one transaction (docs/architecture.md#time)."""

from datetime import timedelta

from django.db import models
from django.utils import timezone


class Deadline(models.Model):
    MOVE, REMINDER, TIMER = "move", "reminder", "timer"
    INVITATION = "invitation"  # an unanswered invitation lapses (games.services.expire_invitation)
    BOTS = "bots"  # bot moves a request left to the worker (games.services.play_bots): the safety net
    WINDOW = "window"  # the key of a reaction window's clocks: vacation never holds them (kinplay.clocks.vacation)

    game = models.ForeignKey("games.Game", on_delete=models.CASCADE, related_name="deadlines")
    kind = models.CharField(max_length=16, choices=[(k, k) for k in (MOVE, REMINDER, TIMER, INVITATION, BOTS)])
    seat = models.SmallIntegerField(null=True)  # None for a game timer
    # A timer's key from rules.timers(); WINDOW on a seat's clock (and reminder) in a reaction window.
    key = models.CharField(max_length=128, blank=True)
    due_at = models.DateTimeField(db_index=True)
    version = models.PositiveIntegerField()  # the game version when it was set
    done_at = models.DateTimeField(null=True, blank=True)
    outcome = models.CharField(max_length=32, blank=True)  # applied / superseded / timeout-bot / reminded ...
    attempts = models.PositiveSmallIntegerField(default=0)  # failed applications so far
    error = models.TextField(blank=True)  # the last failure, while it is retried
    # Held while the seat's player is on vacation (kinplay.clocks.vacation): the seconds the
    # clock had left; due_at is then PAUSED, so the sweep never finds the row.
    paused_left = models.PositiveIntegerField(null=True, blank=True)

    # A failing deadline is tried again after 5 s, 10 s, 20 s ... up to an hour, for ever: the
    # game waits on it, so it is never dropped; every failure is logged (ERROR from the 5th on).
    BACKOFF_FIRST, BACKOFF_MAX = 5, 3600

    class Meta:
        indexes = [models.Index(fields=["done_at", "due_at"])]

    def __str__(self):
        who = f"seat {self.seat}" if self.seat is not None else self.key
        return f"{self.kind} of game {self.game_id} ({who}) due {self.due_at:%Y-%m-%d %H:%M:%S}"

    @classmethod
    def due(cls, now):
        return cls.objects.filter(done_at__isnull=True, due_at__lte=now)

    def claim(self, now=None, outcome="claimed") -> bool:
        """Compare-and-set inside the caller's transaction: exactly one sweeper (or move) gets a
        pending row; the claim commits, or rolls back, with what applying it wrote."""
        now = now or timezone.now()
        return bool(Deadline.due(now).filter(pk=self.pk).update(done_at=now, outcome=outcome))

    def finish(self, outcome: str):
        Deadline.objects.filter(pk=self.pk).update(outcome=outcome[:32])

    def postpone(self, error: str, now=None) -> timedelta:
        """After a failure: try again later, backing off exponentially."""
        attempts = self.attempts + 1
        delay = timedelta(seconds=min(self.BACKOFF_MAX, self.BACKOFF_FIRST * 2 ** min(attempts - 1, 20)))
        Deadline.objects.filter(pk=self.pk, done_at__isnull=True).update(
            attempts=attempts, error=error[:2000], due_at=(now or timezone.now()) + delay)
        return delay


class Heartbeat(models.Model):
    """When a periodic job last completed (the deadline sweep), for /health."""

    name = models.CharField(max_length=32, primary_key=True)
    at = models.DateTimeField()

    @classmethod
    def beat(cls, name, at=None):
        cls.objects.update_or_create(name=name, defaults={"at": at or timezone.now()})

    @classmethod
    def last(cls, name):
        return cls.objects.filter(name=name).values_list("at", flat=True).first()


class Lease(models.Model):
    """Who may do a job that one node does at a time (beat's scheduling: kinplay.clocks.beat),
    until when. Taken and renewed by compare-and-set, like a deadline: a holder that dies stops
    renewing, and another takes the lease once it has run out. Expiry times come from each
    node's clock, which NTP keeps within far less than a lease's length."""

    name = models.CharField(max_length=32, primary_key=True)
    holder = models.CharField(max_length=200)
    expires_at = models.DateTimeField()

    @classmethod
    def hold(cls, name: str, holder: str, seconds: float, now=None) -> bool:
        """Take or renew the lease ``name`` for ``holder``; whether ``holder`` has it now."""
        now = now or timezone.now()
        until = now + timedelta(seconds=seconds)
        free = models.Q(holder=holder) | models.Q(expires_at__lt=now)
        if cls.objects.filter(free, name=name).update(holder=holder, expires_at=until):
            return True
        _, created = cls.objects.get_or_create(name=name, defaults={"holder": holder, "expires_at": until})
        return created

    @classmethod
    def release(cls, name: str, holder: str) -> None:
        """Give the lease up at once (a holder that stops cleanly), so another need not wait it out."""
        cls.objects.filter(name=name, holder=holder).delete()

    @classmethod
    def current(cls, name: str, now=None):
        """The holder and expiry of a lease still running, else None."""
        return cls.objects.filter(name=name, expires_at__gte=now or timezone.now()).values("holder", "expires_at").first()
