"""The transactional outbox: written with the events, relayed by Celery after commit."""

from datetime import timedelta

from django.db import models
from django.db.models import Q
from django.utils import timezone


class Outbox(models.Model):
    YOUR_TURN, REMINDER, GAME_OVER = "your_turn", "reminder", "game_over"
    MOVE_ACCEPTED, MOVE_REFUSED = "move_accepted", "move_refused"  # answers to moves by email
    DIGEST = "digest"  # several games waiting for one player: game is NULL, ``games`` names them
    TURN_MAIL = (YOUR_TURN, REMINDER, DIGEST)  # what a digest interval spaces out

    INVITATION, INVITE_DECLINED, INVITE_EXPIRED = "invitation", "invite_declined", "invite_expired"
    VACATION_OVER = "vacation_over"  # about no game: game is None (kinplay.notifications.consent)

    kind = models.CharField(max_length=16)
    game = models.ForeignKey("games.Game", null=True, blank=True, on_delete=models.CASCADE, related_name="+")
    user = models.ForeignKey("auth.User", on_delete=models.CASCADE, related_name="+")
    version = models.PositiveIntegerField()  # the game version the message speaks of (0 for a digest)
    games = models.JSONField(default=dict, blank=True)  # a digest: {"<game id>": version}
    created_at = models.DateTimeField(auto_now_add=True)
    claimed_at = models.DateTimeField(null=True, blank=True)
    sent_at = models.DateTimeField(null=True, blank=True)  # sent, or done with when held (folded_into)
    # Held (quiet hours, digest interval): not relayed; the digest sweep folds it into one message
    # (folded_into) or releases it (held_at back to NULL).
    held_at = models.DateTimeField(null=True, blank=True)
    folded_into = models.ForeignKey("self", on_delete=models.SET_NULL, null=True, blank=True, related_name="+")
    attempts = models.PositiveSmallIntegerField(default=0)
    error = models.TextField(blank=True)
    detail = models.TextField(blank=True)  # the move or the refusal an answer speaks of

    CLAIM_TIMEOUT = timedelta(minutes=2)

    class Meta:
        indexes = [models.Index(fields=["sent_at", "created_at"])]

    @classmethod
    def pending(cls):
        stale = timezone.now() - cls.CLAIM_TIMEOUT
        return cls.objects.filter(sent_at__isnull=True, attempts__lt=10, held_at__isnull=True).filter(Q(claimed_at__isnull=True) | Q(claimed_at__lt=stale))

    @classmethod
    def held(cls):
        return cls.objects.filter(sent_at__isnull=True, held_at__isnull=False)

    def claim(self) -> bool:
        """Compare-and-set: only one relay gets a row that is unclaimed (or whose claim went stale)."""
        return bool(
            Outbox.pending().filter(pk=self.pk).update(claimed_at=timezone.now(), attempts=models.F("attempts") + 1)
        )
