from django.apps import AppConfig


class Config(AppConfig):
    name = "kinplay.accounts"
    label = "accounts"
