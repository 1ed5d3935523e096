from django.conf import settings
from django.db import models


class Profile(models.Model):
    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="profile")
    email_turns = models.BooleanField(default=True, help_text="Email me when it is my turn.")

    @classmethod
    def of(cls, user):
        profile, _ = cls.objects.get_or_create(user=user)
        return profile
