from celery import shared_task

from kinplay.clocks.services import sweep


@shared_task
def sweep_deadlines():
    return sweep()


@shared_task
def end_vacations():
    from kinplay.clocks.vacation import sweep as end_used_up

    return end_used_up()
