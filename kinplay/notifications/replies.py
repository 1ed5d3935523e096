"""Moves by email, as the old email judges played: reply to a turn email with your move.

A reply is taken only when all of these hold (anything else changes nothing):
- it was written by a person: auto-replies, bounces and list mail are dropped (loops.py);
- it is addressed to a valid reply token, which names the one email it answers (tokens.py);
- its From is one mailbox, authenticated for its domain (authentication.py), and that mailbox
  is the address the answered email was sent to, of an account not deactivated;
- its Message-ID was never taken before;
- a move answers the turn the email was sent for (``same_turn``; else "the game has moved on").
Strangers get no answer at all; the player gets one answer saying what was applied and what
was refused (answers that applied nothing: at most MAIL_ANSWERS_PER_HOUR an hour, loops.may_answer).
"""

from __future__ import annotations

import hashlib
import json
import logging
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from email.utils import getaddresses

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone

from games import changes, chat, selectors, services
from games.engine import DEFAULT_ANSWER_WORDS, IllegalAction
from games.models import Game
from games.registry import get, kinds
from games.store import VersionConflict, load_state
from kinplay.accounts.models import Profile
from kinplay.notifications import bounces, digests, headers, loops, tokens
from kinplay.notifications import unsubscribe as one_click
from kinplay.notifications.authentication import BadFrom, ProviderVerdict, authenticated, sender_of
from kinplay.notifications.models import InboundMail, Outbox
from kinplay.notifications.picture import same_turn
from kinplay.notifications.services import kick, wants_turn_mail
from kinplay.notifications.written import read_lines, text_of

log = logging.getLogger("kinplay.notifications")

TAGGED = re.compile(r"^#\s*(\d{1,19})(?:\s*[:.)-]\s*|\s+)(.+)$")  # "#12 play 3", "#12: play 3", "#12:play 3"
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
    news: list[str] = field(default_factory=list)  # and what happened since the email it answered
    news_hidden: int = 0  # older news, left to the game page
    stale: bool = False  # the reply was for a turn that has passed
    move: bool = True  # a move, or another answer (invitation, standing answer)
    turn: bool = False  # the move gave the turn straight back: ``moves`` are its moves, the answer takes a reply
    about: str = ""  # the subject of an answer that is not a move, when applied ("Invitation accepted")
    did: list[str] = field(default_factory=list)  # what the player's own move did, in the log's words
    then: list[str] = field(default_factory=list)  # what followed it (the bots' answers, a timeout)
    now: str = ""  # where the game stands after it: whose turn, as the lobby says it
    position: str = ""  # the board as the seat sees it now, in words (render_text)


# ---------------------------------------------------------------- reading a message


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


def receive_message(msg, *, raw: bytes | None = None, envelope: Sequence[str] = (), provider: ProviderVerdict | None = None,
                    trust_unauthenticated: bool = False) -> str:
    """Apply a reply (an email.message.EmailMessage, policy.default); returns what happened."""
    report = bounces.receive(msg, recipients_of(msg) + list(envelope), message_id_of(msg, raw))
    if report is not None:  # a delivery report, sent to the envelope sender of one of our emails
        return report
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
    if not user.is_active:  # a deactivated account: the API refuses its token, and its tokens are refused too
        log.warning("mail move for outbox row %s from a deactivated account", row.pk)
        return "inactive"
    message_id = message_id_of(msg, raw)
    with transaction.atomic():
        try:
            with transaction.atomic():
                receipt = InboundMail.objects.create(message_id=message_id, user=user, outcome="taking")
        except IntegrityError:
            log.info("mail %s was taken before", message_id)
            return "duplicate"
        written, subject = read_lines(text_of(msg)), subject_command(msg)
        if unsubscribing(msg, written):  # from any email of theirs, however old: it only stops mail
            lines = [unsubscribe(row, user)]
            rest = [line for line in written if words_of(as_command(line)) not in UNSUBSCRIBE]
            if status != "expired":  # "black", then "unsubscribe": the move is played too, and "say:" said
                lines += apply(row, user, rest, subject=subject, unsubscribing=True)
        elif status == "expired":
            first = row.game_id or next(iter(tokens.games_of(row)))
            old = f"this email is more than {settings.MAIL_TOKEN_MAX_AGE_DAYS} days old: reply to a newer one."
            lines = [Line(first, False, f"#{first}: {old} Nothing was changed.")]
        else:
            lines = apply(row, user, written, subject=subject)
        outcome = "expired" if status == "expired" and lines[0].ok is False else outcome_of(lines)
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


# ---------------------------------------------------------------- unsubscribing

UNSUBSCRIBE = ("unsubscribe", "unsubscribe me", "please unsubscribe", "please unsubscribe me", "unsubscribe please",
               "unsubscribe me please", "stop emailing me", "no more emails", "no more emails please")


def unsubscribing(msg, lines: list[str]) -> bool:
    """"unsubscribe" on a line of its own, or as the subject: what a mail program's Unsubscribe
    button sends to the List-Unsubscribe address of a turn email (services.compose)."""
    subject = subject_of(msg)
    return words_of(subject) in UNSUBSCRIBE or any(words_of(as_command(line)) in UNSUBSCRIBE for line in lines)


def unsubscribe(row: Outbox, user) -> Line:
    """Switch off the player's turn emails and reminders (the settings page's "Email me when it
    is my turn"), for every game."""
    one_click.turn_mail_off(user)
    first = row.game_id or next(iter(tokens.games_of(row)))
    return Line(first, True, f"#{first}: you are unsubscribed: no more turn emails or reminders, for this game or "
                             "any other. Invitations, game-over emails and answers like this one still come. To get "
                             f"turn emails again, switch on “Email me when it is my turn” at {settings.SITE_URL.rstrip('/')}"
                             "/settings/.", move=False)


# ---------------------------------------------------------------- a move in the subject

# "Re:", "Fwd:", Outlook's "AW:" and "WG:" (German), "SV:" (Nordic), "Antw:" (Dutch), "RE[2]:"
PREFIX = r"(?:re|fwd?|aw|wg|sv|antw)\s*(?:\[\d+\])?\s*:"
REPLY_PREFIX = re.compile(rf"^(?:\s*{PREFIX})+", re.IGNORECASE)


def subject_of(msg) -> str:
    """The Subject, its first line's worth (RFC 5322: 998 characters): the patterns that read it
    backtrack over a long one (100 kB of it held a worker for minutes)."""
    return (headers.first(msg, "Subject") or "")[:998]


def our_subject() -> re.Pattern:
    """The subjects of the emails that can be answered with a move (services.SUBJECTS, the wait
    line of games.selectors.waiting, consent.SUBJECTS' invitation) with their "Re:", wherever they
    stand in the subject."""
    names = "|".join(re.escape(kind.name) for kind in kinds().values())
    game = rf"(?:{names}) #\d+"
    return re.compile(rf"(?:{PREFIX}\s*)*(?:reminder:\s*)?(?:your turn in \d+ games:\s*{game}(?:,\s*{game})*"
                      rf"|your (?:turn|move) in {game}(?: is due soon)?(?:\s*\((?:was )?due [^)]*\))?"
                      rf"|{game}:.*?\((?:closes in [^)]*|no time limit)\)"
                      rf"|\S+ invites you to play {game})", re.IGNORECASE)


def subject_command(msg) -> str:
    """What the player wrote in the Subject besides ours and its "Re:" ("Re: Your turn in Kenta #12"
    edited to "h4", or to "h4 - Re: Your turn in Kenta #12"): their move when the body has none (``apply``)."""
    subject = REPLY_PREFIX.sub("", subject_of(msg))
    return our_subject().sub(" ", subject).strip(" \t-–—:|")


# ---------------------------------------------------------------- applying the commands


class Tables:
    """The games a reply speaks of, each read once with its state on the way to games.services.act
    (which reads it again, locked): which lines are moves, and the label of the one played."""

    def __init__(self):
        self.games: dict[int, Game | None] = {}
        self.states: dict[tuple[int, int], dict] = {}

    def game(self, game_id: int) -> Game | None:
        if game_id not in self.games:
            self.games[game_id] = Game.objects.with_seats().filter(pk=game_id).first()
        return self.games[game_id]

    def state(self, game: Game, upto: int | None = None) -> dict:
        """Read only: the rules' legal_actions never change it."""
        key = (game.pk, game.version if upto is None else upto)
        if key not in self.states:
            self.states[key] = load_state(game, upto=key[1])
        return self.states[key]


def commands(row: Outbox, user, lines: list[str], *, strict: bool = False, tables: Tables | None = None
             ) -> list[tuple[int, str]]:
    """[(game id, command)]: "#12 play 3" lines, or the commands of a reply to an email about
    one game (``command_lines``: the first is played, the others are answered as not played).
    ``strict``: only lines that are commands (else the first line stands for the move the reply
    meant, and the answer says why it is not one)."""
    lines = [command for command in map(as_command, lines) if command]  # "— Alice" under the move is no line of it
    tagged = [(int(m.group(1)), as_command(m.group(2))) for m in map(TAGGED.match, lines) if m]
    if tagged:
        return tagged
    games = tokens.games_of(row)
    if len(games) == 1 and lines:
        game_id, version = next(iter(games.items()))
        return [(game_id, command) for command in
                command_lines(row, user, game_id, version, lines, strict=strict, tables=tables or Tables())]
    return []


LABEL = re.compile(r"\s*—.*$")  # "black  —  Black die (II)": a move's line copied whole from the email
WRAPPERS = ('"', '"'), ("“", "”"), ("„", "“"), ("«", "»"), ("'", "'"), ("‘", "’"), ("*", "*"), ("_", "_"), ("`", "`")


def as_command(line: str) -> str:
    """A line as a player means it: the move without its label when they copied the email's whole
    line ("black  —  Black die"), without the quotes or the *bold* of a mail program's plain text,
    and without the invisible characters some mail programs put in (zero-width spaces, direction
    marks). A "say:" line is table talk and kept as written."""
    line = "".join(c for c in line if unicodedata.category(c) != "Cf").strip()
    if SAY.match(line) or SAY.match(TAGGED.sub(r"\2", line)):
        return line
    line = LABEL.sub("", line).strip()
    while len(line) > 2 and any(line.startswith(a) and line.endswith(b) for a, b in WRAPPERS):
        line = line[1:-1].strip()
    return line


def command_lines(row: Outbox, user, game_id: int, version: int, lines: list[str], *, strict: bool = False,
                  tables: Tables) -> list[str]:
    """The lines that are commands: one of the seat's moves (as the email listed them, or as they
    are now), resign, a window's or a standing answer, accept or decline. A greeting or a comment
    above the quote, or between quoted lines, is passed over; with no command at all, the first
    line (the answer says why it is not one), or none when ``strict``."""
    known = {"resign", *STANDING_WORDS, *DEFAULT_ANSWER_WORDS}
    game = tables.game(game_id)
    seat = game.seat_of(user) if game else None
    if game is not None and seat is not None and game.status == Game.ACTIVE:
        rules = get(game.kind).rules
        listed = row.kind in (Outbox.YOUR_TURN, Outbox.REMINDER) and version < game.version  # the email's moves
        for upto in ([version] if listed else []) + [game.version]:
            known.update(words_of(a["notation"]) for a in rules.legal_actions(tables.state(game, upto), seat))
    invitation = row.kind == Outbox.INVITATION
    return [line for line in lines if words_of(line) in known
            or (invitation and (ACCEPT.match(words_of(line)) or words_of(line) == "decline"))] or ([] if strict else lines[:1])


PLUS = re.compile(r"\s*\+\s*")


def words_of(command: str) -> str:
    """A command as it is compared: case, spacing (also around a "+": "defend cliff+full-swing") and
    a sentence's closing full stop do not matter."""
    return " ".join(PLUS.sub(" + ", command.rstrip(" .!") or command).lower().split())


# "accept" keeps the seat's colour; "accept blue" (or "accept, blue", "accept as blue", "accept
# colour blue") chooses one as a joining player does (games.services._choose).
ACCEPT = re.compile(r"^accept(?:[\s,:;-]+(?:(?:as|with|in|the|colou?r)\s+)*(?P<choice>[^\s,.!]+))?[.!]*$")
SAY = re.compile(r"^say:\s*", re.IGNORECASE)  # table talk: "say: good game" (or "#12 say: …")


def say(game_id: int, user, text: str, tables: Tables) -> Line:
    """Table talk by email. An email's token dies with its game: after the end, talk at the
    game's page (its chat stays open there), not by replying to an old email."""
    game = tables.game(game_id)
    if game is None or game.is_over:
        return Line(game_id, False, f"#{game_id}: this game is over, so your chat line was not posted: the game's "
                                    "page still takes it.", move=False)
    try:
        chat.post_chat(game_id, user, text)
    except chat.ChatRefused as exc:
        return Line(game_id, False, f"#{game_id}: your chat line was not posted: {exc}", move=False)
    return Line(game_id, True, f"#{game_id}: you said “{' '.join(text.split())}” at the table.", move=False)


def apply(row: Outbox, user, lines: list[str], *, subject: str = "", unsubscribing: bool = False) -> list[Line]:
    """Post the reply's "say:" lines and play its command: the body's, else the one written in the
    Subject (``subject_command``). ``unsubscribing``: the reply also said "unsubscribe", and one
    without a move was not meant to play: it needs no word about a missing move."""
    games = tokens.games_of(row)
    tables = Tables()  # a reply to a one-game email reads that game once
    said = [SAY.sub("", line) for line in lines if SAY.match(line)]
    lines = [line for line in lines if not SAY.match(line)]
    first = next(iter(games))
    if len(games) == 1:
        talk = [say(first, user, text, tables) for text in said[:5]]
    else:  # which table? Say so rather than drop the line
        talk = [Line(first, False, f"#{first}: your chat line “{' '.join(text.split())}” was not posted: this email "
                                   f"was about several games; write “#{first} say: {' '.join(text.split())}” to say "
                                   "it at one game's table.", move=False) for text in said[:5]]
    todo = commands(row, user, lines, strict=True, tables=tables)
    if not todo and subject:
        todo = commands(row, user, [subject], strict=True, tables=tables)  # "Re: Your turn in Kenta #12" edited to "h4"
    if not todo and unsubscribing:
        return talk
    if not todo and not talk:
        todo = commands(row, user, lines, tables=tables)  # its first line: the answer says why it is no move
    if not todo and talk and lines and talk[-1].ok:  # more talk, or a move mistyped: say that none was played
        talk[-1].text += " No move was played: none of your other lines is one of your moves."
    if not todo and talk:
        return talk  # only table talk: nothing to play
    if not todo:
        hint = "your move on a line of its own" if len(games) == 1 else "one line per game, such as “#12 play 3”"
        return [Line(first, False, f"#{first}: your reply had no move in it: write {hint}.")]
    out = talk
    if len(games) == 1 and len(todo) > 1:  # "play dash", then "end": a reply plays one move, as the email asks
        first_command = todo[0][1]
        seen, others = {words_of(first_command)}, []
        for _, command in todo[1:]:  # a move written twice is one move
            if words_of(command) not in seen:
                seen.add(words_of(command))
                others.append(command)
        out.append(apply_one(row, user, first, games[first], first_command, tables=tables))
        return out + [Line(first, False, f"#{first}: “{command}” was not played: a reply plays one move, and "
                                         f"“{first_command}” came first. Send “{command}” in reply to your next turn "
                                         "email.") for command in others[:4]]
    for game_id, command in todo[:20]:
        if game_id not in games:
            out.append(Line(game_id, False, f"#{game_id}: this email was not about game #{game_id}; nothing was changed."))
            continue
        # each as it is now: "#12 …" twice in a digest reply reads game 12 after the first
        out.append(apply_one(row, user, game_id, games[game_id], command, tables=tables if len(games) == 1 else None))
    return out


def apply_one(row, user, game_id: int, version: int, command: str, *, tables: Tables | None = None) -> Line:
    tables = tables or Tables()
    game = tables.game(game_id)
    if game is None:
        return Line(game_id, False, f"#{game_id}: there is no such game.")
    if game.is_over:  # every token of a game dies with it
        return Line(game_id, False, f"#{game_id}: this game is over; nothing was changed.")
    if SAY.match(command):  # "#12 say: …" in a digest reply
        return say(game_id, user, SAY.sub("", command), tables)
    command = command.rstrip(" .!") or command  # "Resign.", "Nothing!": a sentence's full stop is no part of a move
    words = words_of(command)
    accept = ACCEPT.match(words) if row.kind == Outbox.INVITATION else None
    if accept:
        choice = accept.group("choice")
        return dispatch(game, services.accept_invitation, (game_id, user, choice),
                        "you accepted the invitation" + (f" and play {choice}." if choice else "."),
                        about="Invitation accepted")
    if row.kind == Outbox.INVITATION and words.rstrip(".!") == "decline":
        return dispatch(game, services.decline_invitation, (game_id, user), "you declined the invitation.",
                        about="Invitation declined")
    if row.kind == Outbox.INVITATION and game.status == Game.WAITING and words not in STANDING_WORDS:
        return Line(game_id, False, f"#{game_id}: “{command}” does not answer the invitation: reply with “accept” or "
                                    "“decline” on a line of its own. Nothing was changed.", move=False)
    if words in STANDING_WORDS:
        value = STANDING_WORDS[words]
        return dispatch(game, services.set_standing_answer, (game_id, user, value),
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
            legal = get(game.kind).rules.legal_actions(tables.state(game), seat)
            listed = next((a for a in legal if words_of(a["notation"]) == words), None)
            label = listed["label"] if listed else ""
            before = game.version
            services.act(game_id, seat, notation=listed["notation"] if listed else command, by="email",
                         expected_version=game.version)
            if label:  # what the move did, in the words of the email's list, as the old judges echoed an order
                return taken(game, user, f"#{game_id}: “{command}” was accepted: {label}{'' if label[-1] in '.?!' else '.'}",
                             before=before)
            return taken(game, user, f"#{game_id}: “{command}” was accepted.", before=before)
    except VersionConflict:
        game.refresh_from_db()
        return stale(game, user, version, command)
    except (IllegalAction, services.BadRequest) as exc:
        reason = getattr(exc, "reason", None) or str(exc)
        return Line(game_id, False, f"#{game_id}: “{command}” was not accepted: {reason} Nothing was changed. "
                                    "Reply to that email again with one of your moves.", moves_now(game, user))
    return taken(game, user, f"#{game_id}: “{command}” was accepted.")


def taken(game, user, text: str, *, before: int | None = None) -> Line:
    """A move applied: what it did (``before``: the version it was played at), what followed and
    the position now, as the seat sees them. When it gives the turn straight back (the bots
    answered, an extra turn) and no turn email says so now (a digest player's waits for the
    digest: digests.spaced; quiet hours; turn emails off), the answer lists the moves too, and
    takes a reply (``answer``): they are at their mail now."""
    game.refresh_from_db(fields=["version", "to_act", "status", "deadline"])
    seat = game.seat_of(user)
    line = Line(game.pk, True, text, **(outcome(game, user, seat, before) if before is not None else {}))
    if game.status != Game.ACTIVE or seat not in game.to_act:
        return line
    if turn_mail_goes(game, user):
        line.now += " (your moves come in the turn email that follows: reply to it)" if line.now else ""
        return line
    line.moves, line.turn = moves_now(game, user), True
    return line


def outcome(game, user, seat: int, before: int) -> dict:
    """The events of the seat's own command played at ``before`` (games.changes.own_moves), the
    ones after it (the bots' answers), where the game stands and the board in words, from the
    seat's own redacted view: the log's words, never more than the game page shows."""
    names = selectors.seat_names(game)
    mine = changes.own_moves(game, seat, after=before)
    lines = [(line["seq"] in mine, selectors.said_to(line["text"], names[seat], names))
             for line in selectors.log_lines(game, seat, after=before, names=names)]
    own, rest = [text for ours, text in lines if ours], [text for ours, text in lines if not ours]
    kind = get(game.kind)
    payload = selectors.game_for(game, user)
    position = kind.render_text(selectors.board_view(game, payload["view"]), seat, names) if payload["view"] else ""
    return {"did": own, "then": rest[-NEWS_LINES:], "position": position,
            "now": selectors.wait_line(game, seat, names=names, title=f"{kind.name} #{game.pk}")}


def turn_mail_goes(game, user) -> bool:
    """Does the turn email for the game as it is now leave at once (services.change_mail wrote it)?"""
    if not (user.email and wants_turn_mail(user)):
        return False
    row = Outbox(kind=Outbox.YOUR_TURN, game=game, user=user, version=game.version)
    return digests.hold_reason(row, Profile.of(user), timezone.now()) is None


def moves_now(game, user) -> list[str]:
    """The seat's moves as the turn email lists them ("<move>  —  <what it does>"), for an answer
    that refuses one: the player picks another without the game page."""
    return [f"{a['notation']}  —  {a['label']}" for a in selectors.game_for(game, user)["legal_actions"][:20]]


NEWS_LINES = 10  # what happened since the email, newest last; the rest is on the game page


def stale(game, user, version: int, command: str) -> Line:
    """A move for a turn that has passed: refuse it and say where the game stands now, in a
    player's words (what happened since that email, whose turn it is, their moves): a version
    is an event count, a number no player knows."""
    seat, names = game.seat_of(user), selectors.seat_names(game)
    moves = moves_now(game, user)
    news = [line["text"] for line in selectors.log_lines(game, seat, after=version, names=names)]
    now = selectors.wait_line(game, seat, names=names, title=f"{get(game.kind).name} #{game.pk}")
    text = (f"#{game.pk}: “{command}” was not applied: this email was for a turn that has passed, and the game "
            f"has moved on. Where it stands now: {now}.")
    if moves:
        fresh_turn_email(game, user)
    return Line(game.pk, False, text, moves, stale=True, news=news[-NEWS_LINES:],
                news_hidden=max(0, len(news) - NEWS_LINES))


def fresh_turn_email(game, user):
    """The answer carries no reply token, so a player whose turn it still is gets a turn email
    for the game as it is now (once per version)."""

    kinds = (Outbox.YOUR_TURN, Outbox.REMINDER)
    if wants_turn_mail(user) and not Outbox.emails().filter(game=game, user=user, version=game.version, kind__in=kinds).exists():
        Outbox.objects.create(kind=Outbox.YOUR_TURN, game=game, user=user, version=game.version)
        transaction.on_commit(kick)


def dispatch(game, service, args: tuple, done: str, *, about: str = "") -> Line:
    """Call a games service for a line that is not a move; say what came of it."""
    try:
        service(*args)
    except (IllegalAction, services.BadRequest, services.NotYourSeat, ValueError) as exc:
        reason = getattr(exc, "reason", None) or str(exc)
        return Line(game.pk, False, f"#{game.pk}: not accepted: {reason} Nothing was changed.", move=False, about=about)
    return Line(game.pk, True, f"#{game.pk}: {done}", move=False, about=about)


# ---------------------------------------------------------------- the answer


def answer(row: Outbox, user, lines: list[Line], message_id: str):
    """One answer email for the whole reply, unless it applied nothing and this address had enough
    refusals this hour."""

    if not loops.may_answer(user, applied=any(line.ok for line in lines)):
        log.warning("not answering %s: MAIL_ANSWERS_PER_HOUR refusals reached", user.email)
        return
    game = Game.objects.filter(pk=lines[0].game).first() if lines else None
    game = game or Game.objects.get(pk=row.game_id or next(iter(tokens.games_of(row))))
    kind = Outbox.MOVE_ACCEPTED if lines and all(line.ok for line in lines) else Outbox.MOVE_REFUSED
    detail = json.dumps({"lines": [asdict(line) for line in lines], "in_reply_to": message_id})
    # Its reply token names the turns that came straight back (tokens.games_of): only they can be played from it.
    turns = {str(pk): v for pk, v in Game.objects.filter(pk__in=[line.game for line in lines if line.turn])
             .values_list("pk", "version")}
    Outbox.objects.create(kind=kind, game=game, user=user, version=game.version, detail=detail, games=turns)
    transaction.on_commit(kick)
