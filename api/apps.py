from django.apps import AppConfig


class ApiConfig(AppConfig):
    name = "api"

    def ready(self):
        from django.contrib.auth import get_user_model
        from django.db.models.signals import post_delete, post_save
        from rest_framework.authtoken.models import Token

        from api import authentication

        post_delete.connect(authentication.forget, sender=Token, dispatch_uid="api-forget-token")
        post_save.connect(authentication.forget, sender=get_user_model(), dispatch_uid="api-forget-user")
