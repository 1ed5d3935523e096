from celery import shared_task

from kinplay.clocks.services import sweep
from kinplay.clocks.vacation import sweep as end_used_up


@shared_task
def sweep_deadlines():
    return sweep()


@shared_task
def end_vacations():
    return end_used_up()
