from django.apps import AppConfig


class InfraConfig(AppConfig):
    name = "kinplay.infra"
    label = "infra"
    verbose_name = "Infrastructure"
