"""Email through the outbox: rows written with the events, sent by Celery after commit."""

from __future__ import annotations

import logging

import css_inline
from django.conf import settings
from django.core.mail import EmailMultiAlternatives
from django.db import transaction
from django.template.loader import render_to_string
from django.utils import timezone

from kinplay.accounts.models import Profile
from kinplay.notifications import digests, picture
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
        if hold(row):
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


def hold(row: Outbox) -> bool:
    """Quiet hours or the player's digest interval: keep the row for ``digests.release_held``."""
    now = timezone.now()
    reason = digests.hold_reason(row, Profile.of(row.user), now)
    if reason:
        Outbox.objects.filter(pk=row.pk).update(held_at=now, claimed_at=None, error=f"held: {reason}")
    return bool(reason)


DIGEST_BOARDS = 3  # games drawn as boards in a digest's HTML (each board is 8–25 kB)

SUBJECTS = {
    Outbox.YOUR_TURN: "Your turn in {kind} #{id}",
    Outbox.REMINDER: "Reminder: your move in {kind} #{id} is due soon",
    Outbox.GAME_OVER: "{kind} #{id} is over",
    Outbox.MOVE_ACCEPTED: "Move accepted in {kind} #{id}",
    Outbox.MOVE_REFUSED: "Move not accepted in {kind} #{id}",
    Outbox.DIGEST: "Your turn in {count} games: {games}",
}


def compose(row: Outbox) -> EmailMultiAlternatives:
    """The message as the recipient's seat sees the game at that version: nothing more."""
    from kinplay.notifications import consent

    if row.kind in consent.KINDS:  # invitations and vacations have their own emails
        return consent.compose(row)

    user = row.user
    profile = Profile.of(user)
    now = timezone.now()
    context = {
        "user": user,
        "kind": row.kind,
        "detail": row.detail,
        "settings_url": picture.site("/settings/"),
        "time_zone": profile.tz.key,
    }
    if row.kind == Outbox.DIGEST:
        from games.models import Game

        found = Game.objects.with_seats().in_bulk([int(pk) for pk in row.games])
        listed = sorted((found[int(pk)] for pk in row.games if int(pk) in found),  # most urgent first
                        key=lambda game: (game.deadline is None, game.deadline or now, game.pk))
        games = [picture.of_game(row, game, user, version=row.games[str(game.pk)], tz=profile.tz, now=now)
                 for game in listed]
        for g in games[DIGEST_BOARDS:]:  # Gmail clips a message past 102 kB: the rest in words
            g["board_html"] = ""
        context["games"] = games
        subject = SUBJECTS[row.kind].format(count=len(games), games=", ".join(f"{g['kind_name']} #{g['game'].pk}" for g in games))
        moves = any(g["legal"] for g in games)
        seat = None
    else:
        g = picture.of_game(row, row.game, user, version=row.version, tz=profile.tz, now=now)
        context.update(g, one=g)
        subject = SUBJECTS[row.kind].format(kind=g["kind_name"], id=row.game.pk)
        moves, seat = bool(g["legal"]), g["seat"]
        subject = _wait_subject(row, seat) or subject
    text = render_to_string("mail/game.txt", context)
    # Mail clients (Gmail above all) drop <style> blocks: every style goes onto its element.
    html = css_inline.inline(render_to_string("mail/game.html", context))
    reply_to = [mail_reply_address(row, seat)] if moves else None
    msg = EmailMultiAlternatives(subject, text, settings.DEFAULT_FROM_EMAIL, [user.email], reply_to=reply_to)
    msg.attach_alternative(html, "text/html")
    return msg


def _wait_subject(row: Outbox, seat) -> str | None:
    """A turn email's (or a window reminder's) subject in the words of the page and the lobby
    (games.selectors.wait_line): a reaction window is not "your turn"."""
    from games import selectors
    from games.registry import get

    game = row.game
    if row.kind not in (Outbox.YOUR_TURN, Outbox.REMINDER) or row.version != game.version or seat not in game.to_act:
        return None
    wait = selectors.waiting(game, seat, title=f"{get(game.kind).name} #{game.pk}")
    if row.kind == Outbox.YOUR_TURN:
        return wait["line"]
    return f"Reminder: {wait['line']}" if wait["window"] else None


def mail_reply_address(row: Outbox, seat) -> str:
    """The one place the Reply-To is made (a digest's replies name their games line by line)."""
    return reply_address(row.game_id, seat) if row.game_id else settings.MAIL_REPLY_ADDRESS
