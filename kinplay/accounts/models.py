from django.conf import settings
from django.db import models


class Profile(models.Model):
    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="profile")
    email_turns = models.BooleanField(default=True, help_text="Email me when it is my turn.")
    # Vacation (kinplay.clocks.vacation): on while vacation_since is set; it ends by itself at
    # vacation_ends_at, when this year's allowance is used up.
    vacation_since = models.DateTimeField(null=True, blank=True)
    vacation_ends_at = models.DateTimeField(null=True, blank=True)
    vacation_year = models.PositiveSmallIntegerField(null=True, blank=True)  # the year vacation_seconds counts
    vacation_seconds = models.PositiveIntegerField(default=0)  # used in vacation_year, closed periods only

    @classmethod
    def of(cls, user):
        profile, _ = cls.objects.get_or_create(user=user)
        return profile

    @property
    def on_vacation(self):
        return self.vacation_since is not None
