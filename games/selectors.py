"""Reads: what one person may see of a game. Every channel (API, page, email) goes through here."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import NamedTuple

import orjson
from django.core.cache import cache
from django.db.models import Exists, OuterRef
from django.utils import timezone
from django.utils.timesince import timeuntil

from games.engine import PLATFORM_EVENTS, RESIGN, evolve, fill_seats
from games.models import Event, Game, History, Seat
from games.registry import get
from games.schema import upcast
from games.store import event_ranges, events_of, load_state, stream


def seat_names(game) -> list[str]:
    return [s.name for s in game.seat_list]


def named(data, names: list[str]):
    """Engine text (or a view, a result) with each seat placeholder ("{seat2}",
    games.engine.seat_ref) replaced by that player's name, for every channel; the board's
    HTML gets the same from games.registry.Kind.render."""
    if isinstance(data, (list, dict)):
        # Most views and move lists hold no placeholder: orjson shows it much more cheaply
        # than fill_seats' own look (marshal), which would weigh on every move's answer. Data
        # orjson refuses (a key that is no text) is left to that look.
        try:
            if b"{seat" not in orjson.dumps(data):
                return data
        except TypeError:
            pass
    return fill_seats(data, names)


def called_off(game) -> dict | None:
    """Why a game that never started was cancelled (Game.CALLED_OFF, None when not recorded), by
    whom, and the sentence its page shows; None for any other game."""
    if game.status != Game.ABORTED:
        return None
    return {"reason": game.called_off or None, "by": game.called_off_by.username if game.called_off_by_id else None,
            "text": called_off_line(game)}


def called_off_line(game) -> str:
    """Why a game that never started was cancelled, and by whom, in one sentence for its page."""
    who = game.called_off_by.username if game.called_off_by_id else ""
    if not who:  # recorded before kinplay kept the reason (or cancelled by the platform)
        return "This game was cancelled before it started."
    return {
        "cancelled": f"Cancelled by {who} before it started.",
        "declined": f"Cancelled: {who} declined the invitation.",
        "expired": f"Cancelled: the invitation to {who} expired.",
        "left": f"Cancelled: {who} left before it started.",
        "repaired": f"Cancelled before anyone moved: {who}, the tournament's organiser, changed the round's pairing.",
    }.get(game.called_off, "This game was cancelled before it started.")


def describe_platform(e: dict, names: list[str]) -> str:
    """The log line of an event the platform wrote (games.engine.PLATFORM_EVENTS)."""
    d = e["data"]
    if e["type"] == "timed_out":
        who = names[d["seat"]] if 0 <= d["seat"] < len(names) else f"seat {d['seat'] + 1}"
        if d.get("window"):
            return f"{who} did not answer in time: {d.get('answer') or 'the default answer'}."
        return f"{who}'s time ran out: " + {
            "bot": "a bot played for them.", "default": "the default move was played for them.",
            "forfeit": "they forfeit the game.",
        }.get(d.get("policy"), "the game went on without them.")
    if e["type"] == "forfeited":
        who = names[d["seat"]] if 0 <= d["seat"] < len(names) else f"seat {d['seat'] + 1}"
        return f"{who} forfeited: " + FORFEIT_WHY.get(d.get("reason"), "the game went on without them.")
    return e["type"]


# Why a "forfeited" platform event (games.services.FORFEIT_REASONS) took a player out, in words.
FORFEIT_WHY = {"round_time": "the round's time ran out."}


def _forfeit(e: dict) -> bool:
    """A platform event that takes the player out: the resignation stored after it says no more."""
    return e["type"] == "forfeited" or (e["type"] == "timed_out" and e["data"].get("policy") == "forfeit")


def out_of_time(game, upto: int | None = None) -> list[int]:
    """The seats a forfeit the platform applied (a clock's, a round's time) took out, up to
    version ``upto``: their boards say so, where the rules only know that they resigned."""
    rows = events_of(game).filter(type__in=PLATFORM_EVENTS)
    if upto is not None:
        rows = rows.filter(seq__lte=upto)
    return sorted({row.data["seat"] for row in rows.only("type", "data")
                   if _forfeit({"type": row.type, "data": row.data})})


def board_view(game, view: dict, upto: int | None = None) -> dict:
    """The view to draw the board from (``Kind.render``): with "_out_of_time", the seats a
    platform forfeit took out, so the board says "out of time" where the rules saw a resignation."""
    gone = out_of_time(game, upto) if view else []
    return {**view, "_out_of_time": gone} if gone else view


def last_platform_events(games) -> dict[int, History]:
    """Each game's last platform event (what ``_explained`` reads), by game id, in one query:
    a list of many finished games costs one query, not one each."""
    last: dict[int, History] = {}
    for row in History.objects.filter(game__in=[g.pk for g in games], type__in=PLATFORM_EVENTS).order_by("seq"):
        last[row.game_id] = row
    return last


def _explained(game, result, names, platform=None, rows=None):
    """The result, its summary saying why when a forfeit the platform applied (a clock's, a round's
    time) ended the game: the engine only knows that the player resigned. ``platform``: the
    games' last platform events, read together (``last_platform_events``); ``rows``: the
    stream's last events (``_ending_forfeit``)."""
    if not result:
        return result
    e = _ending_forfeit(game, platform, rows)
    if e is None:
        return result
    winners = [names[w] for w in result.get("winners") or [] if 0 <= w < len(names)]
    won = f" {' and '.join(winners)} win{'s' if len(winners) == 1 else ''}." if winners else ""
    return {**result, "summary": describe_platform(e, names) + won}


def _ending_forfeit(game, platform=None, rows=None) -> dict | None:
    """The game's last platform event when it is a forfeit and no command came after the
    resignation stored with it, else None.

    ``rows``: the events that end the stream, from a command's first (a move's, its Outcome's),
    when the caller holds them. They settle it without a query unless the last platform event
    is not among them and they hold one command only: then only the event just before them
    may be that forfeit, and it alone is read."""
    if rows and rows[0].command is not None and rows[-1].seq == game.version == rows[0].seq + len(rows) - 1:
        row = next((r for r in reversed(rows) if r.type in PLATFORM_EVENTS), None)
        if row is not None:
            seq, e = row.seq, {"type": row.type, "data": row.data}
        elif any(r.command is not None for r in rows[1:]):
            return None  # a command after rows[0]: the game went on after any platform event before them
        else:  # only the event just before rows[0] (a command) may be the last one with nothing after it
            found = _platform_event(game, seq=rows[0].seq - 1)
            if found is None:
                return None
            seq, e = found
        went_on = any(r.command is not None and r.seq > seq + 1 for r in rows)
        return e if _forfeit(e) and not went_on else None
    if platform is None:
        found = _platform_event(game)
    else:
        row = platform.get(game.pk)
        found = None if row is None else (row.seq, {"type": row.type, "data": row.data})
    if found is None:
        return None
    seq, e = found
    if not _forfeit(e) or events_of(game).filter(seq__gt=seq + 1, command__isnull=False).exists():
        return None  # no forfeit, or the game went on after it
    return e


def _platform_event(game, seq=None) -> tuple[int, dict] | None:
    """The game's last platform event (the one at ``seq``, when given) as its seq and the
    event, or None."""
    rows = events_of(game).filter(type__in=PLATFORM_EVENTS)
    if seq is not None:
        rows = rows.filter(seq=seq)
    row = rows.order_by("-seq").values_list("seq", "type", "data").first()
    return None if row is None else (row[0], {"type": row[1], "data": row[2]})


def redacted_events(game, seat, *, after=0, upto=None, rows=None) -> list[dict]:
    """The log as ``seat`` (None: a spectator) may see it (of ``rows`` when given)."""
    rules = get(game.kind).rules
    out = []
    for row in stream(game, after, upto) if rows is None else rows:
        e = upcast(rules, row.type, row.data, row.schema_version)  # row.as_rules_event(rules), without its imports
        seen = e if e["type"] in PLATFORM_EVENTS else rules.redact(e, seat)  # platform events are public facts
        if seen is not None:
            out.append({"seq": row.seq, "type": seen["type"], "data": seen["data"], "seat": row.seat, "at": row.at})
    return out


def log_lines(game, seat, *, after=0, upto=None, names=None, rows=None) -> list[dict]:
    """The redacted log in words, newest last (of ``rows`` when given: ``recent_rows``)."""
    rules = get(game.kind).rules
    names = names or seat_names(game)
    lines, played_for, forfeit = [], None, False
    for e in redacted_events(game, seat, after=after, upto=upto, rows=rows):
        if e["type"] in PLATFORM_EVENTS:
            text = describe_platform(e, names)
        else:
            text = named(rules.describe({"type": e["type"], "data": e["data"]}, names), names)
        if text and played_for is not None and e["seq"] == played_for["seq"] + 1:
            if forfeit and e["type"] in ("resign", "resigned") and set(e["data"]) <= {"seat"}:
                # "charlie forfeited: the round's time ran out." says it: no "charlie resigned." after it
                played_for["seq"] = e["seq"]
            else:
                # One line: "theo's time ran out: a bot played for them — theo played Viper Thrust."
                played_for.update(text=f"{played_for['text'].rstrip('.')} — {text}", seq=e["seq"])
            played_for = None
            continue
        played_for = None
        if text:
            lines.append({"seq": e["seq"], "text": text, "at": e["at"], "seat": e["seat"]})
            if _forfeit(e) or (e["type"] == "timed_out" and not e["data"].get("window")
                               and e["data"].get("policy") in ("bot", "default")):
                played_for, forfeit = lines[-1], _forfeit(e)
    return lines


def recent_rows(games, back: int) -> dict[int, list[Event | History]]:
    """The last ``back`` events of each game, by game id, in one query (a list of 30 games
    costs what a list of 5 does)."""
    rows: dict[int, list[Event | History]] = {g.pk: [] for g in games}
    for row in event_ranges([(g.pk, max(0, g.version - back), g.version) for g in games if g.version]):
        rows[row.game_id].append(row)
    return rows


def said_to(text: str, name: str, names: Sequence[str] = ()) -> str:
    """A log line (every one is in the third person) said to the player ``name`` when it begins
    with them: "alice played …" → "You played …", "alice's time ran out: a bot played for them."
    → "Your time ran out: a bot played for you."; any other line as it is. ``names``: the
    game's players, whose names are never verbs ("… is cancelled and chris scores")."""
    if text.startswith(name + "'s "):
        said = "Your " + text[len(name) + 3:]
    elif text.startswith(name + " "):
        said = "You " + _YOU_VERB.sub(lambda m: _you_verb(m.group(0)), text[len(name) + 1:], count=1)
        # the same subject's next verbs: "… becomes the Emperor and takes a card", "…: lays down …"
        said = _AND_VERB.sub(lambda m: m.group(1) + (m.group(2) if m.group(2) in names else _you_verb(m.group(2))), said)
    else:
        return text
    return _THEY.sub(lambda m: THEY_TO_YOU[m.group(0)], said)


THEY_TO_YOU = {"their": "your", "them": "you", "they": "you", "themselves": "yourself"}
_THEY = re.compile(r"\b(?:" + "|".join(THEY_TO_YOU) + r")\b")
_YOU_VERB = re.compile(r"^[a-z]+\b")
_AND_VERB = re.compile(r"( and |: )([a-z]+s)\b")
_IRREGULAR = {"is": "are", "was": "were", "has": "have", "does": "do", "goes": "go"}


def _you_verb(word: str) -> str:
    """A verb of the third person singular in the second: "plays" → "play", "passes" → "pass";
    any other word ("played", "to", "will") as it is."""
    if word in _IRREGULAR:
        return _IRREGULAR[word]
    if word.endswith(("sses", "shes", "ches", "xes")):
        return word[:-2]
    if word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


def first_viewable(game) -> int:
    """The first version with a state to view: the end of the setup command (the states inside
    it are half-dealt; the rules' views need the whole table)."""
    if game.version == 0:
        return 0
    nxt = (events_of(game).filter(seq__gt=1, command__isnull=False).order_by("seq")
           .values_list("seq", flat=True).first())
    return game.version if nxt is None else nxt - 1


def game_for(game, user, *, at: int | None = None, state: dict | None = None, platform=None, rows=None) -> dict:
    """The ``<game>`` of the API contract, as ``user`` may see it (at version ``at``).

    ``state``, when the caller already holds the current state, saves loading it again;
    ``platform`` likewise the last platform events of a list's games (``last_platform_events``),
    and ``rows`` the events a move just stored (``_ending_forfeit``).
    """
    kind = get(game.kind)
    rules = kind.rules
    seat = game.seat_of(user)
    playing = game.version > 0  # an aborted game that never started has no state to view
    historical = at is not None and at < game.version
    if playing and (state is None or historical):
        state = load_state(game, at)
    elif state is None:
        state = {}  # nothing dealt yet: the rules are never asked about it
    finished = game.status == Game.FINISHED
    names = seat_names(game)
    view = named(rules.view(state, seat), names) if playing else {}
    told = named(game.result, names)
    result = _explained(game, told, names, platform, rows) if finished else told
    if result is not told and not historical and isinstance(view.get("result"), dict):
        # the board's game-over line says what the result says: a forfeit the platform applied
        # (a clock's) is no resignation, though the rules only saw one
        view = {**view, "result": {**view["result"], "summary": result["summary"]}}
    return {
        "id": game.pk,
        "kind": game.kind,
        "options": game.options,
        "status": game.status,
        "version": game.version,
        "at": at if historical else game.version,
        "seats": [{"index": s.index, "name": name, "bot": s.bot or None, "you": s.index == seat,
                   "invited": s.invited, **({"standing": s.standing} if s.index == seat else {})}
                  for s, name in zip(game.seat_list, names)],
        "you": seat,
        "to_act": sorted(rules.to_act(state)) if historical and rules.result(state) is None else game.to_act,
        "deadline": game.deadline,
        "clock": {"per_move": game.per_move, "on_timeout": game.on_timeout, "window": game.window},
        "view": view,
        "legal_actions": named(rules.legal_actions(state, seat), names) if playing and seat is not None and not historical and game.status == Game.ACTIVE else [],
        "result": result,
        "rated": game.rated,
        "fairness": {"seed_sha256": game.seed_sha256, "seed": game.seed if finished else None},
        "called_off": called_off(game),
    }


# The buckets of a player's games list, most urgent first (``urgency``).
INVITED, MY_TURN, RUNNING, OVER = 0, 1, 2, 3
LIVE = (Game.WAITING, Game.ACTIVE)


class MyGames:
    """A player's games list (the API's ``GET /api/games/``), filtered, in its order: invitations
    to answer, games waiting for the player's move, the others running or waiting for players
    (newest first within each), then the finished and cancelled ones, newest first.

    Only the running games are sorted as a whole: they are few, and the seat_live index
    reaches them without touching the player's history. The games over, nearly every row of a
    long history, are read a page at a time, newest first down the seat_user_game index, so a
    page costs the same after ten games or ten thousand."""

    def __init__(self, user, *, status=None, my_turn=None, invited=None) -> None:
        self.user, self.my_turn, self.invited = user, my_turn, invited
        self.statuses = (status,) if status else (*LIVE, *Game.OVER)
        self._live: list[tuple[int, int]] | None = None

    def wanted(self, bucket: int) -> bool:
        return ((self.my_turn is None or (bucket == MY_TURN) == self.my_turn)
                and (self.invited is None or (bucket == INVITED) == self.invited))

    @property
    def live(self) -> list[tuple[int, int]]:
        """The (bucket, -id) key of each wanted running game, in the list's order."""
        if self._live is None:
            rows = (Seat.objects.filter(user=self.user, over=False, game__status__in=[s for s in self.statuses if s in LIVE])
                    .values_list("game_id", "index", "invited", "game__status", "game__to_act"))
            keys = ((_bucket(status, index, invited, to_act), -pk) for pk, index, invited, status, to_act in rows)
            self._live = sorted(k for k in keys if self.wanted(k[0]))
        return self._live

    @property
    def over_statuses(self) -> list[str]:
        return [s for s in self.statuses if s in Game.OVER] if self.wanted(OVER) else []

    def page(self, after: tuple[int, int] | None, limit: int) -> list[Game]:
        """Up to ``limit`` games after the one keyed ``after`` ((urgency, id) of the last one
        shown; None: from the top), with their seats."""
        if after is not None and after[0] > OVER:
            return []  # no key this list gives
        live = [] if after is not None and after[0] == OVER else self.live
        if after is not None:
            live = [k for k in live if k > (after[0], -after[1])]
        games = games_by_id(-pk for _, pk in live[:limit])
        if len(games) < limit and self.over_statuses:
            before = after[1] if after is not None and after[0] == OVER else None
            games += over_games(self.user, statuses=self.over_statuses, before=before, limit=limit - len(games))
        return games

    def count(self, cap: int) -> int | None:
        """How many games the whole list has, or None when over ``cap``: counting a long
        history would cost what the pages spare."""
        n = len(self.live)
        if self.over_statuses and n <= cap:
            n += capped_count(_over_rows(self.user, self.over_statuses), cap + 1 - n)
        return n if n <= cap else None


def _bucket(status: str, index: int, invited: bool, to_act: list) -> int:
    """``urgency`` of a running game from its row and the player's seat."""
    if status == Game.WAITING and invited:
        return INVITED
    return MY_TURN if status == Game.ACTIVE and index in to_act else RUNNING


def _over_rows(user, statuses, before: int | None = None):
    """The player's games with one of ``statuses`` (over), newest first: a walk down the
    seat_user_game index that stops at the page's end."""
    rows = Game.objects.filter(seats__user=user, status__in=statuses)
    if before is not None:
        rows = rows.filter(pk__lt=before)
    return rows.order_by("-pk")


def over_games(user, *, statuses=Game.OVER, before: int | None = None, limit: int) -> list[Game]:
    """The player's newest ``limit`` games over (finished, cancelled: ``statuses``) older than
    the game ``before``, with their seats."""
    return list(_over_rows(user, statuses, before).with_seats()[:limit])


def over_ids(user, *, before: int | None = None, limit: int) -> list[int]:
    """The ids of ``over_games`` (every game over), to be read with others (``games_by_id``)."""
    return list(_over_rows(user, Game.OVER, before).values_list("pk", flat=True)[:limit])


def capped_count(queryset, cap: int) -> int:
    """The rows of ``queryset``, counted up to ``cap`` at most (a COUNT over a LIMIT)."""
    return queryset.values("pk")[:cap].count()


class LiveRow(NamedTuple):
    """One of the player's running games as the lobby sorts it, before it is read whole."""

    pk: int
    bucket: int  # INVITED, MY_TURN or RUNNING (``urgency``)
    status: str
    deadline: datetime | None
    updated_at: datetime
    version: int


def live_rows(user) -> list[LiveRow]:
    """The player's games still running or waiting for players, as a few fields each: enough
    to sort them into the lobby's sections and read only the cards it shows."""
    rows = (Seat.objects.filter(user=user, over=False, game__status__in=LIVE)
            .values_list("game_id", "index", "invited", "game__status", "game__to_act", "game__deadline", "game__updated_at",
                         "game__version"))
    return [LiveRow(pk, _bucket(status, index, invited, to_act), status, deadline, updated, version)
            for pk, index, invited, status, to_act, deadline, updated, version in rows]


def games_by_id(ids) -> list[Game]:
    """The games ``ids`` with their seats, in the order of ``ids``."""
    ids = list(ids)
    found = {g.pk: g for g in Game.objects.filter(pk__in=ids).with_seats()} if ids else {}
    return [found[pk] for pk in ids if pk in found]


def live_games(user) -> list[Game]:
    """The player's games still running or waiting for players, latest moved first, with their
    seats (the lobby's, the digests'): few, whatever the history."""
    rows = Game.objects.filter(seats__user=user, seats__over=False, status__in=LIVE)
    return list(rows.order_by("-updated_at", "-pk").with_seats())


def waiting_games(user) -> list[Game]:
    """The player's games waiting for their move (a move, a choice, a window), latest moved
    first: only those are read whole."""
    rows = sorted((r for r in live_rows(user) if r.bucket == MY_TURN), key=lambda r: (r.updated_at, r.pk), reverse=True)
    return [g for g in games_by_id(r.pk for r in rows) if waiting_for(g, user)]


def lobby_marks(user, finished: int, *, live: list[LiveRow] | None = None, over: list[Game] | None = None) -> list[tuple]:
    """What the lobby shows of the player's games, as (id, version, status, updated_at) rows:
    every running game and the newest ``finished`` games over. Its fingerprint says when the
    page is out of date. ``live`` (``live_rows``) and ``over`` (``over_games``, the newest
    first): what the caller read already, not read again."""
    fields = ("pk", "version", "status", "updated_at")
    if live is None:
        running = list(Game.objects.filter(seats__user=user, seats__over=False, status__in=LIVE)
                       .order_by("pk").values_list(*fields))
    else:
        running = sorted((r.pk, r.version, r.status, r.updated_at) for r in live)
    if over is None:
        return [*running, *_over_rows(user, Game.OVER).values_list(*fields)[:finished]]
    return [*running, *((g.pk, g.version, g.status, g.updated_at) for g in over[:finished])]


def urgency(game, user) -> int:
    """0 an invitation to answer, 1 waiting for the user's move, 2 still running (or waiting for
    players), 3 over: the order of the user's games list."""
    if invited_to(game, user):
        return 0
    if waiting_for(game, user):
        return 1
    return 3 if game.is_over else 2


def waiting_for(game, user) -> bool:
    seat = game.seat_of(user)
    return game.status == Game.ACTIVE and seat is not None and seat in game.to_act


def invited_to(game, user) -> bool:
    """An invitation ``user`` has still to answer."""
    return game.status == Game.WAITING and any(s.invited and s.user_id == user.pk for s in game.seat_list)


def seat_choices(game, index: int) -> list:
    """What a player taking seat ``index`` (joining it, or accepting its invitation) may choose
    now, the seat's default first: a Kenta colour no other seated player holds. [] when the
    game has nothing to choose."""
    rules = get(game.kind).rules
    if not hasattr(rules, "join_choices"):
        return []
    seats = list(game.seat_list)
    return rules.join_choices(game.options, len(seats), index, [s.index for s in seats if not s.is_open])


def open_games(user):
    """Games waiting for players that ``user`` could join, newest first: down the
    game_status_id index, each game's seats looked up by game until a page is full."""
    open_seat = Seat.objects.filter(game=OuterRef("pk"), user__isnull=True, bot="")
    qs = Game.objects.filter(Exists(open_seat), status=Game.WAITING)
    if user.is_authenticated:
        qs = qs.exclude(Exists(Seat.objects.filter(game=OuterRef("pk"), user=user)))
    return qs.with_seats().order_by("-pk")


def wait_line(game, seat, *, state=None, names=None, now=None, due=True, title=None) -> str:
    """One line saying what a game waits for, as ``seat`` (None: a spectator) may know it:
    the page banner, the lobby and the email subject all use it (``due``: with the time left).

    "Kenta: mara plays Shove — your answer: Let the card resolve, or Play STOP: cancel this card
    (closes in 2 days)",
    "Your turn in Kenta (due in 3 days)", "Kenta: waiting for mara and theo".
    ``title`` names the game (default: its kind's name; an email says "Kenta #12").
    """
    return waiting(game, seat, state=state, names=names, now=now, due=due, title=title)["line"]


def waiting(game, seat, *, state=None, names=None, now=None, due=True, title=None, answers=True) -> dict:
    """``wait_line``'s line, and whether it asks this seat to answer a reaction window.
    ``answers``: name them in the line (not on the game page, whose move bar lists them: the
    longer line pushed the board under the bar on a phone)."""
    kind = get(game.kind)
    name = title or kind.name
    if game.status != Game.ACTIVE:
        # a game is aborted only before its start: "cancelled", as its page and its emails say
        text = {Game.WAITING: "waiting for players", Game.FINISHED: "game over"}.get(game.status, "cancelled")
        return {"line": f"{name}: {text}", "window": False}
    names = names or seat_names(game)
    left = time_left(game, now) if due else ""
    if seat is None or seat not in game.to_act:
        others = [names[i] for i in game.to_act if i < len(names)]
        return {"line": f"{name}: waiting for {_and(others) or 'the game'}" + (f" (due in {left})" if left else ""),
                "window": False}
    rules = kind.rules
    state = load_state(game) if state is None else state
    entry = rules.to_act(state).get(seat) or {}
    if entry.get("kind") != "window":
        return {"line": f"Your turn in {name}" + (f" (due in {left})" if left else ""), "window": False}
    cause = _window_cause(game, seat, names)
    closes = f" (closes in {left})" if left else (" (no time limit)" if due else "")
    if not answers:
        return {"line": f"{name}: {cause + ' — ' if cause else ''}choose your answer{closes}", "window": True}
    # the answers as the move list labels them: a notation ("resolve") is a code, not words
    labels = [named(a["label"], names) for a in rules.legal_actions(state, seat) if a["action"] != RESIGN]
    # ", or": a label may hold a comma of its own ("Yes, let the system finish the game for me")
    answer = ", ".join(labels[:-1]) + ", or " + labels[-1] if len(labels) > 1 else "".join(labels)
    return {"line": f"{name}: {cause + ' — ' if cause else ''}your answer: {answer}{closes}", "window": True}


WINDOW_LOOKBACK = 40  # events searched for the one that opened a window


def _window_cause(game, seat, names) -> str:
    """The log line (as this seat sees it) of the event that opened the seat's window: the
    last recent event after which the seat has been in a window ever since. Kept in the
    shared cache by game version, seat and names, which are all it depends on: a lobby shows
    it on every card of a game in a window, and finding it replays the last events."""
    said = hashlib.blake2b("\0".join(names).encode(), digest_size=8).hexdigest()
    return cache.get_or_set(f"window-cause:{game.pk}:{game.version}:{seat}:{said}",
                            lambda: _find_window_cause(game, seat, names), WINDOW_CAUSE_SECONDS) or ""


WINDOW_CAUSE_SECONDS = 24 * 3600  # a game moves on long before: its version is in the key


def _find_window_cause(game, seat, names) -> str:
    rules = get(game.kind).rules
    after = max(0, game.version - WINDOW_LOOKBACK)
    rows = list(stream(game, after))
    state = load_state(game, after)
    opened, was_in = None, False
    for row in rows:
        state = evolve(rules, state, row.as_rules_event(rules))
        now_in = (rules.to_act(state).get(seat) or {}).get("kind") == "window"
        if now_in and not was_in:
            opened = row.seq
        was_in = now_in
    if opened is None:
        return ""
    lines = log_lines(game, seat, names=names, rows=[r for r in rows if r.seq <= opened])
    if not lines:
        return ""
    text = lines[-1]["text"].rstrip(".")
    return text.split(": ")[0] if len(text) > 60 else text


def time_left(game, now=None) -> str:
    """"3 days", "2 hours", "moments" until the game's deadline; "" with none (no clock, or paused)."""
    if game.deadline is None:
        return ""
    now = now or timezone.now()
    left = game.deadline - now
    if left <= timedelta(0):
        return "moments"
    # timeuntil truncates (a fresh 2-day clock would say "1 day"): round to the nearest unit.
    half = next(h for limit, h in ROUNDING if left >= limit)
    return timeuntil(game.deadline + half, now, depth=1).replace("\xa0", " ")


ROUNDING = [(timedelta(days=1), timedelta(hours=12)), (timedelta(hours=1), timedelta(minutes=30)),
            (timedelta(minutes=1), timedelta(seconds=30)), (timedelta(0), timedelta(0))]


def _and(items: list[str]) -> str:
    """"mara", "mara and theo", "mara, theo and ines"."""
    if len(items) < 2:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]
