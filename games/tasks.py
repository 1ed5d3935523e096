from celery import shared_task

from games import services


@shared_task
def play_bots(game_id):
    """Bot moves a request left owed (bounded work per request): see services.play_bots."""
    return services.play_bots(game_id)
