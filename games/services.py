"""Writes to games: create, join, act, resign, time out. Views and tasks call these only."""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import timedelta
from functools import cache
from typing import Any

import jsonschema
from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import IntegrityError, OperationalError, transaction
from django.db.models import Q
from django.utils import timezone

from games import events as happened
from games.engine import RESIGN, IllegalAction, clone, decide_and_evolve, event, find_legal, replay
from games.models import Event, Game, History, Seat
from games.registry import get, kinds
from games.rng import Rng, new_seed, seed_digest
from games.store import (
    Appender,
    StaleRow,
    VersionConflict,
    compact_over,
    events_of,
    game_with_seats,
    load_state,
    save_all,
)
from kinplay.infra.errors import is_deadlock

log = logging.getLogger("kinplay.games")

BOTS = ("random", "heuristic")
BOT_STEPS_PER_TASK = 200  # the worker plays owed bot moves in transactions of at most this many steps
MAX_IDEMPOTENCY_KEY = 128
MAX_NOTATION = 200  # a longer text is no move of any game (and is not echoed back)
# Who may resign for a player, and why (the "forfeited" platform event's reason): a tournament
# round's time ran out with the player holding the turn (kinplay.tournaments.services._adjudicate).
FORFEIT_REASONS = {"adjudication": "round_time"}


class BadRequest(Exception):
    """Input the server refuses before any rule is consulted (unknown kind, a bound broken...):
    what the API's schema already says (400)."""


class Unprocessable(BadRequest):
    """Well-formed input whose parts do not fit together or name what does not exist: a seat
    count the kind does not take, an unknown player, options the kind refuses (422; a schema
    cannot say it)."""


class NotYourSeat(Exception):
    pass


class IdempotencyKeyReused(Exception):
    """The same Idempotency-Key with a different request (422): never a silent substitute."""


@dataclass
class Outcome:
    game: Game  # the read model after the command, seats prefetched
    events: Sequence[Event | History]
    state: dict  # the state after the command (or now, for a repeat)
    seat: int | None = None  # who acted (None: the system)
    replayed: bool = False  # an idempotent repeat: nothing new was stored


# ---------------------------------------------------------------- creating and joining


def options_with_defaults(kind, options) -> dict:
    schema = kind.rules.OPTIONS_SCHEMA
    if not isinstance(options, dict):
        raise BadRequest("options must be an object.")
    filled = {k: p["default"] for k, p in schema.get("properties", {}).items() if "default" in p}
    filled.update(options)
    try:
        _options_validator(kind.slug).validate(filled)
    except jsonschema.ValidationError as exc:
        where = ".".join(str(p) for p in exc.absolute_path) or "options"
        allowed = ", ".join(schema.get("properties", {})) or "none"
        raise Unprocessable(f"Bad option {where}: {exc.message}. Options of {kind.name}: {allowed}.") from None
    return filled


@cache
def _options_validator(slug):
    """Checking a schema costs more than using it: once per kind."""
    schema = get(slug).rules.OPTIONS_SCHEMA
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    return cls(schema)


def create_game(*, creator, kind: str, options=None, seats, per_move="default", on_timeout="bot",
                invite_only=False, rated=True, window=None, accepted=False, looking=False) -> Game:
    """``accepted``: the platform seats players who already consented (a tournament's
    entrants): nobody is invited, the game starts at once. ``looking``: the creator is looking at
    the game (they created it in the browser): a game that starts at once sends them no "your
    turn" email (a game that waits for others does, when it starts). Services only, never a request."""
    return create_games([dict(creator=creator, kind=kind, options=options, seats=seats, per_move=per_move,
                              on_timeout=on_timeout, invite_only=invite_only, rated=rated, window=window,
                              accepted=accepted, looking=looking)])[0]


def create_games(specs: list[dict]) -> list[Game]:
    """Games in a few statements whatever their number (a tournament's round, a league's
    divisions): each spec takes ``create_game``'s keywords. All or none: a BadRequest in any
    spec creates nothing. Each game is dealt and its bots answer as for one game; the apps that
    follow games set its clocks, invitations and emails (games.events.games_dealing and
    games_created), and the rows are written together."""
    named = _users_named(specs)
    plans = [_plan(named, **{k: v for k, v in spec.items() if k != "looking"}) for spec in specs]
    with transaction.atomic():
        games = []
        for fields, planned in plans:
            seed = new_seed()
            game = Game(seed=seed, seed_sha256=seed_digest(seed), **fields)
            game.hold_seats([Seat(game=game, index=i, **p) for i, p in enumerate(planned)])
            games.append(game)
        # Dealt before any row is written: each game's row goes in once, as dealt.
        dealt = [(game, *_deal(game)) for game in games if _ready(game)]
        opened = []
        for game, kind, state, appender, _, _ in dealt:
            opened.append((game, state, game.project(kind.rules, state)))
            game.version = appender.version
        # the receivers set what the rows carry (the deadline) and return the rows that go with them
        answers: list[tuple[Any, Any]] = happened.games_dealing.send(Game, games=games, opened=opened)
        with_games: list[Any] = [row for _, rows in answers for row in rows]
        Game.objects.bulk_create(games)
        # The rows made before their game had an id (bulk_create fills in the deadlines' and snapshots').
        for game in games:
            for seat in game.seat_list:
                seat.game_id = game.pk
        for _, _, _, appender, _, _ in dealt:
            for row in appender.rows:
                row.game_id = appender.game.pk
        Seat.objects.bulk_create([seat for game in games for seat in game.seat_list])
        save_all([appender for _, _, _, appender, _, _ in dealt])
        for model in dict.fromkeys(type(row) for row in with_games):
            model.objects.bulk_create([row for row in with_games if type(row) is model])
        # A creator looking at the game they just made gets no email for its opening turn.
        present = {game.pk: game.seat_of(spec["creator"]) for game, spec in zip(games, specs) if spec.get("looking")}
        happened.games_created.send(Game, games=games, present=present, opened=[
            (game, entries, acted, owe) for (game, _, _, _, acted, owe), (_, _, entries) in zip(dealt, opened)])
        for game, *_ in dealt:
            if game.status == Game.FINISHED:
                Seat.mark_over(game)
                happened.game_finished.send(Game, game=game)
    return games


def _users_named(specs) -> dict:
    """The users the specs seat by name, by name as written: one query for them all, and one more
    for names written in another case ("Bob" is bob, as on the player pages; names cannot differ
    by case alone, kinplay.accounts.usernames). A creator seated by their own name is the creator
    as given (no query for the commonest game: mine against a bot)."""
    names = {seat["user"] for spec in specs if isinstance(spec.get("seats"), list) for seat in spec["seats"]
             if isinstance(seat, dict) and isinstance(seat.get("user"), str)}
    creators = [spec.get("creator") for spec in specs]
    found = {c.username: c for c in creators if getattr(c, "pk", None) is not None and c.username in names}
    users = get_user_model().objects
    if names - set(found):
        found.update({u.username: u for u in users.filter(username__in=names - set(found))})
    others = names - set(found)
    if others:
        either = Q()
        for name in others:
            either |= Q(username__iexact=name)
        candidates = list(users.filter(either))
        for name in others:
            same = [u for u in candidates if u.username.lower() == name.lower()]
            if len(same) == 1:
                found[name] = same[0]
    return found


def _plan(named: dict, *, creator, kind: str, options=None, seats, per_move="default", on_timeout="bot",
          invite_only=False, rated=True, window=None, accepted=False) -> tuple[dict, list[dict]]:
    """One game's checked fields and seats; BadRequest with the reason for a player."""
    if kind not in kinds():
        raise BadRequest(f"Unknown kind “{kind}”. Kinds: {', '.join(kinds())}.")
    k = get(kind)
    options = options_with_defaults(k, options or {})
    if not isinstance(seats, list):
        raise BadRequest("seats must be a list.")
    n = len(seats)
    if not k.rules.MIN_PLAYERS <= n <= k.rules.MAX_PLAYERS:
        span = (f"exactly {k.rules.MIN_PLAYERS}" if k.rules.MIN_PLAYERS == k.rules.MAX_PLAYERS
                else f"{k.rules.MIN_PLAYERS} to {k.rules.MAX_PLAYERS}")
        raise Unprocessable(f"{k.name} is for {span} players, not {n}.")
    try:
        k.rules.check_players(n, options)
    except IllegalAction as exc:
        raise Unprocessable(exc.reason) from None
    if per_move == "default":
        per_move = settings.DEFAULT_PER_MOVE_SECONDS
    if per_move is not None and (not isinstance(per_move, int) or isinstance(per_move, bool)
                                 or not 1 <= per_move <= settings.MAX_PER_MOVE_SECONDS):
        raise BadRequest(f"clock.per_move must be a number of seconds from 1 to {settings.MAX_PER_MOVE_SECONDS} "
                         f"({settings.MAX_PER_MOVE_SECONDS // 86400} days) or null.")
    if on_timeout not in dict(Game.TIMEOUT_POLICIES):
        raise BadRequest("clock.on_timeout must be one of bot, skip, forfeit.")
    if window is not None and (not isinstance(window, int) or isinstance(window, bool) or window < 1):
        raise BadRequest("clock.window must be a positive number of seconds or null (as long as a move).")
    if window is not None and per_move is not None and window > per_move:
        raise Unprocessable(f"clock.window ({window} s) cannot be longer than clock.per_move ({per_move} s).")
    planned: list[dict] = []
    for i, spec in enumerate(seats):
        if not isinstance(spec, dict) or len(spec) > 1 or (spec and next(iter(spec)) not in ("user", "bot")):
            raise Unprocessable(f"seat {i + 1} must be {{\"user\": name}}, {{\"bot\": \"random\"|\"heuristic\"}} or {{}}.")
        if "user" in spec:
            user = named.get(spec["user"]) if isinstance(spec["user"], str) else None
            if user is not None and not user.is_active and not accepted:
                user = None  # nobody invites a deactivated account: its name answers as one nobody has
            if user is None:
                raise Unprocessable(f"seat {i + 1}: there is no user “{spec['user']}”.")
            if any(p.get("user") == user for p in planned):
                raise Unprocessable(f"{user.username} can sit at only one seat.")
            # Seating someone else is an invitation: they must accept before the game starts.
            planned.append({"user": user, "invited": user != creator and not accepted})
        elif "bot" in spec:
            if spec["bot"] not in BOTS:
                raise BadRequest(f"seat {i + 1}: bots are {', '.join(BOTS)}.")
            planned.append({"bot": spec["bot"]})
        else:
            planned.append({})
    fields = {"kind": kind, "options": options, "per_move": per_move, "on_timeout": on_timeout, "window": window,
              "created_by": creator, "invite_only": bool(invite_only), "rated": bool(rated)}
    return fields, planned


def _ready(game) -> bool:
    """Every seat taken and every invitation accepted."""
    return not any(s.is_open or s.invited for s in game.seat_list)


def join_game(game_id: int, user, choice=None, *, looking=False) -> Game:
    """``looking``: joined on the game's page (create_game's ``looking``): a game this seat
    starts on their turn sends them no "your turn" email."""
    with transaction.atomic():
        game = Game.objects.select_for_update().get(pk=game_id)
        if game.status != Game.WAITING:
            raise IllegalAction("This game is not waiting for players.")
        seats = list(game.seat_list)
        if any(s.user_id == user.pk for s in seats):
            raise IllegalAction("You already have a seat at this game.")
        open_seats = [s for s in seats if s.is_open]
        if not open_seats:
            raise IllegalAction("No seat is open: this game waits for the players invited to it.")
        _choose(game, seats, open_seats[0].index, choice)
        open_seats[0].user = user
        open_seats[0].save(update_fields=["user"])
        game.hold_seats(seats)
        if _ready(game):
            _start(game, present=open_seats[0].index if looking else None)
    return game


def _choose(game, seats, index, choice) -> None:
    """What the rules let a player taking seat ``index`` choose (a Kenta colour), joining an open
    seat or accepting an invitation alike: any choice no other seated player holds
    (selectors.seat_choices lists them). None keeps the seat's default."""
    if choice is None:
        return
    rules = get(game.kind).rules
    if not hasattr(rules, "choose_at_join"):
        raise IllegalAction("There is nothing to choose when taking a seat at this game.")
    taken = [s.index for s in seats if not s.is_open]
    game.options = rules.choose_at_join(game.options, len(seats), index, choice, taken)
    game.save(update_fields=["options"])


def _start(game: Game, present=None):
    """Deal and let the bots answer. Every human who must act gets a "your turn" email, the
    creator too: it is how a player by email makes the first move; but not the seat ``present``,
    whose player started it on the game's page and is looking at it."""
    kind, state, appender, bots_acted, bots_owe = _deal(game)
    _after(game, kind, state, appender, acted=bots_acted, present=present, bots_owe=bots_owe)


def _deal(game: Game):
    """The setup events and the bots' first answers, appended but not saved (create_games
    saves many games' in one INSERT). Returns (kind, state, appender, bots acted, bots owe)."""
    kind = get(game.kind)
    events = kind.rules.setup(len(game.seat_list), game.options, Rng(game.seed, 0))
    state = replay(kind.rules, events)
    appender = Appender(game, 0)
    appender.add(events, state, seat=None, command={"setup": True})
    game.status = Game.ACTIVE
    state, bots_acted, bots_owe = _run_bots(game, kind, state, appender)
    return kind, state, appender, bots_acted, bots_owe


# ---------------------------------------------------------------- acting


def act(game_id, seat=None, *, user=None, action=None, notation=None, expected_version=None, idempotency_key=None,
        by="player", game: Game | None = None) -> Outcome:
    """Decide one action for a seat (None: the system) and store what it causes.

    Given ``user`` instead of a seat, acts for that user's seat (NotYourSeat if they have
    none; Game.DoesNotExist for no such game). Without ``expected_version`` a lost race is
    retried against the fresh state; with it, the loser gets VersionConflict (409)
    (docs/architecture.md#the-event-store). An ``idempotency_key`` belongs to the acting seat: a repeat of the same
    request returns the first one's outcome, another request under that key is refused.
    ``game``: the game with its seats as the caller has just read it (the API reads it with the
    token), for the first try instead of reading it again; a later try reads it anew.
    """
    if isinstance(notation, str) and len(notation) > MAX_NOTATION:
        raise BadRequest(f"A move's notation is at most {MAX_NOTATION} characters.")
    if idempotency_key is not None and len(idempotency_key) > MAX_IDEMPOTENCY_KEY:
        raise BadRequest(f"An Idempotency-Key is at most {MAX_IDEMPOTENCY_KEY} characters.")
    nested = transaction.get_connection().in_atomic_block
    for attempt in range(5):
        try:
            # Read before the transaction: the write's compare-and-set checks the row is still as
            # read, and the write may then be the transaction's first and only statement
            # (games.store.Appender.commit): a usual move is one round trip.
            if game is None or attempt > 0:
                game = game_with_seats(game_id)
            with transaction.atomic():
                return _act_on(game, seat, user, action, notation, expected_version, idempotency_key, by)
        except OperationalError as exc:
            # PostgreSQL broke a deadlock with a deadline sweep applying a clock of this game
            # (the sweep locks the game row, then appends; a move whose events go in before it
            # updates the row, more than store.INSERT_ROWS of them, does it the other way round): the
            # sweep went through, so this is a lost race. Inside another transaction
            # (the sweep itself) the locks are still held: no retry there.
            if not is_deadlock(exc) or nested or attempt == 4:
                raise
            if expected_version is not None:
                raise VersionConflict(Game.objects.get(pk=game_id).version) from None
        except IntegrityError:
            if _twin_landed(game_id, idempotency_key):
                continue  # the next pass returns its response
            if expected_version is not None or attempt == 4:
                raise VersionConflict(Game.objects.get(pk=game_id).version) from None
        except StaleRow:
            if attempt == 4:
                raise
        except VersionConflict:
            if _twin_landed(game_id, idempotency_key):
                continue
            if expected_version is not None or attempt == 4:
                raise
    raise VersionConflict(Game.objects.get(pk=game_id).version)


def _twin_landed(game_id, idempotency_key) -> bool:
    """Whether a twin request under the same Idempotency-Key was stored first: this one then lost
    on the unique key, or, its events going in only with the row's write, on the compare-and-set."""
    return bool(idempotency_key) and History.objects.filter(game_id=game_id, idempotency_key=idempotency_key).exists()


def _act_on(game, seat, user, action, notation, expected_version, idempotency_key, by) -> Outcome:
    if user is not None:
        seat = game.seat_of(user)
        if seat is None:
            raise NotYourSeat("You have no seat at this game.")
    fingerprint = _fingerprint(action, notation, expected_version) if idempotency_key else None
    if idempotency_key:
        first = events_of(game).filter(seat=seat, idempotency_key=idempotency_key).first()
        if first is not None:
            if (first.command or {}).get("request", fingerprint) != fingerprint:
                raise IdempotencyKeyReused("This Idempotency-Key was already used for a different request.")
            return Outcome(game, _command_rows(game, first), load_state(game), seat, replayed=True)
    if expected_version is not None and expected_version != game.version:
        raise VersionConflict(game.version, sent=expected_version)  # also once the game is over: the client's picture is stale
    if game.status != Game.ACTIVE:
        raise IllegalAction("This game is over." if game.is_over else "This game has not started yet.")
    kind = get(game.kind)
    rules = kind.rules
    state = load_state(game)
    had_timers = bool(rules.timers(state))
    if notation is not None:
        action = find_legal(rules, state, seat, notation=notation)
    if not isinstance(action, dict) or not isinstance(action.get("type"), str):
        raise IllegalAction("An action must be an object with a “type” text.")
    if action.get("timeout") and not by.startswith("timeout"):  # the clock's mark (docs/architecture.md#the-rules-contract)
        raise IllegalAction("Only the clock plays that, when your time runs out.")
    if seat is not None and action != RESIGN and seat not in rules.to_act(state):
        raise IllegalAction("It is not your turn.")
    version = game.version
    # A timeout, or a forfeit by adjudication, is a fact of its own in the stream, stored before
    # what it caused: the log says why the player left, not only that they resigned.
    before = ([_timed_out(rules, state, seat, by)] if by.startswith("timeout-")
              else [event("forfeited", seat=seat, reason=FORFEIT_REASONS[by])] if by in FORFEIT_REASONS and action == RESIGN
              else [])
    try:
        events, state = decide_and_evolve(rules, state, seat, action, Rng(game.seed, version + len(before)))
    except IllegalAction as exc:
        why = None if seat is None else _unknown_fields(rules, load_state(game), seat, action)  # the state before decide
        if why is None:
            raise
        raise IllegalAction(why) from exc
    except Exception:  # a malformed action the rules did not foresee: refuse it, keep the trace
        log.exception("%s refused %r with an error", game.kind, action)
        raise IllegalAction("That move could not be understood.") from None
    appender = Appender(game, version)
    if before:
        appender.add(before, state, seat=seat, command={"platform": before[0]["type"]})
    command = {"seat": seat, "action": action, "by": by}
    if fingerprint:
        command["request"] = fingerprint
    appender.add(events, state, seat=seat, command=command, idempotency_key=idempotency_key)
    state, bots_acted, bots_owe = _run_bots(game, kind, state, appender)
    # a player answering by email is in their mailbox, not on the page: the turn coming straight
    # back to them needs a new email to reply to (the old one lists moves that are gone)
    present = seat if by in ("player", "resign") else None
    _after(game, kind, state, appender, acted={seat} | bots_acted, present=present, had_timers=had_timers,
           bots_owe=bots_owe)
    return Outcome(game, appender.rows, state, seat)


def _unknown_fields(rules, state, seat, action) -> str | None:
    """Why a refused action object was refused, when it carries fields that no legal move of
    its type has (a bot's own annotation, a misspelt name): the game's reason would blame the
    move itself. None when the fields are right, or the player has no move of that type now
    (then the game's reason says why)."""
    same = [item["action"] for item in rules.legal_actions(state, seat) if item["action"].get("type") == action.get("type")]
    if not same:
        return None
    known = {field for legal in same for field in legal}
    extra = sorted(field for field in action if field not in known)
    if not extra:
        return None
    named = ", ".join(f"“{field}”" for field in extra)
    fields = ", ".join(f"“{field}”" for field in sorted(known))
    return (f"Moves of type “{action['type']}” have no field {named}: their fields are {fields} "
            "(send an action as legal_actions gives it).")


def _fingerprint(action, notation, expected_version) -> str:
    """What one request asked for, to tell a repeat from another request under the same key."""
    body = {"action": action, "notation": " ".join(notation.split()).lower() if isinstance(notation, str) else notation,
            "expected_version": expected_version}
    return hashlib.sha256(json.dumps(body, sort_keys=True, default=str).encode()).hexdigest()


def _timed_out(rules, state, seat, by) -> dict:
    """The platform event of a timeout: whose time ran out, the policy applied and, for a
    reaction window, the default answer given (the same for every seat, so public)."""
    entry = rules.to_act(state).get(seat) or {}
    window = entry.get("kind") == "window"
    answer = None
    if window:
        answer = next((i["notation"] for i in rules.legal_actions(state, seat) if i["action"] == entry.get("default")), None)
    return event("timed_out", seat=seat, policy=by.removeprefix("timeout-"), window=window, answer=answer)


def _run_bots(game, kind, state, appender, steps=None):
    """Bots answer at once, inside the same transaction as the move that woke them, and so
    do the standing answers of players to reaction windows (by="standing"), for at most
    ``steps`` moves (settings.INLINE_BOT_STEPS): a request's work is bounded, and what is
    still owed (the third value) is left to the worker (play_bots)."""
    rules, seats, acted = kind.rules, {s.index: s for s in game.seat_list}, set()
    for _ in range(settings.INLINE_BOT_STEPS if steps is None else steps):
        seat = _bot_to_act(rules, state, seats)
        if seat is None:
            return state, acted, False
        version = appender.version
        if seats[seat].bot:
            action, by = kind.bot(seats[seat].bot)(clone(state), seat, Rng(game.seed, f"bot:{version}")), "bot"
        else:
            action, by = rules.to_act(state)[seat]["default"], "standing"
        events, state = decide_and_evolve(rules, state, seat, action, Rng(game.seed, version))
        appender.add(events, state, seat=seat, command={"seat": seat, "action": action, "by": by})
        acted.add(seat)
    return state, acted, _bot_to_act(rules, state, seats) is not None


def _bot_to_act(rules, state, seats):
    """The first seat a bot, or a player's standing answer to a window, acts for now."""
    if rules.result(state) is not None:
        return None
    entries = rules.to_act(state)
    return next((s for s in sorted(entries) if seats[s].bot or seats[s].stands_for(rules, state, entries[s])), None)


def compact_streams(now=None) -> int:
    """Compact the streams of the games over for COMPACT_AFTER_HOURS (games.store.compact), a
    batch a transaction; safe to run twice at once (each game's row is locked while it moves)."""
    before = (now or timezone.now()) - timedelta(hours=settings.COMPACT_AFTER_HOURS)
    total = 0
    while done := compact_over(before):
        total += done
    return total


def play_bots(game_id) -> str:
    """Bot moves a request left owed (games.tasks.play_bots, or the deadline sweep after a lost
    task): one transaction of at most BOT_STEPS_PER_TASK steps through the optimistic path,
    which hands the rest on the same way. Safe to run twice: the second finds nothing owed, or
    loses the compare-and-set."""
    for _ in range(4):
        try:
            return _play_bots_once(game_id)
        except StaleRow:
            continue  # the row was written outside a move meanwhile (a standing answer, a held clock): play on it
    return _play_bots_once(game_id)


def _play_bots_once(game_id) -> str:
    try:
        with transaction.atomic():
            game = game_with_seats(game_id)
            if game.status != Game.ACTIVE:
                return "game-over"
            kind = get(game.kind)
            state = load_state(game)
            had_timers = bool(kind.rules.timers(state))
            appender = Appender(game, game.version)
            state, acted, owe = _run_bots(game, kind, state, appender, steps=BOT_STEPS_PER_TASK)
            if not appender.rows:
                return "nothing-owed"
            _after(game, kind, state, appender, acted=acted, had_timers=had_timers, bots_owe=owe)
    except StaleRow:
        raise
    except (IntegrityError, VersionConflict):
        return "moved-first"
    return "more-owed" if owe else "played"


def _command_rows(game, first: Event | History) -> list[Event | History]:
    """The events one request stored: its command and the bot answers that followed it."""
    rows = []
    for row in events_of(game).filter(seq__gte=first.seq).order_by("seq"):
        if row.seq > first.seq and row.command is not None and row.command.get("by") not in ("bot", "standing"):
            break
        rows.append(row)
    return rows


def _after(game, kind, state, appender, *, acted, present=None, had_timers=False, bots_owe=False):
    """Store the appender's events and update the read model, in one transaction with what the
    apps that follow games do about it (games.events.game_changing: deadlines, emails, the
    worker's bot moves; game_finished)."""
    before, was_finished = set(game.to_act), game.status == Game.FINISHED
    entries = game.project(kind.rules, state)
    game.version = appender.version
    finished_now = game.status == Game.FINISHED and not was_finished
    game.updated_at = timezone.now()
    # the receivers' writes (a deadline on the row, mail, the bots' task) come before the row's
    happened.game_changing.send(Game, game=game, state=state, entries=entries, before=before, acted=acted,
                                present=present, had_timers=had_timers, bots_owe=bots_owe)

    def game_finished():
        Seat.mark_over(game)
        happened.game_finished.send(Game, game=game)

    # the store orders the last writes: the hooks follow the row's write (games.store.Appender.commit)
    appender.commit(("version", "to_act", "status", "result", "deadline", "updated_at"),
                    then=game_finished if finished_now else None)


def resign(game_id, seat=None, *, user=None, idempotency_key=None, game: Game | None = None) -> Outcome:
    return act(game_id, seat, user=user, action=RESIGN, by="resign", idempotency_key=idempotency_key, game=game)


def timeout(game_id, seat) -> str:
    """A seat's time ran out: apply the game's policy through the normal optimistic path."""
    game = Game.objects.get(pk=game_id)
    if game.status != Game.ACTIVE:
        return "game-over"
    if any(s.index == seat and s.bot for s in game.seat_list):
        return play_bots(game_id)  # a bot's clock ran out while the worker owed its move: play it, never forfeit it
    kind = get(game.kind)
    state = load_state(game)
    entry = kind.rules.to_act(state).get(seat)
    if entry is None:
        return "not-to-act"
    if entry.get("kind") == "window" or (game.on_timeout == "skip" and entry.get("default") is not None):
        action, how = entry["default"], "timeout-default"
    elif game.on_timeout == "forfeit":
        action, how = RESIGN, "timeout-forfeit"
    else:
        action, how = kind.bots.heuristic_bot(clone(state), seat, Rng(game.seed, f"timeout:{game.version}")), "timeout-bot"
    # A VersionConflict propagates: the sweep holds this deadline and the game, so only a
    # writer it raced lost; it rolls back and tries again shortly (clocks.services.sweep).
    act(game_id, seat, action=action, expected_version=game.version, by=how)
    return how


def set_standing_answer(game_id, user, value) -> Outcome | None:
    """Set ``user``'s standing answer to reaction windows in one game (Seat.STANDING).

    When the new answer covers a window open for them now, it answers it at once (the
    Outcome of that answer; None when nothing was answered). Game.DoesNotExist for no such
    game, NotYourSeat when the user does not play in it.
    """
    if value not in dict(Seat.STANDING):
        raise BadRequest(f"The standing answer must be one of {', '.join(dict(Seat.STANDING))}.")
    game = game_with_seats(game_id)
    seat = game.seat_of(user)
    if seat is None:
        raise NotYourSeat("You have no seat at this game.")
    with transaction.atomic():  # a move that read the old answer sees the stamp: its write fails and reads again
        Seat.objects.filter(game_id=game_id, index=seat).update(standing=value)
        Game.objects.filter(pk=game_id).update()  # GameQuerySet.update stamps updated_at
    for _ in range(5):
        game = game_with_seats(game_id)
        if game.status != Game.ACTIVE:
            return None
        rules = get(game.kind).rules
        state = load_state(game)
        entry = rules.to_act(state).get(seat)
        if entry is None or not game.seat_list[seat].stands_for(rules, state, entry):
            return None
        try:
            return act(game_id, seat, action=entry["default"], expected_version=game.version, by="standing")
        except VersionConflict:
            continue  # someone moved meanwhile: look again at the window as it is now
    return None


def fire_timer(game_id, action) -> str:
    try:
        act(game_id, None, action=action, by="timer")
    except IllegalAction as exc:
        return f"refused: {exc.reason}"[:32]
    return "applied"


def abort(game_id) -> None:
    Game.objects.filter(pk=game_id, status__in=[Game.WAITING]).update(status=Game.ABORTED)


# ---------------------------------------------------------------- invitations


def _invited_seat(game, user):
    """The user's seat with an invitation still open, or the reason there is none."""
    seat = next((s for s in game.seat_list if user is not None and s.user_id == user.pk), None)
    if seat is None:
        raise NotYourSeat("You have no invitation to this game.")
    if game.status == Game.ABORTED:
        raise IllegalAction("This game was cancelled.")
    if not seat.invited:
        raise IllegalAction("You have already accepted this invitation." if seat.user_id != game.created_by_id
                            else "You created this game: your seat needs no invitation.")
    return seat


def accept_invitation(game_id: int, user, choice=None, *, looking=False) -> Game:
    """The invited player says yes, with a choice as a joining player makes one (a Kenta colour;
    None keeps the seat's); the game starts once every seat is taken and accepted. ``looking``:
    said on the game's page (``join_game``)."""
    with transaction.atomic():
        game = _locked_with_seats(game_id)
        seats = list(game.seat_list)
        seat = _invited_seat(game, user)
        _choose(game, seats, seat.index, choice)
        seat.invited = False
        seat.save(update_fields=["invited"])
        happened.invitation_answered.send(Game, game=game, seat=seat, outcome="accepted")
        if _ready(game):
            _start(game, present=seat.index if looking else None)
    return game


def decline_invitation(game_id: int, user) -> Game:
    """The invited player says no: the seat opens, or the game is cancelled (``_withdraw``)."""
    with transaction.atomic():
        game = _locked_with_seats(game_id)
        seat = _invited_seat(game, user)
        happened.invitation_answered.send(Game, game=game, seat=seat, outcome="declined")
        _withdraw(game, seat, expired=False)
    return game


def leave_game(game_id: int, user) -> Game:
    """A player who joined or accepted takes it back before the start: as a decline, the seat
    opens, or the game is cancelled (invited players only, or nobody left); the creator is told.
    The creator cancels instead (``cancel_game``); an open invitation is declined."""
    with transaction.atomic():
        game = _locked_with_seats(game_id)
        seat = next((s for s in game.seat_list if user is not None and s.user_id == user.pk), None)
        if seat is None:
            raise NotYourSeat("You have no seat at this game.")
        if game.status != Game.WAITING:
            raise IllegalAction("This game was cancelled." if game.status == Game.ABORTED
                                else "This game has started: you may resign instead.")
        if seat.invited:
            raise IllegalAction("You have not accepted this invitation: decline it instead.")
        if game.created_by_id == user.pk:
            raise IllegalAction("You created this game: cancel it instead.")
        _withdraw(game, seat, expired=False, left=True)
    return game


def cancel_game(game_id: int, user) -> Game:
    """The creator calls off a game that has not started (an open seat nobody takes, an
    invitation unanswered): everyone else at the table, invited or seated, is told
    (games.events.game_called_off)."""
    with transaction.atomic():
        game = _locked_with_seats(game_id)
        if user is None or game.created_by_id != user.pk:
            raise NotYourSeat("Only the player who created this game can cancel it.")
        if game.status == Game.ABORTED:
            raise IllegalAction("This game was cancelled.")
        if game.status != Game.WAITING:
            raise IllegalAction("This game has started: it can no longer be cancelled (you may resign).")
        _call_off(game, "cancelled", user)
    return game


def call_off_unplayed(game_id: int, why: str, by) -> Game:
    """A started game in which no seat has acted yet is called off as a game that never started
    (``why``, one of Game.CALLED_OFF; a tournament's organiser re-pairing its round): IllegalAction
    once anyone has moved, or when it is over. The caller holds the transaction that replaces it."""
    game = _locked_with_seats(game_id)
    if game.status != Game.ACTIVE:
        raise IllegalAction("This game is over: its players can no longer change.")
    if events_of(game).filter(seat__isnull=False).exists():
        raise IllegalAction("A move was made in this game: its players can no longer change.")
    _call_off(game, why, by)
    return game


def expire_invitation(game_id: int, seat_index: int) -> str:
    """Seven days without an answer count as a decline (the sweep calls this)."""
    with transaction.atomic():
        game = _locked_with_seats(game_id)
        seat = next((s for s in game.seat_list if s.index == seat_index), None)
        if game.status != Game.WAITING or seat is None or not seat.invited:
            return "answered"
        return _withdraw(game, seat, expired=True)


def _locked_with_seats(game_id: int) -> Game:
    """A game that has not started, its row locked for the answer to an invitation, a leave or a
    cancel, with its seats and their users as they are now."""
    game = Game.objects.select_for_update().get(pk=game_id)
    game.hold_seats(list(game.seats.select_related("user")))
    return game


def _call_off(game, why: str, by) -> None:
    """A game that has not started is cancelled (``why``, one of Game.CALLED_OFF, and ``by``
    whom, kept for its page): its invitations need no answer any more (games.events.game_called_off)."""
    game.status, game.called_off, game.called_off_by = Game.ABORTED, why, by
    game.save(update_fields=["status", "called_off", "called_off_by", "updated_at"])
    Seat.mark_over(game)
    happened.game_called_off.send(Game, game=game, why=why, by=by)


def _withdraw(game, seat, *, expired, left=False) -> str:
    """An invitation said no (or lapsed): the seat opens for anyone to join, unless the creator
    asked for invitations only or nobody is left at the table; then the game is cancelled.
    The creator is told either way; on a cancel, so is everyone who had accepted."""
    who = seat.user
    seat.user, seat.invited = None, False
    seat.save(update_fields=["user", "invited"])
    cancel = game.invite_only or not any(s.user_id for s in game.seat_list)
    if cancel:
        _call_off(game, "left" if left else "expired" if expired else "declined", who)
    happened.seat_withdrawn.send(Game, game=game, who=who, expired=expired, cancelled=cancel, left=left)
    return "cancelled" if cancel else "opened"
