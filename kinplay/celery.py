import os

from celery import Celery
from kombu.transport import TRANSPORT_ALIASES

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "kinplay.settings")

# The embedded broker (settings.CELERY_BROKER_URL without REDIS_URL): kombu's filesystem
# transport, made to survive a full disk (kinplay/infra/broker.py).
TRANSPORT_ALIASES.setdefault("kinplayfs", "kinplay.infra.broker:FilesystemTransport")

app = Celery("kinplay")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks(["kinplay.accounts", "games", "kinplay.clocks", "kinplay.notifications", "kinplay.tournaments", "kinplay.leagues"])
