"""Moves by email, as the old email judges played: reply to a turn email with your move.

The reply goes to an address that carries a signed token naming the game and the seat, and it
must come from that seat's player's address. Anything else changes nothing.
"""

from __future__ import annotations

import logging
import re

from django.conf import settings
from django.core import signing
from django.db import transaction

from games import chat, services
from games.engine import IllegalAction
from games.models import Game
from games.store import VersionConflict
from kinplay.notifications.models import Outbox

log = logging.getLogger("kinplay.notifications")

SIGNER = signing.Signer(salt="kinplay.mail-move", sep=".")
TOKEN = re.compile(r"\+(\d+-\d+\.[A-Za-z0-9_-]{20,})@")


def reply_address(game_id: int, seat: int) -> str:
    local, domain = settings.MAIL_REPLY_ADDRESS.split("@")
    return f"{local}+{SIGNER.sign(f'{game_id}-{seat}')}@{domain}"


def read_move(text: str) -> str | None:
    """The first line the player wrote: not quoted, not blank, above any signature."""
    for line in (text or "").splitlines():
        line = line.strip()
        if line in ("--", "-- ") or re.match(r"^On .+ wrote:$", line):
            break
        if line and not line.startswith(">") and not SAY.match(line):
            return line[:200]
    return None


SAY = re.compile(r"^say:\s*", re.IGNORECASE)


def read_says(text: str) -> list[str]:
    """Lines starting with ``say:`` (above any quote or signature): table talk for the game's chat."""
    said = []
    for line in (text or "").splitlines():
        line = line.strip()
        if line in ("--", "-- ") or re.match(r"^On .+ wrote:$", line):
            break
        if SAY.match(line) and SAY.sub("", line):
            said.append(SAY.sub("", line))
    return said


def receive(*, sender: str, recipients: list[str], text: str) -> str:
    """Apply a reply; returns what happened (for logs and tests)."""
    match = next((m for m in (TOKEN.search(r or "") for r in recipients) if m), None)
    if match is None:
        return "no-token"
    try:
        game_id, seat = map(int, SIGNER.unsign(match.group(1)).split("-"))
    except (signing.BadSignature, ValueError):
        log.warning("mail move with a bad token from %s", sender)
        return "bad-token"
    game = Game.objects.filter(pk=game_id).first()
    owner = game and game.seats.filter(index=seat).select_related("user").first()
    if not owner or not owner.user_id or owner.user.email.lower() != (sender or "").strip().lower():
        log.warning("mail move for game %s seat %s from the wrong sender %s", game_id, seat, sender)
        return "wrong-sender"  # no answer: a stranger must learn nothing, not even that the game exists
    said = read_says(text)
    for line in said:
        try:
            chat.post_chat(game_id, owner.user, line)
        except chat.ChatRefused as exc:
            log.info("say: line refused for game %s: %s", game_id, exc)
    move = read_move(text)
    if move is None and said:
        return "said"  # only table talk: nothing to play, nothing to answer
    try:
        if move is None:
            raise IllegalAction("Your reply had no move in it: write it on the first line.")
        if move.lower() == "resign":
            services.resign(game_id, seat)
        else:
            services.act(game_id, seat, notation=move, by="email")
    except (IllegalAction, services.BadRequest, VersionConflict) as exc:
        reason = getattr(exc, "reason", None) or str(exc)
        _answer(game, owner.user, Outbox.MOVE_REFUSED, f"“{move or ''}”: {reason}")
        return "refused"
    _answer(game, owner.user, Outbox.MOVE_ACCEPTED, move)
    return "accepted"


def _answer(game, user, kind, detail):
    from kinplay.notifications.services import kick

    game.refresh_from_db()
    with transaction.atomic():
        Outbox.objects.create(kind=kind, game=game, user=user, version=game.version, detail=detail)
        transaction.on_commit(kick)
