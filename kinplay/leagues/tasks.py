from celery import shared_task

from kinplay.leagues.services import sweep


@shared_task
def sweep_leagues():
    """Beat: start due first seasons and roll over seasons whose divisions have all finished."""
    return sweep()
