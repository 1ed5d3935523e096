import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "kinplay.settings")

app = Celery("kinplay")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks(["games", "kinplay.clocks", "kinplay.notifications"])
