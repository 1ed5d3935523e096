from django.apps import AppConfig


class Config(AppConfig):
    name = "kinplay.web"
    label = "web"
