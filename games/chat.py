"""Table talk: each game has a players' chat and a spectators' chat, each its own append-only
stream (``ChatMessage``: (game, channel, seq) unique, no UPDATE or DELETE), beside the game's
events. Talking never changes the game: no version, no clock, no state.

Who sees what: the players' channel is read by everyone who may see the game; the spectators'
channel by spectators, and by the players once the game is over (no kibitzing while it runs).
"""

from __future__ import annotations

from datetime import datetime

from django.db import IntegrityError, transaction
from django.db.models import Max

from games import events
from games.models import ChatMessage, Game

SHOWN = 100  # lines a page shows of each channel (the newest)
MAIL_LINES = 8  # lines a turn email shows


class ChatRefused(ValueError):
    """A line that cannot be posted; the message says why, in words a player understands."""


class ChatClosed(ChatRefused):
    """The game's chat is closed (a cancelled game): the line was fine, the game refuses it now."""


def channel_of(game: Game, user) -> str:
    return ChatMessage.PLAYERS if game.seat_of(user) is not None else ChatMessage.SPECTATORS


def post_chat(game_id: int, user, text: str) -> ChatMessage:
    """Post ``text`` as ``user`` to the game's chat: the players' channel for a seated player,
    the spectators' one for anyone else. Used by the game page, the API and email replies (``say:``);
    ``events.chat_posted`` tells the apps that follow games (notifications push it to the others)."""
    text = " ".join((text or "").split())  # one line: no layout tricks, no empty lines
    if not text:
        raise ChatRefused("Write something first.")
    if len(text) > ChatMessage.MAX_LENGTH:
        raise ChatRefused(f"A chat line has at most {ChatMessage.MAX_LENGTH} characters (this one has {len(text)}).")
    if user is None or not user.is_authenticated:
        raise ChatRefused("Sign in to chat.")
    try:
        game = Game.objects.get(pk=game_id)
    except Game.DoesNotExist:
        raise ChatRefused("No such game.") from None
    if game.status == Game.ABORTED:
        raise ChatClosed("This game was cancelled: its chat is closed.")
    channel = channel_of(game, user)
    for _ in range(5):  # two lines posted at the same moment: the unique key orders them
        try:
            with transaction.atomic():
                last = (ChatMessage.objects.filter(game=game, channel=channel)
                        .aggregate(m=Max("seq"))["m"] or 0)
                message = ChatMessage.objects.create(game=game, channel=channel, seq=last + 1, user=user, text=text)
                events.chat_posted.send(sender=Game, game=game, message=message)
                return message
        except IntegrityError:
            continue
    raise ChatRefused("The chat is busy; please send again.")


def visible_channels(game: Game, user) -> list[str]:
    return channels_for(seated=game.seat_of(user) is not None, over=game.is_over)


def channels_for(*, seated: bool, over: bool) -> list[str]:
    """The chats one may read: a player, the players' alone until the game is over (no kibitzing)."""
    if not seated or over:
        return [ChatMessage.PLAYERS, ChatMessage.SPECTATORS]
    return [ChatMessage.PLAYERS]


def lines(game: Game, user, channel: str, after: int = 0) -> list[dict]:
    """The newest lines of one channel this user may read (oldest first)."""
    if channel not in visible_channels(game, user):
        return []
    rows = (ChatMessage.objects.filter(game=game, channel=channel, seq__gt=after)
            .select_related("user").order_by("-seq")[:SHOWN])
    return [line_of(m, user) for m in reversed(rows)]


def line_of(m: ChatMessage, user) -> dict:
    """One chat line as ``user`` (None: nobody signed in) reads it: the page, the API's list
    and the API's answer to a post say it alike."""
    return {"seq": m.seq, "name": m.user.username, "text": m.text, "at": m.at,
            "you": user is not None and m.user_id == user.pk}


def since(game: Game, when: datetime | None, user=None) -> list[dict]:
    """Players' lines posted after ``when`` (for a turn email), the newest ``MAIL_LINES``."""
    rows = ChatMessage.objects.filter(game=game, channel=ChatMessage.PLAYERS).select_related("user")
    if when is not None:
        rows = rows.filter(at__gt=when)
    recent = list(rows.order_by("-seq")[:MAIL_LINES])
    return [line_of(m, user) for m in reversed(recent)]
