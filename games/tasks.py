from celery import shared_task

from games import services


@shared_task
def play_bots(game_id):
    """Bot moves a request left owed (bounded work per request): see services.play_bots."""
    return services.play_bots(game_id)


@shared_task
def compact_streams():
    """The streams of games over for COMPACT_AFTER_HOURS, compacted: see services.compact_streams."""
    return services.compact_streams()
