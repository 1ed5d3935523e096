"""Email through the outbox: rows written with the events, sent by Celery after commit."""

from __future__ import annotations

import logging

from django.conf import settings
from django.core.mail import EmailMultiAlternatives
from django.db import transaction
from django.template.loader import render_to_string
from django.utils import timezone

from kinplay.accounts.models import Profile
from kinplay.notifications.models import Outbox
from kinplay.notifications.replies import reply_address

log = logging.getLogger("kinplay.notifications")


def notify_after_change(game, *, before: set, now: set, acted: set, present=None):
    """One "your turn" per turn change to each human who must act; "game over" at the end.

    The player who made the move (``present``) is looking at the game: when the turn comes
    straight back to them (bots answered, an extra turn) they get no email about it.
    """
    humans = {s.index: s.user for s in game.seats.all() if s.user_id}
    rows = []
    if game.status == "finished":
        rows = [Outbox(kind=Outbox.GAME_OVER, game=game, user=u, version=game.version) for u in humans.values()]
    else:
        for seat in sorted(now):
            turn_changed = seat not in before or seat in acted
            if seat in humans and seat != present and turn_changed and wants_turn_mail(humans[seat]):
                rows.append(Outbox(kind=Outbox.YOUR_TURN, game=game, user=humans[seat], version=game.version))
    rows = [r for r in rows if r.user.email]
    if rows:
        Outbox.objects.bulk_create(rows)
        transaction.on_commit(kick)


def wants_turn_mail(user) -> bool:
    return Profile.of(user).email_turns


def remind(game_id, seat) -> str:
    from games.models import Game

    game = Game.objects.get(pk=game_id)
    s = game.seats.filter(index=seat).select_related("user").first()
    if game.status != Game.ACTIVE or seat not in game.to_act or not s or not s.user_id:
        return "not-needed"
    if not (s.user.email and wants_turn_mail(s.user)):
        return "mail-off"
    Outbox.objects.create(kind=Outbox.REMINDER, game=game, user=s.user, version=game.version)
    transaction.on_commit(kick)
    return "reminded"


def kick():
    """Ask a worker to relay now; if the broker is down the periodic sweep will do it."""
    from kinplay.notifications.tasks import relay_outbox

    try:
        relay_outbox.delay()
    except Exception as exc:  # broker down: the outbox row is safe in the database
        log.warning("could not reach the broker (%s); the outbox sweep will send it", exc)


def relay(limit=200) -> int:
    sent = 0
    for row in Outbox.pending().select_related("game", "user").order_by("created_at")[:limit]:
        if not row.claim():
            continue
        try:
            compose(row).send()
        except Exception as exc:
            log.warning("sending outbox row %s failed: %s", row.pk, exc)
            Outbox.objects.filter(pk=row.pk).update(error=str(exc)[:500], claimed_at=None)
            continue
        Outbox.objects.filter(pk=row.pk).update(sent_at=timezone.now())
        sent += 1
    return sent


SUBJECTS = {
    Outbox.YOUR_TURN: "Your turn in {kind} #{id}",
    Outbox.REMINDER: "Reminder: your move in {kind} #{id} is due soon",
    Outbox.GAME_OVER: "{kind} #{id} is over",
    Outbox.MOVE_ACCEPTED: "Move accepted in {kind} #{id}",
    Outbox.MOVE_REFUSED: "Move not accepted in {kind} #{id}",
}


def compose(row: Outbox) -> EmailMultiAlternatives:
    """The message as the recipient's seat sees the game at that version: nothing more."""
    from games import selectors
    from games.registry import get
    from kinplay.notifications import consent

    if row.kind in consent.KINDS:  # invitations and vacations have their own emails
        return consent.compose(row)
    from kinplay.tournaments import emails as tournament_emails

    if row.kind in tournament_emails.KINDS:
        return tournament_emails.compose(row)

    game, user = row.game, row.user
    kind = get(game.kind)
    seat = game.seat_of(user)
    payload = selectors.game_for(game, user, at=row.version)
    legal = payload["legal_actions"] if row.kind != Outbox.GAME_OVER and row.version == game.version else []
    names = selectors.seat_names(game)
    context = {
        "user": user,
        "game": game,
        "kind_name": kind.name,
        "kind": row.kind,
        "url": f"{settings.SITE_URL.rstrip('/')}/games/{game.pk}/",
        "settings_url": f"{settings.SITE_URL.rstrip('/')}/settings/",
        "recent": selectors.log_lines(game, seat, after=max(0, row.version - 8), upto=row.version, names=names),
        "legal": legal,
        "result": payload["result"],
        "names": names,
        "deadline": game.deadline,
        "detail": row.detail,
        "winners": ", ".join(names[i] for i in ((payload["result"] or {}).get("winners") or [])),
    }
    subject = SUBJECTS[row.kind].format(kind=kind.name, id=game.pk)
    text = render_to_string("mail/game.txt", context)
    html = render_to_string("mail/game.html", context)
    reply_to = [reply_address(game.pk, seat)] if legal else None
    msg = EmailMultiAlternatives(subject, text, settings.DEFAULT_FROM_EMAIL, [user.email], reply_to=reply_to)
    msg.attach_alternative(html, "text/html")
    return msg
