from celery import shared_task


@shared_task
def advance_tournament(tournament_id):
    from kinplay.tournaments.services import advance

    return advance(tournament_id)


@shared_task
def sweep_tournaments():
    from kinplay.tournaments.services import sweep

    return sweep()
