from celery import shared_task

from kinplay.clocks.services import sweep


@shared_task
def sweep_deadlines():
    return sweep()
