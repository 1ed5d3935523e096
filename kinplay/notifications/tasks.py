from celery import shared_task

from kinplay.notifications.services import relay


@shared_task
def relay_outbox():
    return relay()
