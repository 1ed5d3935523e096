"""Email through the outbox: rows written with the events, sent by Celery after commit."""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable

import css_inline
from django.conf import settings
from django.core.mail import EmailMultiAlternatives
from django.db import transaction
from django.template.loader import render_to_string
from django.utils import timezone

from games import selectors
from games.models import ChatMessage, Game
from games.registry import get
from kinplay.accounts.models import Profile
from kinplay.celery import app
from kinplay.notifications import bounces, digests, picture, presence, push, unsubscribe
from kinplay.notifications.models import Outbox
from kinplay.notifications.tokens import reply_address

log = logging.getLogger("kinplay.notifications")


def notify_after_change(game, *, before: set, now: set, acted: set, present=None):
    """One "your turn" per turn change to each human who must act; "game over" at the end."""
    queue(change_mail(game, before=before, now=now, acted=acted, present=present))


def change_mail(game, *, before: set, now: set, acted: set, present=None) -> list[Outbox]:
    """The rows ``notify_after_change`` writes, unsaved (games.services.create_games writes
    many games' at once); ``queue`` leaves out players whose "email me" switch is off.

    The player who made the move (``present``) is looking at the game: when the turn comes
    straight back to them (bots answered, an extra turn) they get no email about it.
    """
    humans = {s.index: s.user for s in game.seat_list if s.user_id}
    if game.status == "finished":
        return [Outbox(kind=Outbox.GAME_OVER, game=game, user=u, version=game.version) for u in humans.values()]
    rows = []
    for seat in sorted(now):
        turn_changed = seat not in before or seat in acted
        if seat in humans and seat != present and turn_changed:
            rows.append(Outbox(kind=Outbox.YOUR_TURN, game=game, user=humans[seat], version=game.version))
    return rows


# What the "email me" switch of the settings page governs: turn emails, and the emails of
# other apps that say so when they queue theirs (tournaments, leagues).
SWITCHED = (Outbox.YOUR_TURN, Outbox.REMINDER)


def queue(rows: list[Outbox], *, switched=SWITCHED):
    """Write outbox rows in one statement and relay them after commit. Rows of a ``switched`` kind
    go only to players who want them (``wants_turn_mail``, asked of them all in one query); none
    to a player without an address. Each row that may be pushed brings its push rows (push.rows_for)."""
    pushed = push.rows_for(rows)  # the player's own choice per kind of push, whatever the email switch says
    rows = [r for r in rows if r.user.email]
    asked = {r.user_id for r in rows if r.kind in switched}
    if asked:
        off = set(Profile.objects.filter(user_id__in=asked, email_turns=False).values_list("user_id", flat=True))
        rows = [r for r in rows if r.kind not in switched or r.user_id not in off]
    rows += pushed
    if rows:
        Outbox.objects.bulk_create(rows)
        transaction.on_commit(kick)


def notify_chat(game, message: ChatMessage) -> None:
    """A line of the players' table talk is pushed to the game's other players who want it (push
    only: their next turn email shows the talk since they last looked). The spectators' talk is
    pushed to nobody: the players may not read it while the game runs."""
    if message.channel != ChatMessage.PLAYERS:
        return
    readers = {s.user_id: s.user for s in game.seats.select_related("user") if s.user_id and s.user_id != message.user_id}
    rows = push.rows_for([Outbox(kind=Outbox.CHAT, game=game, user=u, version=game.version, detail=str(message.seq))
                          for u in readers.values()])
    if rows:
        Outbox.objects.bulk_create(rows)
        transaction.on_commit(kick)


def wants_turn_mail(user) -> bool:
    """Whether ``user``'s "email me" switch is on (a player without a profile row has the default,
    on): the rule ``queue`` applies."""
    return not Profile.objects.filter(user_id=user.pk, email_turns=False).exists()


def remind(game_id, seat) -> str:
    game = Game.objects.get(pk=game_id)
    s = game.seats.filter(index=seat).select_related("user").first()
    if game.status != Game.ACTIVE or seat not in game.to_act or not s or s.user is None:
        return "not-needed"
    row = Outbox(kind=Outbox.REMINDER, game=game, user=s.user, version=game.version)
    if not (s.user.email and wants_turn_mail(s.user)) and not push.rows_for([row]):
        return "mail-off"
    queue([row])
    return "reminded"


# After the broker failed to take a kick, the next ones are skipped for this long (the
# periodic sweep sends the email meanwhile).
KICK_PAUSE = 30.0
_kick_paused_until = 0.0


def kick():
    """Ask a worker to relay now; if the broker is down the periodic sweep will do it.

    A move must be answered promptly whatever the broker does (a hung Redis answers nothing
    until a socket timeout), so the request only wakes this process's kicker thread, which
    publishes. Inline when Celery runs tasks eagerly (tests)."""
    if app.conf.task_always_eager:
        _publish()
    else:
        _kicker.wake()


# The task named, not imported: its module imports this one (NotificationsConfig.ready imports it).
RELAY_TASK = "kinplay.notifications.tasks.relay_outbox"


def _publish():
    global _kick_paused_until
    if time.monotonic() < _kick_paused_until:
        return
    try:
        app.tasks[RELAY_TASK].apply_async(retry=False)
    except Exception as exc:  # broker down or hung (bounded by its socket timeouts): the row is safe
        _kick_paused_until = time.monotonic() + KICK_PAUSE
        log.warning("could not reach the broker (%s); the outbox sweep will send it", exc)


# After publishing, the kicker waits this long before the next publish: the kicks made meanwhile
# become that one publish (a relay sends everything pending). A lone kick goes out at once; at
# most five a second per process, rather than one per game ended or created on a busy server
# (a publish costs a noticeable share of a move's CPU).
KICK_GAP = 0.2


class _Kicker:
    """One daemon thread per process that publishes the kicks; kicks made while it is busy or
    within KICK_GAP of its last publish become one more publish."""

    def __init__(self):
        self.lock, self.event, self.thread, self.pid = threading.Lock(), threading.Event(), None, None

    def wake(self):
        with self.lock:
            if self.thread is None or self.pid != os.getpid() or not self.thread.is_alive():
                self.pid = os.getpid()  # a forked web worker starts its own
                self.thread = threading.Thread(target=self.run, name="outbox-kicker", daemon=True)
                self.thread.start()
        self.event.set()

    def run(self):
        while True:
            self.event.wait()
            self.event.clear()
            try:
                _publish()
            except Exception:  # never let the thread die
                log.exception("outbox kick failed")
            time.sleep(KICK_GAP)


_kicker = _Kicker()


def relay(limit=200) -> int:
    """Send what is pending; returns how many were sent."""
    return deliver(list(Outbox.pending().select_related("game", "user").order_by("created_at")[:limit]))


def deliver(rows) -> int:
    """Send each row this relay claims (another relay may hold some: it skips those)."""
    sent = 0
    for row in rows:
        if not row.claim():
            continue
        if closed(row) or bounced(row) or hold(row) or passed(row):
            continue
        try:
            if row.channel == Outbox.PUSH:
                if not push.send(row, compose_push(row)):
                    continue  # the subscription is gone: done with, not sent
            else:
                msg = compose(row)
                msg.extra_headers["Message-ID"] = row.message_id
                bounces.envelope(msg, row)
                unsubscribe.one_click(msg, row)
                msg.send()
        except Exception as exc:
            failed(row, exc)
            continue
        Outbox.objects.filter(pk=row.pk).update(sent_at=timezone.now(), error="")
        sent += 1
    return sent


def failed(row: Outbox, exc: Exception):
    """Try again later with backoff; after the last attempt, give up where people will see it."""
    row.refresh_from_db(fields=["attempts"])
    error = f"{type(exc).__name__}: {exc}"[:500]
    now = timezone.now()
    if row.attempts >= Outbox.MAX_ATTEMPTS:
        Outbox.objects.filter(pk=row.pk).update(error=error, failed_at=now, claimed_at=None)
        log.error("giving up on outbox row %s (%s to %s) after %s attempts: %s",
                  row.pk, row.kind, row.user.email, row.attempts, error)
        return
    delay = row.backoff()
    Outbox.objects.filter(pk=row.pk).update(error=error, claimed_at=None, next_attempt_at=now + delay)
    log.warning("sending outbox row %s failed (attempt %s, next in %ss): %s",
                row.pk, row.attempts, int(delay.total_seconds()), error)


def closed(row: Outbox) -> bool:
    """An email to a deactivated account (also one written before it was closed) is not sent:
    its replies are refused (replies.receive_message), and it was closed to hear no more."""
    if row.user.is_active:
        return False
    Outbox.objects.filter(pk=row.pk).update(sent_at=timezone.now(), claimed_at=None, error="not sent: the account is deactivated")
    return True


def bounced(row: Outbox) -> bool:
    """The address bounced for good (bounces.stopped): the email is not sent."""
    if not bounces.stopped(row):
        return False
    Outbox.objects.filter(pk=row.pk).update(sent_at=timezone.now(), claimed_at=None, error="not sent: the address bounced")
    return True


def hold(row: Outbox) -> bool:
    """Quiet hours, the player's digest interval, or (a push: only) the player at the table: keep the
    row for ``held.release_held``."""
    now = timezone.now()
    if row.channel == Outbox.PUSH:  # only the presence rule: the phone's own do-not-disturb keeps the night
        reason = push_hold_reason(row, Profile.of(row.user), now)
    else:
        reason = digests.hold_reason(row, Profile.of(row.user), now)
    if reason:
        Outbox.objects.filter(pk=row.pk).update(held_at=now, claimed_at=None, error=f"held: {reason}")
    return bool(reason)


# Pushes that wait while the player is at the table: their turn, and the table talk their page shows.
HELD_AT_TABLE = (*Outbox.TURN_MAIL, Outbox.CHAT)


def push_hold_reason(row: Outbox, profile: Profile, now) -> str | None:
    """A turn, a reminder or a chat line pushed while the player is at the table waits like a turn
    email (presence.settle drops it once they look, lets it go after the hold)."""
    if row.kind in HELD_AT_TABLE and not profile.email_on_site and presence.at_table(row, now):
        return presence.AT_TABLE
    return None


def passed(row: Outbox) -> bool:
    """A turn email or reminder whose turn ended before it left (the player moved on the page, the
    clock played, the game ended: a mail server down for hours): "It is your turn" would be
    wrong, so it is not sent. One that only others moved since still goes (picture.of_game)."""
    if row.kind not in (Outbox.YOUR_TURN, Outbox.REMINDER) or row.game is None:
        return False
    game = row.game
    seat = game.seat_of(row.user)
    if game.status == Game.ACTIVE and seat is not None and picture.same_turn(game, seat, row.version):
        return False
    Outbox.objects.filter(pk=row.pk).update(sent_at=timezone.now(), claimed_at=None, error="not sent: the turn had passed")
    return True


# Other apps' emails (tournaments, leagues) are written by their own modules, which register
# them here when their app is ready: notifications never imports them, so nothing it imports
# leads back to games.services (the import-linter contract in pyproject.toml).
COMPOSERS: dict[str, Callable[[Outbox], EmailMultiAlternatives]] = {}


def register_composer(kinds, compose: Callable[[Outbox], EmailMultiAlternatives]):
    for kind in kinds:
        COMPOSERS[kind] = compose


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
    if row.kind in COMPOSERS:  # emails of their own (register_composer): invitations and vacations, answers
        return COMPOSERS[row.kind](row)  # to replies, the accounts', tournaments' and leagues'
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
        found = Game.objects.with_seats().in_bulk([int(pk) for pk in row.games])
        listed = sorted((found[int(pk)] for pk in row.games if int(pk) in found),  # most urgent first
                        key=lambda game: (game.deadline is None, game.deadline or now, game.pk))
        games = [picture.of_game(row, game, user, version=row.games[str(game.pk)], tz=profile.tz, now=now)
                 for game in listed]
        for g in games[DIGEST_BOARDS:]:  # Gmail clips a message past 102 kB: the rest in words
            g["board_html"] = ""
        for game, g in zip(listed, games):  # the digest's list at the top: "due Tue 14:00 UTC, in 2 days"
            g["due"] = g["deadline"].split(";")[0] or "no time limit"
            wait = _waiting(row, g["seat"], game=game, version=row.games[str(game.pk)])
            g["window_line"] = wait["line"] if wait is not None and wait["window"] else ""  # an answer, not a move
        context["games"] = games
        subject = SUBJECTS[row.kind].format(count=len(games), games=", ".join(f"{g['kind_name']} #{g['game'].pk}" for g in games))
        moves = any(g["legal"] for g in games)
    else:
        game = row.game
        assert game is not None  # only a digest, of the kinds composed here, is about no one game
        g = picture.of_game(row, game, user, version=row.version, tz=profile.tz, now=now)
        context.update(g, one=g)
        subject = SUBJECTS[row.kind].format(kind=g["kind_name"], id=game.pk)
        moves, seat = bool(g["legal"]), g["seat"]
        wait = _waiting(row, seat)
        if wait is not None and (row.kind == Outbox.YOUR_TURN or wait["window"]):
            subject = wait["line"] if row.kind == Outbox.YOUR_TURN else f"Reminder: {wait['line']}"
        if wait is not None and wait["window"]:
            context["window_line"] = wait["line"]  # the body says what the subject says: a window is not "your turn"
    context["unsubscribe_by_reply"] = moves and row.kind in Outbox.TURN_MAIL  # it has a reply address (replies.unsubscribing)
    text = render_to_string("mail/game.txt", context)
    # Mail clients (Gmail above all) drop <style> blocks: every style goes onto its element.
    html = css_inline.inline(render_to_string("mail/game.html", context))
    if row.kind == Outbox.DIGEST:
        html = _unclipped(html, context)
    reply_to = [reply_address(row)] if moves else None  # a digest's token names all its games
    extra = {"Auto-Submitted": "auto-generated"}  # RFC 3834: no vacation replies
    if row.kind in Outbox.TURN_MAIL:
        # The mail program's Unsubscribe button (RFC 2369) sends "unsubscribe" to the reply address
        # (replies.unsubscribing): turn emails off without the settings page.
        extra["List-Unsubscribe"] = f"<mailto:{reply_address(row)}?subject=unsubscribe>"
    msg = EmailMultiAlternatives(subject, text, settings.DEFAULT_FROM_EMAIL, [user.email], reply_to=reply_to,
                                 headers=extra)
    msg.attach_alternative(html, "text/html")
    return msg


def compose_push(row: Outbox) -> dict:
    """What a push says: a title, a line, the page to open. Only what the email says (its
    subject's words, the seat's wait line, the last log lines as the seat sees them), nothing of
    anyone's hand."""
    game = row.game
    url = picture.site(f"/games/{game.pk}/" if game is not None else "/")
    if row.kind in COMPOSERS:  # invitations and the like: the email's own subject
        return {"title": COMPOSERS[row.kind](row).subject, "body": "", "url": url}
    assert game is not None  # turn, reminder, game over, table talk: about one game
    name, seat = f"{get(game.kind).name} #{game.pk}", game.seat_of(row.user)
    if row.kind == Outbox.CHAT:  # who wrote, in which game, and their words, as the page shows them
        m = ChatMessage.objects.select_related("user").get(game=game, channel=ChatMessage.PLAYERS, seq=int(row.detail))
        return {"title": f"{m.user.username} in {name}", "body": push.clipped(m.text), "url": f"{url}#chat"}
    title = SUBJECTS[row.kind].format(kind=get(game.kind).name, id=game.pk)
    if row.kind in (Outbox.YOUR_TURN, Outbox.REMINDER) and row.version == game.version and seat in game.to_act:
        line = selectors.waiting(game, seat, title=name, answers=False)["line"]  # "(due in 2 days)", a window
        title = line if row.kind == Outbox.YOUR_TURN else f"Reminder: {line}"
    return {"title": title, "body": push.last_line(game, seat, row.version), "url": url}


DIGEST_HTML_BUDGET = 98_000  # bytes: Gmail clips a message's HTML past 102 kB (the last games, the footer)
DIGEST_CUT_LINES = 3  # what happened, in a game shortened to fit: its newest lines


def _unclipped(html: str, context: dict) -> str:
    """A digest of many games (a keen player has 30 or 40) that would be clipped: the least urgent
    games lose their board and older history (the page has them) until it fits; every game keeps
    its deadline, its reply lines and its link."""
    games = context["games"]
    while len(html.encode()) > DIGEST_HTML_BUDGET:
        full = [g for g in games if not g.get("cut")]
        if not full:
            return html
        for g in full[-max(1, len(full) // 4):]:  # a quarter at a time: each try inlines the whole email
            hidden = max(0, len(g["recent"]) - DIGEST_CUT_LINES)
            g.update(cut=True, board_html="", board_text="", recent=g["recent"][hidden:],
                     recent_hidden=g["recent_hidden"] + hidden)
        html = css_inline.inline(render_to_string("mail/game.html", context))
    return html


def _waiting(row: Outbox, seat, *, game=None, version=None) -> dict | None:
    """What the seat waits on now, in the words of the page and the lobby (games.selectors.waiting),
    for a turn email, a reminder or a digest's ``game`` still as it was written (``version``): a
    reaction window is not "your turn", and its subject and first line say so."""
    game, version = game or row.game, row.version if version is None else version
    if row.kind not in (*Outbox.TURN_MAIL, Outbox.REMINDER) or version != game.version or seat not in game.to_act:
        return None
    return selectors.waiting(game, seat, title=f"{get(game.kind).name} #{game.pk}")

