from celery import shared_task

from kinplay.tournaments import services


@shared_task
def advance_tournament(tournament_id):
    return services.advance(tournament_id)


@shared_task
def sweep_tournaments():
    return services.sweep()
