"""The answer to a reply by email: what was applied and what was refused, in one email.

Answers are machine mail about mail (RFC 3834): ``Auto-Submitted: auto-replied``, threaded
under the player's reply, and with no Reply-To token, so answering an answer reaches no game;
but for a move that gave the turn straight back (``replies.taken``): that answer lists the moves
and its token names those turns (``row.games``), so the player answers it with the next move.
"""

from __future__ import annotations

import json

from django.conf import settings
from django.core.mail import EmailMultiAlternatives

from games.models import Game
from games.registry import get
from kinplay.notifications.mail import two_part
from kinplay.notifications.models import Outbox
from kinplay.notifications.tokens import reply_address


def compose(row: Outbox) -> EmailMultiAlternatives:
    try:
        data = json.loads(row.detail)
    except ValueError:  # rows written before answers carried their lines
        data = {"lines": [{"game": row.game_id, "ok": row.kind == Outbox.MOVE_ACCEPTED, "text": row.detail, "moves": []}]}
    lines = data.get("lines") or []
    names = {g.pk: get(g.kind).name for g in Game.objects.filter(pk__in={line["game"] for line in lines})}
    site = settings.SITE_URL.rstrip("/")
    for line in lines:
        line["kind_name"] = names.get(line["game"], "")
        line["url"] = f"{site}/games/{line['game']}/"
    turns = [line for line in lines if line.get("turn")]
    for line in turns if len(turns) > 1 else []:  # a reply about several games names each move's game
        line["moves"] = [f"#{line['game']} {move}" for move in line["moves"]]
    applied = sum(1 for line in lines if line["ok"])
    if len(lines) == 1:
        what = "Move" if lines[0].get("move", True) else "Answer"
        verb = f"{what} accepted" if row.kind == Outbox.MOVE_ACCEPTED else f"{what} not accepted"
        if lines[0].get("about") and row.kind == Outbox.MOVE_ACCEPTED:  # "Invitation accepted", "Invitation declined"
            verb = lines[0]["about"]
        subject = f"{verb} in {lines[0]['kind_name']} #{lines[0]['game']}"
    else:
        subject = f"Your reply: {applied} applied, {len(lines) - applied} not applied"
    replies = bool(turns and row.games)
    context = {"user": row.user, "lines": lines, "applied": applied, "settings_url": f"{site}/settings/",
               "replies": replies}
    headers = {"Auto-Submitted": "auto-replied"}
    if data.get("in_reply_to", "").startswith("<"):
        headers.update({"In-Reply-To": data["in_reply_to"], "References": data["in_reply_to"]})
    return two_part(subject, "answer", context, row.user.email, headers=headers,
                    reply_to=[reply_address(row)] if replies else None)
