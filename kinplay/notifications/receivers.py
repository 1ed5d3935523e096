"""The emails that follow the games (games.events): "your turn" and "game over" after each
change, invitations, and what the creator and the table are told when a seat is given back or a
game is called off; table talk pushed to the other players; and the moves that come in by email
through a provider (django-anymail)."""

from __future__ import annotations

from kinplay.notifications import consent
from kinplay.notifications.authentication import provider_verdict
from kinplay.notifications.replies import receive_message
from kinplay.notifications.services import change_mail, notify_after_change, notify_chat, queue


def games_created(sender, *, games, opened, present, **kwargs) -> None:
    """Each invited seat gets one email (its deadline: kinplay.clocks.receivers), and each game
    that started at once its "your turn" emails, but not to a creator looking at it: all in one
    statement."""
    for game in games:
        invited = [s.user for s in game.seat_list if s.invited]
        if invited:
            consent.invite(game, invited)
    mail = []
    for game, entries, acted, _ in opened:
        mail += change_mail(game, before=set(), now=set(entries), acted=acted, present=present.get(game.pk))
    queue(mail)


def game_changing(sender, *, game, entries, before, acted, present, **kwargs) -> None:
    notify_after_change(game, before=before, now=set(entries), acted=acted, present=present)


def game_called_off(sender, *, game, why, **kwargs) -> None:
    """The creator's cancel tells everyone at the table; a game cancelled because a seat was
    given back is told by ``seat_withdrawn``."""
    if why == "cancelled":
        consent.game_cancelled(game)


def chat_posted(sender, *, game, message, **kwargs) -> None:
    notify_chat(game, message)


def seat_withdrawn(sender, *, game, who, expired, cancelled, left, **kwargs) -> None:
    consent.invitation_closed(game, who, expired=expired, cancelled=cancelled, left=left)


def inbound(sender, event, esp_name, **kwargs):
    """Moves by email through a provider's inbound webhook (django-anymail): the same checks as
    a piped message, with the provider's verdict on the sender where anymail passes one on."""
    message = event.message
    envelope = [message.envelope_recipient] if getattr(message, "envelope_recipient", None) else []
    try:  # for MAIL_VERIFY_DKIM; a re-serialised message may fail DKIM, never pass it falsely
        raw = message.as_bytes()
    except Exception:  # noqa: BLE001  the stdlib cannot always write a hostile message back out
        raw = None
    receive_message(message, raw=raw, envelope=envelope, provider=provider_verdict(esp_name, event))
