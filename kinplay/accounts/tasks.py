from celery import shared_task

from kinplay.accounts.emails import queue_password_resets


@shared_task
def password_reset(email: str) -> int:
    """Look the address up away from the request (kinplay.accounts.services.ask_password_reset)."""
    return queue_password_resets(email)
