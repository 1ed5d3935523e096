"""The whole picture of one game for one player, as an email shows it.

Everything here comes from the player's own view (``selectors.game_for``) and their redacted
log, so an email can never say more than the game page would.
"""

from __future__ import annotations

from datetime import datetime

from django.conf import settings
from django.db.models import Max, Min

from games import changes, chat, selectors
from games.changes import OWN_MOVES
from games.models import Game
from games.registry import get
from games.store import events_of, load_state
from kinplay.notifications.models import Look, Outbox

PICTURED = (Outbox.YOUR_TURN, Outbox.REMINDER, Outbox.GAME_OVER)  # the emails that show a game's events
# A view's own short log ("What just happened", "Last: …"), which the email's list of what
# happened since the player last looked says already.
OWN_LOG = ("recent", "last")
MAX_LOG_LINES = 200  # a player back after weeks gets the newest lines and a link for the rest

def site(path: str) -> str:
    return f"{settings.SITE_URL.rstrip('/')}{path}"


def deadline_text(game: Game, tz, now: datetime, then: str) -> str:
    """"due Tue 14:00 UTC, in 2 days; then a bot plays for you" in the player's time zone."""
    if not game.deadline or game.status != Game.ACTIVE:
        return ""
    local = game.deadline.astimezone(tz)
    fmt = "%a %H:%M" if (game.deadline - now).days < 6 else "%a %d %b %H:%M"
    when = f"{local.strftime(fmt)} {local.tzname()}"
    if game.deadline <= now:
        return f"was due {when}; {then} at any moment"
    return f"due {when}, in {in_words(game.deadline - now)}; {then}"


def what_then(game: Game, entry: dict | None, legal: list[dict]) -> str:
    """What the clock does for this seat when it runs out, as ``games.services.timeout`` does it."""
    default = (entry or {}).get("default")
    if entry and (entry.get("kind") == "window" or (game.on_timeout == "skip" and default is not None)):
        label = next((a["label"] for a in legal if a["action"] == default), None) or get(game.kind).default_label(default or {})
        if entry.get("kind") == "window":
            return f"then “{label}” is answered for you" if label else "then the default answer is taken for you"
        return f"then your turn is skipped (“{label}”)" if label else "then your turn is skipped"
    if game.on_timeout == "forfeit":
        return "then you lose the game by forfeit"
    return "then a bot plays for you"


def in_words(delta) -> str:
    """A duration a reader can trust: "2 days" (47h59m too), "1 day 13 hours", "5 hours", "12 minutes"."""
    minutes = max(1, round(delta.total_seconds() / 60))
    days, rest = divmod(minutes + 2, 1440)  # a couple of minutes of slack for the time the mail took
    hours = rest // 60

    def n(k, unit):
        return f"{k} {unit}{'' if k == 1 else 's'}"

    if days >= 3 or (days and not hours):
        return n(days, "day")
    if days:
        return f"{n(days, 'day')} {n(hours, 'hour')}"
    if hours:
        return n(hours, "hour")
    return n(minutes, "minute")


def previous_version(row: Outbox, game: Game, seat: int | None, version: int) -> int:
    """The version this player last saw: their own last move, the last email about this game
    they were sent that showed it (a turn email, a reminder, or a digest that listed it), or the
    last time its page showed it to them (presence.looked), whichever is later. An answer to a reply by email shows no events: the bots' answers to that move are
    still news."""
    last_move = 0
    if seat is not None:
        # A command's first event carries it; the player's own (not a timeout played for them,
        # which they have not seen) runs up to the next command (the bots' answers, ...).
        commands = events_of(game).filter(seq__lte=version, command__isnull=False)
        own = commands.filter(seat=seat, command__by__in=OWN_MOVES).aggregate(m=Max("seq"))["m"]
        if own:
            following = commands.filter(seq__gt=own).aggregate(m=Min("seq"))["m"]
            last_move = following - 1 if following else version
    sent = (Outbox.emails().filter(user_id=row.user_id, sent_at__isnull=False, held_at__isnull=True).exclude(pk=row.pk)
            .exclude(error__startswith="not sent"))  # services.passed: done with, never seen
    last_mail = sent.filter(game=game, version__lte=version, kind__in=PICTURED).aggregate(m=Max("version"))["m"] or 0
    for games in sent.filter(kind=Outbox.DIGEST).order_by("-pk").values_list("games", flat=True)[:20]:
        v = (games or {}).get(str(game.pk))
        if v is not None and last_mail < v <= version:
            last_mail = v
    looked = Look.objects.filter(user_id=row.user_id, game=game, version__lte=version).values_list("version", flat=True)
    return max(last_move, last_mail, looked.first() or 0)


def same_turn(game, seat: int, version: int) -> bool:
    """Is the turn (or window) the email was sent for still this seat's turn now?

    Yes at the same version. After others moved, only if this seat has not acted since (itself,
    on the page, or a timeout for it) and waits the same way as then: another player resigning
    or answering their own part of a window does not void a reply in flight, but a move or a
    timeout of this seat, or a new turn, does. (The move itself is then checked as any move.)
    """
    if game.version == version:
        return True
    if version > game.version or events_of(game).filter(seq__gt=version, seat=seat).exists():
        return False
    rules = get(game.kind).rules
    waiting = rules.to_act(load_state(game, upto=version)).get(seat)
    return waiting is not None and waiting == rules.to_act(load_state(game)).get(seat)


def of_game(row: Outbox, game: Game, user, *, version: int, tz, now: datetime) -> dict:
    """One game as ``user``'s seat sees it at ``version``: board (HTML and text), deadline,
    every event since they last looked, and their moves."""
    kind = get(game.kind)
    seat = game.seat_of(user)
    if (row.kind in Outbox.TURN_MAIL and seat is not None and game.status == Game.ACTIVE and version != game.version
            and same_turn(game, seat, version)):
        # Only others moved since the row was written (their part of a window or of a simultaneous
        # choice) before it left: the player still waits the same way, so the game as it is now,
        # with the moves (a reply to this email is taken: replies.same_turn).
        version = game.version
    payload = selectors.game_for(game, user, at=version)
    names = selectors.seat_names(game)
    current = version == game.version and game.status == Game.ACTIVE
    legal = payload["legal_actions"] if current and row.kind != Outbox.GAME_OVER else []
    after = previous_version(row, game, seat, version)
    lines = selectors.log_lines(game, seat, after=after, upto=version, names=names)
    last_seen = events_of(game).filter(seq=after).values_list("at", flat=True).first() if after else None
    view = payload["view"]
    render = kind  # Kind.render/render_text: the players' names in place of seat placeholders
    board = selectors.board_view(game, view, version)  # a forfeited seat says "out of time"
    board = {k: v for k, v in board.items() if k not in OWN_LOG}
    board_html = changes.marked(game, user, render.render(board, seat, names) if view else "", since=after, upto=version)
    result = payload["result"]
    return {
        "game": game,
        "kind_name": kind.name,
        "seat": seat,
        "names": names,
        "opponents": [n for i, n in enumerate(names) if i != seat],
        "url": site(f"/games/{game.pk}/"),
        "board_html": board_html,
        "changed": changes.CHANGED in board_html,
        "board_text": render.render_text(board, seat, names) if view else "",
        "deadline": deadline_text(game, tz, now, what_then(game, waits_for(game, seat), legal)) if current else "",
        "recent": lines[-MAX_LOG_LINES:],
        "recent_hidden": max(0, len(lines) - MAX_LOG_LINES),
        "chat": chat.since(game, last_seen, user),  # table talk since they last looked
        "legal": legal,
        "result": result,
        "standings": standings(result, names, seat) if result else [],
        "winners": ", ".join(names[i] for i in ((result or {}).get("winners") or [])),
    }


def waits_for(game: Game, seat: int | None) -> dict | None:
    """The seat's entry in the rules' ``to_act`` (a turn, a choice or a window, and its default)."""
    if seat is None or seat not in (game.to_act or []):
        return None
    return get(game.kind).rules.to_act(load_state(game)).get(seat)


def standings(result: dict, names: list[str], seat: int | None) -> list[dict]:
    """Final standings, best first: each player's place, name, score and result line."""
    ranks, scores, winners = result.get("ranks") or [], result.get("scores") or [], set(result.get("winners") or [])
    rows = []
    for i, name in enumerate(names):
        rank = ranks[i] if i < len(ranks) else None
        score = scores[i] if i < len(scores) else None
        if i in winners:
            line = "won" if len(winners) == 1 else "shared the win"
        elif rank is not None:
            line = f"finished {ordinal(rank)}"
        else:
            line = "did not finish"
        if score is not None:
            line += f" with {score} point{'' if score == 1 else 's'}"
        rows.append({"rank": rank, "place": ordinal(rank) if rank else "–", "name": name, "score": score,
                     "line": f"{name} {line}", "you": i == seat, "winner": i in winners})
    return sorted(rows, key=lambda r: (r["rank"] is None, r["rank"] or 0))


def ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"
