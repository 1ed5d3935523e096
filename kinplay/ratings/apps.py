from django.apps import AppConfig


class RatingsConfig(AppConfig):
    name = "kinplay.ratings"
    label = "ratings"

    def ready(self):
        from games import services
        from kinplay.ratings.services import record_game_over

        # First: the finish time it stamps and the ratings it writes are there for the others.
        if record_game_over not in services.ON_GAME_FINISHED:
            services.ON_GAME_FINISHED.insert(0, record_game_over)
