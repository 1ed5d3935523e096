from django.apps import AppConfig
from django.contrib.auth import get_user_model
from django.db.models.signals import post_save


class Config(AppConfig):
    name = "kinplay.accounts"
    label = "accounts"

    def ready(self):
        # deferred: these modules import models, which need the app registry ready
        from kinplay.accounts import emails, receivers
        from kinplay.notifications.services import register_composer

        post_save.connect(receivers.keep_keys, sender=get_user_model(), dispatch_uid="accounts-keep-keys")
        register_composer(emails.KINDS, emails.compose)
