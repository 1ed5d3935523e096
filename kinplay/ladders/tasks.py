from celery import shared_task

from kinplay.ladders import services


@shared_task
def record_result(game_id):
    """A challenge's game finished: its result in the ladder's stream (after the move's commit)."""
    return services.record_result(game_id)


@shared_task
def sweep_ladders():
    """Beat: results the task missed (a broker down at the game's end)."""
    return services.sweep()
