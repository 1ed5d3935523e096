from django.apps import AppConfig
from django.contrib.auth import get_user_model
from django.db.models.signals import post_save

from games import events


class RatingsConfig(AppConfig):
    name = "kinplay.ratings"
    label = "ratings"

    def ready(self):
        # deferred: these modules import models, which need the app registry ready
        from kinplay.ratings import receivers
        from kinplay.ratings.selectors import forget_deactivated

        post_save.connect(forget_deactivated, sender=get_user_model(), dispatch_uid="ratings-forget-deactivated")

        # Before tournaments' (INSTALLED_APPS' order): the finish time it stamps and the ratings
        # it writes are there for them (games/events.py).
        events.game_finished.connect(receivers.game_finished, dispatch_uid="ratings")
