from celery import shared_task

from kinplay.notifications.held import release_held
from kinplay.notifications.services import relay


@shared_task
def relay_outbox():
    return relay()


@shared_task
def send_digests():
    return release_held()
