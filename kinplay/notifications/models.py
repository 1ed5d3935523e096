"""The transactional outbox: written with the events, relayed by Celery after commit."""

from datetime import timedelta
from email.utils import parseaddr

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone


class Outbox(models.Model):
    YOUR_TURN, REMINDER, GAME_OVER = "your_turn", "reminder", "game_over"
    MOVE_ACCEPTED, MOVE_REFUSED = "move_accepted", "move_refused"  # answers to moves by email
    DIGEST = "digest"  # several games waiting for one player: game is NULL, ``games`` names them
    TURN_MAIL = (YOUR_TURN, REMINDER, DIGEST)  # what a digest interval spaces out

    INVITATION, INVITE_DECLINED, INVITE_EXPIRED = "invitation", "invite_declined", "invite_expired"
    PLAYER_LEFT = "player_left"  # a player who had joined or accepted left before the start
    GAME_CANCELLED = "game_cancelled"  # the creator called off a game before it started
    VACATION_OVER = "vacation_over"  # about no game: game is None (kinplay.notifications.consent)
    CHAT = "chat"  # a line of the players' table talk, pushed only (no email); ``detail`` is its seq
    # Account emails (kinplay.accounts.emails): game is None, ``detail`` is the address written to.
    ADDRESS, PASSWORD_RESET = "address", "password_reset"

    # A notification goes by email and, to each of the player's browsers subscribed to it, by Web
    # Push (kinplay.notifications.push): one row per delivery, relayed, retried and held alike.
    EMAIL, PUSH = "email", "push"
    channel = models.CharField(max_length=8, default=EMAIL)
    subscription = models.ForeignKey("PushSubscription", null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    kind = models.CharField(max_length=16)
    game = models.ForeignKey("games.Game", null=True, blank=True, on_delete=models.CASCADE, related_name="+")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
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
    next_attempt_at = models.DateTimeField(null=True, blank=True)  # after a failure: not before
    failed_at = models.DateTimeField(null=True, blank=True)  # gave up: shown to the player and in the admin

    # Longer than any send can take (EMAIL_TIMEOUT bounds each network step): a claim older
    # than this belongs to a relay that died.
    CLAIM_TIMEOUT = timedelta(minutes=2)
    # After a failure: 30 s, 1, 2, 4 ... minutes, then every 2 hours; the 12th failure (about
    # 8 hours after the first) is final.
    BACKOFF_FIRST, BACKOFF_MAX, MAX_ATTEMPTS = 30, 2 * 3600, 12

    class Meta:
        indexes = [models.Index(fields=["sent_at", "created_at"])]

    def __str__(self):
        return f"{self.kind} to {self.user} about game {self.game_id} v{self.version}"

    @classmethod
    def pending(cls):
        now = timezone.now()
        stale = now - cls.CLAIM_TIMEOUT
        return (cls.objects.filter(sent_at__isnull=True, failed_at__isnull=True, held_at__isnull=True)
                .filter(Q(next_attempt_at__isnull=True) | Q(next_attempt_at__lte=now))
                .filter(Q(claimed_at__isnull=True) | Q(claimed_at__lt=stale)))

    @classmethod
    def held(cls):
        return cls.objects.filter(sent_at__isnull=True, held_at__isnull=False)

    @classmethod
    def emails(cls):
        """The email rows: what a player's inbox has seen (not their pushes)."""
        return cls.objects.filter(channel=cls.EMAIL)

    @property
    def message_id(self) -> str:
        """The same for every attempt: a repeat after a crash between sending and marking
        sent is collapsed by the recipient's mail client instead of showing twice."""
        domain = parseaddr(settings.DEFAULT_FROM_EMAIL)[1].rpartition("@")[2] or "kinplay.local"
        return f"<outbox.{self.pk}.{self.created_at:%Y%m%d%H%M%S}@{domain}>"

    def backoff(self) -> timedelta:
        """How long to wait after the ``attempts``-th failure."""
        return timedelta(seconds=min(self.BACKOFF_MAX, self.BACKOFF_FIRST * 2 ** min(max(self.attempts - 1, 0), 20)))

    def claim(self) -> bool:
        """Compare-and-set: only one relay gets a row that is unclaimed (or whose claim went stale)."""
        return bool(
            Outbox.pending().filter(pk=self.pk).update(claimed_at=timezone.now(), attempts=models.F("attempts") + 1)
        )


class InboundMail(models.Model):
    """Each authenticated reply taken, by Message-ID: the same email is never applied twice."""

    message_id = models.CharField(max_length=255, unique=True)
    user = models.ForeignKey("auth.User", on_delete=models.CASCADE, related_name="+")
    received_at = models.DateTimeField(auto_now_add=True, db_index=True)
    outcome = models.CharField(max_length=32)

    @classmethod
    def forget_old(cls):
        """A Message-ID older than any live token can go: replaying that email finds its token
        expired (the token is older still) and changes nothing."""
        cls.objects.filter(received_at__lt=timezone.now() - timedelta(days=settings.MAIL_TOKEN_MAX_AGE_DAYS + 1)).delete()


class Bounce(models.Model):
    """A delivery report about one of our emails (kinplay.notifications.bounces): a hard bounce
    (the mailbox does not exist, the domain refuses) counts towards stopping mail to ``address``;
    a soft one (full mailbox, greylisting: the sending server retries) is kept for the admin."""

    address = models.CharField(max_length=254, db_index=True)  # lower case
    outbox = models.ForeignKey(Outbox, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    hard = models.BooleanField()
    report_id = models.CharField(max_length=255, unique=True)  # the report's Message-ID: a redelivery counts once
    received_at = models.DateTimeField(auto_now_add=True)

    def __str__(self):
        return f"{'hard' if self.hard else 'soft'} bounce from {self.address}"

    @classmethod
    def failing(cls, address: str) -> bool:
        """MAIL_HARD_BOUNCES hard bounces (since the address was last confirmed): we stop writing to it."""
        if not address:
            return False
        return cls.objects.filter(address=address.strip().lower(), hard=True).count() >= settings.MAIL_HARD_BOUNCES


class Look(models.Model):
    """When a player last had a game's page open (or the lobby: ``game`` NULL), and the last
    version of that game the page showed them (kinplay.notifications.presence): turn emails wait
    while they are at the table, and the page and the emails mark what is new since."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    game = models.ForeignKey("games.Game", null=True, blank=True, on_delete=models.CASCADE, related_name="+")
    seen_at = models.DateTimeField()
    version = models.PositiveIntegerField(default=0)  # the game version the page last showed

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["user", "game"], name="look_one_per_game"),
            models.UniqueConstraint(fields=["user"], condition=Q(game__isnull=True), name="look_one_lobby"),
        ]


class PushSubscription(models.Model):
    """One browser's Web Push subscription (the PushSubscription the browser's push service gave
    it): where to send, and the keys the payload is encrypted with (RFC 8291)."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    endpoint = models.URLField(max_length=2000, unique=True)
    p256dh = models.CharField(max_length=100)  # the browser's public key, base64url
    auth = models.CharField(max_length=40)  # the shared authentication secret, base64url
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self):
        return f"push to {self.user} at {self.endpoint[:60]}"

    @property
    def info(self) -> dict:
        """As pywebpush takes it (and as the browser's PushSubscription.toJSON() gives it)."""
        return {"endpoint": self.endpoint, "keys": {"p256dh": self.p256dh, "auth": self.auth}}


class PushChoice(models.Model):
    """The kinds of push a player switched off (kinplay.notifications.push.GROUPS); none by default."""

    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    off = models.JSONField(default=list, blank=True)  # group names
