from celery import shared_task


@shared_task
def sweep_leagues():
    """Beat: start due first seasons and roll over seasons whose divisions have all finished."""
    from kinplay.leagues.services import sweep

    return sweep()
