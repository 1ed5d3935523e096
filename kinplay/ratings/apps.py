from django.apps import AppConfig


class RatingsConfig(AppConfig):
    name = "kinplay.ratings"
    label = "ratings"

    def ready(self):
        from django.contrib.auth import get_user_model
        from django.db.models.signals import post_save

        from games import services
        from kinplay.ratings.selectors import forget_deactivated
        from kinplay.ratings.services import record_game_over

        post_save.connect(forget_deactivated, sender=get_user_model(), dispatch_uid="ratings-forget-deactivated")

        # First: the finish time it stamps and the ratings it writes are there for the others.
        if record_game_over not in services.ON_GAME_FINISHED:
            services.ON_GAME_FINISHED.insert(0, record_game_over)
