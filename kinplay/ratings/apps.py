from django.apps import AppConfig


class RatingsConfig(AppConfig):
    name = "kinplay.ratings"
    label = "ratings"
