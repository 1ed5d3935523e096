from django.conf import settings
from django.db import models
from django.db.models.signals import post_save
from django.dispatch import receiver


class Profile(models.Model):
    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="profile")
    email_turns = models.BooleanField(default=True, help_text="Email me when it is my turn.")
    # The confusable-safe key of the username (accounts.usernames): no two players look alike.
    username_key = models.CharField(max_length=150, unique=True, null=True, blank=True)
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


@receiver(post_save, sender=settings.AUTH_USER_MODEL)
def _keep_username_key(sender, instance, raw=False, update_fields=None, **kwargs):
    """Every way of saving a user (sign-up, API, admin, createsuperuser) keeps the key: a name
    that looks like another's fails here with IntegrityError even if a form forgot to check."""
    from kinplay.accounts.usernames import key

    if raw or (update_fields is not None and "username" not in update_fields):
        return  # fixtures, or a save that left the name alone (last_login, email)
    Profile.objects.update_or_create(user=instance, defaults={"username_key": key(instance.username)})
