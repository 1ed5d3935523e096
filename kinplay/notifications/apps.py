from django.apps import AppConfig


class Config(AppConfig):
    name = "kinplay.notifications"
    label = "notifications"
