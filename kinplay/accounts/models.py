from datetime import datetime, time, timedelta
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from django.conf import settings
from django.db import models


class Profile(models.Model):
    # How often turn emails may come: 0 = one per turn; otherwise at most one per that many minutes,
    # listing every game waiting for the player (a digest).
    EACH_TURN, HOURLY, EVERY_3_HOURS, DAILY = 0, 60, 180, 1440
    EMAIL_EVERY = [
        (EACH_TURN, "Each turn: one email per game as soon as it is my turn"),
        (HOURLY, "At most one email an hour, listing every game waiting for me"),
        (EVERY_3_HOURS, "At most one email every 3 hours, listing every game waiting for me"),
        (DAILY, "At most one email a day, listing every game waiting for me"),
    ]

    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="profile")
    email_turns = models.BooleanField(default=True, help_text="Email me when it is my turn.")
    # The confusable-safe key of the username (accounts.usernames): no two players look alike.
    username_key = models.CharField(max_length=150, unique=True, null=True, blank=True)
    # The user's address as compared (email_key): one address, one account, even when two
    # accounts confirm the same address at the same moment. None without an address.
    email_key = models.CharField(max_length=254, unique=True, null=True, blank=True)
    email_every = models.PositiveIntegerField(choices=EMAIL_EVERY, default=EACH_TURN)
    # False (the default): no turn email, reminder or digest while the player has the game's page
    # or the lobby open (kinplay.notifications.presence).
    EMAIL_ON_SITE = [
        (False, "Not while I am on the site: a turn I see on the game's page or the lobby sends no email"),
        (True, "Even while I am on the site"),
    ]
    email_on_site = models.BooleanField(choices=EMAIL_ON_SITE, default=False)
    time_zone = models.CharField(max_length=64, default="UTC")
    # Off by default: until a player has told us their time zone, 23:00 UTC could be their afternoon.
    quiet_hours = models.BooleanField(default=False)
    quiet_from = models.TimeField(default=time(23, 0))
    quiet_to = models.TimeField(default=time(7, 0))
    # Vacation (kinplay.clocks.vacation): on while vacation_since is set; it ends by itself at
    # vacation_ends_at, when this year's allowance is used up.
    vacation_since = models.DateTimeField(null=True, blank=True)
    vacation_ends_at = models.DateTimeField(null=True, blank=True)
    vacation_year = models.PositiveSmallIntegerField(null=True, blank=True)  # the year vacation_seconds counts
    vacation_seconds = models.PositiveIntegerField(default=0)  # used in vacation_year, closed periods only
    # Game page: a tap on a move or the board selects it and a second tap on Confirm plays it;
    # players who never mis-tap may switch that off (then one tap plays).
    confirm_moves = models.BooleanField(default=True)
    # The player called off their change of address: every link sent before this is void
    # (accounts.services.cancel_email_change), and settings no longer shows it as waiting.
    address_cancelled_at = models.DateTimeField(null=True, blank=True)

    @classmethod
    def of(cls, user):
        profile, _ = cls.objects.get_or_create(user=user)
        return profile

    @property
    def tz(self) -> ZoneInfo:
        try:
            return ZoneInfo(self.time_zone or "UTC")
        except (ZoneInfoNotFoundError, ValueError):
            return ZoneInfo("UTC")

    def is_quiet(self, now: datetime) -> bool:
        """Inside the player's quiet hours at ``now`` (an aware datetime)?"""
        if not self.quiet_hours or self.quiet_from == self.quiet_to:
            return False
        t = now.astimezone(self.tz).time()
        if self.quiet_from < self.quiet_to:
            return self.quiet_from <= t < self.quiet_to
        return t >= self.quiet_from or t < self.quiet_to  # across midnight: 23:00–07:00

    def quiet_span(self, at: datetime) -> tuple[datetime, datetime] | None:
        """The quiet hours ``at`` falls in, as (start, end) aware datetimes; None outside them."""
        if not self.is_quiet(at):
            return None
        local, overnight = at.astimezone(self.tz), self.quiet_from > self.quiet_to
        first = local.date() - timedelta(days=1) if overnight and local.time() < self.quiet_to else local.date()
        start = datetime.combine(first, self.quiet_from, tzinfo=self.tz)
        return start, datetime.combine(first + timedelta(days=overnight), self.quiet_to, tzinfo=self.tz)

    @property
    def digest_interval(self) -> timedelta | None:
        return timedelta(minutes=self.email_every) if self.email_every else None

    @property
    def on_vacation(self):
        return self.vacation_since is not None


def email_key(address: str | None) -> str | None:
    """An address as kinplay compares them: case and surrounding spaces aside (Profile.email_key,
    emails.owner_of)."""
    return (address or "").strip().lower() or None
