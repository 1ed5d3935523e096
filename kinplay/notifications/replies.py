"""Moves by email, as the old email judges played: reply to a turn email with your move.

A reply is taken only when all of these hold (anything else changes nothing):
- it was written by a person: auto-replies, bounces and list mail are dropped (loops.py);
- it is addressed to a valid reply token, which names the one email it answers (tokens.py);
- its From is one mailbox, authenticated for its domain (authentication.py), and that mailbox
  is the address the answered email was sent to;
- its Message-ID was never taken before;
- a move answers the turn the email was sent for (``same_turn``; else "the game has moved on").
Strangers get no answer at all; the player gets one answer saying what was applied and what
was refused, at most MAIL_ANSWERS_PER_HOUR an hour.
"""

from __future__ import annotations

import hashlib
import json
import logging
import re
from dataclasses import asdict, dataclass, field
from email.utils import getaddresses

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils.html import strip_tags

from games import chat, services
from games.engine import IllegalAction
from games.models import Event, Game
from games.registry import get
from games.store import VersionConflict, load_state
from kinplay.notifications import headers, loops, tokens
from kinplay.notifications.authentication import BadFrom, authenticated, sender_of
from kinplay.notifications.models import InboundMail, Outbox
from kinplay.notifications.services import kick, wants_turn_mail

log = logging.getLogger("kinplay.notifications")

TAGGED = re.compile(r"^#\s*(\d{1,19})\s*[:.)-]?\s+(.+)$")
STANDING = {  # reply words -> games.services.set_standing_answer values
    "always": ("always resolve", "always let it resolve", "always let cards resolve", "always pass",
               "auto-pass", "autopass", "never raise", "never raise my hand"),
    "ask": ("ask me", "ask me every time", "ask every time"),
    "unable": ("pass when unable", "pass for me when i cannot react", "pass when i cannot react",
               "pass when i can't react"),
}
STANDING_WORDS = {words: value for value, all_words in STANDING.items() for words in all_words}
STANDING_LABELS = {"always": "always let it resolve / never raise unless you ask",
                   "ask": "ask me every time", "unable": "pass for me when I cannot react"}


@dataclass
class Line:
    """What became of one command in a reply: one line of the answer email."""

    game: int
    ok: bool
    text: str
    moves: list[str] = field(default_factory=list)  # the seat's moves now, when a reply came too late
    stale: bool = False  # the reply was for a turn that has passed
    move: bool = True  # a move, or another answer (invitation, standing answer)


# ---------------------------------------------------------------- reading a message


def read_lines(text: str) -> list[str]:
    """The lines the player wrote: no quoted mail (in any language mail-parser-reply knows), no
    signature, no blank lines."""
    from mailparser_reply import EmailReplyParser
    from mailparser_reply.constants import MAIL_LANGUAGES

    text = (text or "").replace("\r\n", "\n")
    try:
        replies = EmailReplyParser(languages=list(MAIL_LANGUAGES)).read(text=text).replies
    except Exception:  # noqa: BLE001  the parser's regexes on hostile input: fall back to the raw text
        log.warning("reply parser failed; reading the raw text")
    else:
        # With nothing written above the quote, the parser's first "reply" is the quoted mail
        # itself (it has a header such as "Am … schrieb …:"): then the player wrote nothing.
        text = "" if not replies or replies[0].headers else replies[0].body
    lines = []
    for line in headers.clean(text).splitlines():
        line = line.strip()
        if line in ("--", "-- "):
            break
        if line and not line.startswith(">"):
            lines.append(line[:200])
    return lines


def text_of(msg) -> str:
    try:
        body = msg.get_body(preferencelist=("plain", "html"))
        if body is None:
            return ""
        content = body.get_content()
    except Exception:  # noqa: BLE001  unknown charsets, and the stdlib parser on hostile MIME headers
        return ""
    if body.get_content_type() == "text/html":
        content = strip_tags(re.sub(r"(?i)<br\s*/?>|</p>|</div>", "\n", content))
    return content if isinstance(content, str) else ""


def recipients_of(msg) -> list[str]:
    found = [v for h in ("To", "Cc", "Delivered-To", "X-Original-To") for v in headers.values(msg, h)]
    return [addr for _, addr in getaddresses(found)]


def message_id_of(msg, raw: bytes | None) -> str:
    message_id = headers.first(msg, "Message-ID") or ""
    if message_id:
        return message_id[:255]
    if raw is None:
        try:
            raw = msg.as_bytes()
        except Exception:  # noqa: BLE001  a message the stdlib cannot write back out
            raw = "\n".join(f"{k}: {v}" for k, v in msg.raw_items()).encode("utf-8", "replace")
    return "sha256:" + hashlib.sha256(raw).hexdigest()


# ---------------------------------------------------------------- receiving


def receive_message(msg, *, raw: bytes | None = None, envelope: list[str] = (), provider: dict | None = None,
                    trust_unauthenticated: bool = False) -> str:
    """Apply a reply (an email.message.EmailMessage, policy.default); returns what happened."""
    reason = loops.automatic(msg)
    if reason:
        log.info("dropped an automatic message (%s)", reason)
        return "automatic"
    status, row = tokens.row_for(recipients_of(msg) + list(envelope))
    if row is None:
        if status == "bad-token":
            log.warning("mail move with a bad token")
        return status
    try:
        sender = sender_of(msg)
    except BadFrom as exc:
        log.warning("mail move refused: %s", exc)
        return "bad-from"
    if not (trust_unauthenticated or authenticated(msg, sender, raw=raw, provider=provider)):
        log.warning("mail move from %s refused: not authenticated for that domain", sender)
        return "unauthenticated"
    user = row.user
    if not user.email or user.email.strip().lower() != sender:
        log.warning("mail move for outbox row %s from the wrong sender %s", row.pk, sender)
        return "wrong-sender"  # no answer: a stranger must learn nothing, not even that the game exists
    message_id = message_id_of(msg, raw)
    with transaction.atomic():
        try:
            with transaction.atomic():
                receipt = InboundMail.objects.create(message_id=message_id, user=user, outcome="taking")
        except IntegrityError:
            log.info("mail %s was taken before", message_id)
            return "duplicate"
        if status == "expired":
            old = f"This email is more than {settings.MAIL_TOKEN_MAX_AGE_DAYS} days old: reply to a newer one."
            lines = [Line(row.game_id or next(iter(tokens.games_of(row))), False, f"{old} Nothing was changed.")]
        else:
            lines = apply(row, user, read_lines(text_of(msg)))
        outcome = "expired" if status == "expired" else outcome_of(lines)
        InboundMail.objects.filter(pk=receipt.pk).update(outcome=outcome)
        answer(row, user, lines, message_id)
        InboundMail.forget_old()
    return outcome


def outcome_of(lines: list[Line]) -> str:
    if lines and all(line.ok for line in lines):
        return "accepted"
    if lines and all(line.stale for line in lines):
        return "stale"
    return "refused"


# ---------------------------------------------------------------- applying the commands


def commands(row: Outbox, lines: list[str]) -> list[tuple[int, str]]:
    """[(game id, command)]: "#12 play 3" lines, or the first line when the email spoke of one game."""
    tagged = [(int(m.group(1)), m.group(2).strip()) for m in map(TAGGED.match, lines) if m]
    if tagged:
        return tagged
    games = tokens.games_of(row)
    if len(games) == 1 and lines:
        return [(next(iter(games)), lines[0])]
    return []


# "accept" keeps the seat's colour; "accept blue" (or "accept, blue", "accept as blue", "accept
# colour blue") chooses one as a joining player does (games.services._choose).
ACCEPT = re.compile(r"^accept(?:[\s,:;-]+(?:(?:as|with|in|the|colou?r)\s+)*(?P<choice>[^\s,.!]+))?[.!]*$")
SAY = re.compile(r"^say:\s*", re.IGNORECASE)  # table talk: "say: good game" (or "#12 say: …")


def say(game_id: int, user, text: str) -> Line:
    try:
        chat.post_chat(game_id, user, text)
    except chat.ChatRefused as exc:
        return Line(game_id, False, f"#{game_id}: your chat line was not posted: {exc}", move=False)
    return Line(game_id, True, f"#{game_id}: you said “{' '.join(text.split())}” at the table.", move=False)


def apply(row: Outbox, user, lines: list[str]) -> list[Line]:
    games = tokens.games_of(row)
    said = [SAY.sub("", line) for line in lines if SAY.match(line)]
    lines = [line for line in lines if not SAY.match(line)]
    talk = [say(next(iter(games)), user, text) for text in said[:5]] if len(games) == 1 else []
    todo = commands(row, lines)
    if not todo and talk:
        return talk  # only table talk: nothing to play
    if not todo:
        first = next(iter(games))
        hint = "your move on the first line" if len(games) == 1 else "one line per game, such as “#12 play 3”"
        return [Line(first, False, f"Your reply had no move in it: write {hint}.")]
    out = talk
    for game_id, command in todo[:20]:
        if game_id not in games:
            out.append(Line(game_id, False, f"#{game_id}: this email was not about game #{game_id}; nothing was changed."))
            continue
        out.append(apply_one(row, user, game_id, games[game_id], command))
    return out


def apply_one(row, user, game_id: int, version: int, command: str) -> Line:
    words = " ".join(command.lower().split())
    game = Game.objects.filter(pk=game_id).first()
    if game is None:
        return Line(game_id, False, f"#{game_id}: there is no such game.")
    if game.is_over:  # every token of a game dies with it
        return Line(game_id, False, f"#{game_id}: this game is over; nothing was changed.")
    if SAY.match(command):  # "#12 say: …" in a digest reply
        return say(game_id, user, SAY.sub("", command))
    accept = ACCEPT.match(words) if row.kind == Outbox.INVITATION else None
    if accept:
        choice = accept.group("choice")
        return dispatch(game, "accept_invitation", (game_id, user, choice),
                        "you accepted the invitation" + (f" and play {choice}." if choice else "."))
    if row.kind == Outbox.INVITATION and words.rstrip(".!") == "decline":
        return dispatch(game, "decline_invitation", (game_id, user), "you declined the invitation.")
    if words in STANDING_WORDS:
        value = STANDING_WORDS[words]
        return dispatch(game, "set_standing_answer", (game_id, user, value),
                        f"your standing answer is now “{STANDING_LABELS[value]}”.")
    seat = game.seat_of(user)
    if seat is None:
        return Line(game_id, False, f"#{game_id}: you have no seat at this game.")
    try:
        if words == "resign":
            services.resign(game_id, seat)
        elif not same_turn(game, seat, version):
            return stale(game, user, version, command)
        else:
            services.act(game_id, seat, notation=command, by="email", expected_version=game.version)
    except VersionConflict:
        game.refresh_from_db()
        return stale(game, user, version, command)
    except (IllegalAction, services.BadRequest) as exc:
        reason = getattr(exc, "reason", None) or str(exc)
        return Line(game_id, False, f"#{game_id}: “{command}” was not accepted: {reason} Nothing was changed.")
    return Line(game_id, True, f"#{game_id}: “{command}” was accepted.")


def same_turn(game, seat: int, version: int) -> bool:
    """Is the turn (or window) the email was sent for still this seat's turn now?

    Yes at the same version. After others moved, only if this seat has not acted since (itself,
    on the page, or a timeout for it) and waits the same way as then: another player resigning
    or answering their own part of a window does not void a reply in flight, but a move or a
    timeout of this seat, or a new turn, does. (The move itself is then checked as any move.)
    """
    if game.version == version:
        return True
    if version > game.version or Event.objects.filter(game=game, seq__gt=version, seat=seat).exists():
        return False
    rules = get(game.kind).rules
    waiting = rules.to_act(load_state(game, upto=version)).get(seat)
    return waiting is not None and waiting == rules.to_act(load_state(game)).get(seat)


def stale(game, user, version: int, command: str) -> Line:
    """A move for a turn that has passed: refuse it and say what the player can do now."""
    from games import selectors

    legal = selectors.game_for(game, user)["legal_actions"]
    moves = [f"{a['notation']}  —  {a['label']}" for a in legal[:20]]
    now = "your moves now:" if moves else "it is not your turn now."
    text = (f"#{game.pk}: this email was for move {version} of the game; the game has moved on (it is at move "
            f"{game.version}), so “{command}” was not applied — {now}")
    if moves:
        fresh_turn_email(game, user)
    return Line(game.pk, False, text, moves, stale=True)


def fresh_turn_email(game, user):
    """The answer carries no reply token, so a player whose turn it still is gets a turn email
    for the game as it is now (once per version)."""

    kinds = (Outbox.YOUR_TURN, Outbox.REMINDER)
    if wants_turn_mail(user) and not Outbox.objects.filter(game=game, user=user, version=game.version, kind__in=kinds).exists():
        Outbox.objects.create(kind=Outbox.YOUR_TURN, game=game, user=user, version=game.version)
        transaction.on_commit(kick)


def dispatch(game, name: str, args: tuple, done: str) -> Line:
    """Call a games service that another part of the product provides; say so if it is missing."""
    service = getattr(services, name, None)
    if service is None:
        return Line(game.pk, False, f"#{game.pk}: answering this by email is not available yet; "
                                    "use the game page. Nothing was changed.", move=False)
    try:
        service(*args)
    except (IllegalAction, services.BadRequest, services.NotYourSeat, ValueError) as exc:
        reason = getattr(exc, "reason", None) or str(exc)
        return Line(game.pk, False, f"#{game.pk}: not accepted: {reason} Nothing was changed.", move=False)
    return Line(game.pk, True, f"#{game.pk}: {done}", move=False)


# ---------------------------------------------------------------- the answer


def answer(row: Outbox, user, lines: list[Line], message_id: str):
    """One answer email for the whole reply, unless this address had enough answers this hour."""

    if not loops.may_answer(user):
        log.warning("not answering %s: MAIL_ANSWERS_PER_HOUR reached", user.email)
        return
    game = Game.objects.filter(pk=lines[0].game).first() if lines else None
    game = game or Game.objects.get(pk=row.game_id or next(iter(tokens.games_of(row))))
    kind = Outbox.MOVE_ACCEPTED if lines and all(line.ok for line in lines) else Outbox.MOVE_REFUSED
    detail = json.dumps({"lines": [asdict(line) for line in lines], "in_reply_to": message_id})
    Outbox.objects.create(kind=kind, game=game, user=user, version=game.version, detail=detail)
    transaction.on_commit(kick)
