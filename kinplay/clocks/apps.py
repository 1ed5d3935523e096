from django.apps import AppConfig


class Config(AppConfig):
    name = "kinplay.clocks"
    label = "clocks"
