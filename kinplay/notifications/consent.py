"""The emails of consent: an invitation, its answer for the creator, the end of a vacation.

Their own rows in the outbox (sent like every other row) and their own templates
(templates/mail/consent.*), apart from the turn emails.
"""

from __future__ import annotations

from collections.abc import Callable

from django.conf import settings
from django.core.mail import EmailMultiAlternatives

from games.registry import kinds
from games.selectors import seat_choices
from kinplay.notifications.mail import two_part
from kinplay.notifications.models import Outbox
from kinplay.notifications.services import queue
from kinplay.notifications.tokens import reply_address

KINDS = (Outbox.INVITATION, Outbox.INVITE_DECLINED, Outbox.INVITE_EXPIRED, Outbox.PLAYER_LEFT, Outbox.GAME_CANCELLED,
         Outbox.VACATION_OVER)

SUBJECTS = {
    Outbox.INVITATION: "{creator} invites you to play {kind} #{id}",
    Outbox.INVITE_DECLINED: "{who} declined your invitation to {kind} #{id}",
    Outbox.INVITE_EXPIRED: "{who} did not answer your invitation to {kind} #{id}",
    Outbox.PLAYER_LEFT: "{who} left {kind} #{id} before it started",
    Outbox.GAME_CANCELLED: "{creator} cancelled {kind} #{id}",
    Outbox.VACATION_OVER: "Your vacation is over: your clocks run again",
}


# Where an invited game comes from, in the invitation's own words: an app that invites players to
# its games (a ladder's challenge) registers ``origin(game, user) -> dict | None`` giving the
# "subject", the "text" (lines) and the "answer_by" of its invitation, so the player gets one
# email saying both what the game is and how to answer it.
ORIGINS: list[Callable[..., dict | None]] = []


def register_origin(origin: Callable) -> None:
    ORIGINS.append(origin)


def _queue(rows):
    queue([r for r in rows if r.user is not None], switched=())  # consent is asked whatever the switch says


def invite(game, users):
    """One email per invited player, sent once (the row is the promise)."""
    _queue([Outbox(kind=Outbox.INVITATION, game=game, user=u, version=0) for u in users])


def invitation_closed(game, who, *, expired: bool, cancelled: bool, left: bool = False):
    """Tell the creator that ``who`` declined (or never answered, or left before the start) and
    what became of the game; on a cancel, also everyone who had accepted."""
    kind = Outbox.PLAYER_LEFT if left else Outbox.INVITE_EXPIRED if expired else Outbox.INVITE_DECLINED
    told = [game.created_by] if game.created_by_id else []
    if cancelled:
        told += [s.user for s in game.seat_list if s.user_id and not s.invited and s.user_id != game.created_by_id]
    detail = f"{who.username}|{'cancelled' if cancelled else 'opened'}"
    _queue([Outbox(kind=kind, game=game, user=u, version=game.version, detail=detail) for u in told])


def game_cancelled(game):
    """Tell everyone at a table the creator called off, invited or seated."""
    told = [s.user for s in game.seat_list if s.user_id and s.user_id != game.created_by_id]
    _queue([Outbox(kind=Outbox.GAME_CANCELLED, game=game, user=u, version=game.version) for u in told])


def vacation_over(user, detail: str):
    _queue([Outbox(kind=Outbox.VACATION_OVER, game=None, user=user, version=0, detail=detail)])


def compose(row: Outbox) -> EmailMultiAlternatives:
    site = settings.SITE_URL.rstrip("/")
    context = {"user": row.user, "kind": row.kind, "settings_url": f"{site}/settings/"}
    fmt = {}
    reply_to, origin = None, None
    game = row.game  # None for a vacation's end (no query: game_id is None then)
    if game is not None:
        who, _, became = row.detail.partition("|")
        seats = list(game.seats.select_related("user"))
        creator = game.created_by.username if game.created_by is not None else "kinplay"
        kind_name = kinds()[game.kind].name if game.kind in kinds() else game.kind
        context.update({
            "game": game, "kind_name": kind_name, "creator": creator, "who": who, "became": became,
            "url": f"{site}/games/{game.pk}/", "per_move": game.per_move,
            "rules_url": f"{site}/rules/{game.kind}/",  # open to anyone: a newcomer reads it before accepting
            "players": [s.user.username if s.user is not None else (f"a bot ({s.bot})" if s.bot else "an open seat") for s in seats],
            "status": game.status,
        })
        fmt = {"kind": kind_name, "id": game.pk, "creator": creator, "who": who}
        seat = game.seat_of(row.user)
        context["invited"] = seat is not None and any(s.index == seat and s.invited for s in seats)
        if row.kind == Outbox.INVITATION and seat is not None:
            reply_to = [reply_address(row)]  # "accept" / "decline" by email (replies.py)
            context["choices"] = seat_choices(game, seat)  # "accept blue": a Kenta colour still free
            origin = context["origin"] = next(filter(None, (found(game, row.user) for found in ORIGINS)), None)
    else:
        context.update({"detail": row.detail, "url": f"{site}/settings/"})
    subject = origin["subject"] if origin else SUBJECTS[row.kind].format(**fmt)
    return two_part(subject, "consent", context, row.user.email, reply_to=reply_to,
                    headers={"Auto-Submitted": "auto-generated"})  # RFC 3834: no vacation replies to the invitation's token

