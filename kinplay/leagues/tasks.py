from celery import shared_task


@shared_task
def roll_over_league(league_id):
    from kinplay.leagues.services import roll_over

    return roll_over(league_id)


@shared_task
def sweep_leagues():
    from kinplay.leagues.services import sweep

    return sweep()
