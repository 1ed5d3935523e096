"""Writes to tournaments: create, join, withdraw, start, cancel, and advancing by itself.

Every change appends events to the tournament's stream under a row lock and folds them into
the read model (``Tournament.state``) in the same transaction. A game-over only appends its
event (``game_finished``, run inside the move): the next step (pairing the next round,
adjudicating, a knockout match's next game) runs after commit in a Celery task, with the beat
sweep as the safety net.
"""

from __future__ import annotations

import logging
from datetime import UTC, datetime, timedelta

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import OperationalError, transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.dateparse import parse_datetime

from games import services as games
from games.engine import RESIGN, IllegalAction, clone
from games.models import Game, History
from games.registry import get, kinds
from games.rng import Rng, new_seed, seed_digest
from games.store import game_with_seats, load_state
from kinplay.celery import app
from kinplay.clocks import vacation
from kinplay.clocks.models import Deadline
from kinplay.infra.errors import is_deadlock
from kinplay.ratings.selectors import rating_of, ratings_of
from kinplay.tournaments import emails, pairing, plan, stream
from kinplay.tournaments.models import Tournament, TournamentEvent, TournamentGame
from kinplay.tournaments.selectors import load

log = logging.getLogger("kinplay.tournaments")

FORMATS = ("swiss", "round_robin", "knockout")
DEFAULT_ROUND_DAYS = 7
DEFAULT_MAX_TIMEOUTS = 2
MAX_PLAYERS_CAP = 5000
MIN_ROUND_DAYS = 1 / 24  # an hour: shorter rounds end before players can be told of them
MAX_POINTS = 1000  # a place's points: beyond, the totals no longer fit the API's JSON numbers
MAX_ADJUDICATION_STEPS = 2000  # moves the bot may play to finish an adjudicated game


class TournamentError(games.BadRequest):
    """Refused settings or a step the tournament cannot take now, with the reason: the API answers 422 for
    settings (api.organised.Organised.create), 409 for a step (Organised.action)."""


class NotOrganiser(games.NotYourSeat):
    """Only the organiser may start or cancel: a 403."""


# ---------------------------------------------------------------- the stream


def _locked(tid) -> Tournament:
    t = Tournament.objects.select_for_update().get(pk=tid)
    load(t)
    return t


def _append(t: Tournament, type_: str, data: dict):
    _event(t, type_, data).save()


def _event(t: Tournament, type_: str, data: dict) -> TournamentEvent:
    """The next event folded into ``t``, unsaved (several are written in one INSERT)."""
    t.version += 1
    t.state = stream.evolve(t.state, type_, data)
    t.state_version = t.version
    t.status = t.state["status"]
    return TournamentEvent(tournament=t, seq=t.version, type=type_, data=data)


SAVED_FIELDS = ["version", "state", "state_version", "status", "round_ends_at", "warn_at", "needs_advance", "starts_at"]


def _save(t: Tournament):
    t.save(update_fields=SAVED_FIELDS)


# ---------------------------------------------------------------- creating


def allowed_sizes(kind, options) -> list[int]:
    out = []
    for n in range(kind.rules.MIN_PLAYERS, kind.rules.MAX_PLAYERS + 1):
        try:
            kind.rules.check_players(n, options)
        except IllegalAction:
            continue
        out.append(n)
    return out


def _int(v, name, low=None, high=None, *, null=False):
    if v is None and null:
        return None
    if not isinstance(v, int) or isinstance(v, bool) or (low is not None and v < low) or (high is not None and v > high):
        bounds = f" from {low}" if low is not None else ""
        bounds += f" to {high}" if high is not None else ""
        raise TournamentError(f"{name} must be a whole number{bounds}.")
    return v


def config_of(*, kind, options, format, rounds=None, double=False, best_of=1, table_size=None, advance=None,
              points=None, clock=None, round_days=None, max_players=None, min_players=None, rated=True,
              max_timeouts=None, bye_points=None, min_rated_games=None, min_rating=None,
              invited=None, late_join=False, late_points=0) -> tuple[dict, dict]:
    """Check the organiser's settings; returns (options with defaults, config)."""
    if kind not in kinds():
        raise TournamentError(f"Unknown kind “{kind}”. Kinds: {', '.join(kinds())}.")
    k = get(kind)
    options = games.options_with_defaults(k, options or {})
    if format not in FORMATS:
        raise TournamentError(f"format must be one of {', '.join(FORMATS)}.")
    possible = allowed_sizes(k, options)
    duel_only = possible == [2]
    if table_size is None:
        if duel_only or format == "round_robin":
            table_size = {"min": 2, "max": 2}
        else:
            lo = next((n for n in possible if n >= 3), possible[0])
            table_size = {"min": lo, "max": next((n for n in possible if n >= 4), lo)}
    if not isinstance(table_size, dict) or set(table_size) - {"min", "max"}:
        raise TournamentError("table_size must be {\"min\": n, \"max\": m}.")
    lo = _int(table_size.get("min", 2), "table_size.min", 2)
    hi = _int(table_size.get("max", lo), "table_size.max", lo)
    sizes = [n for n in possible if lo <= n <= hi]
    if not sizes:
        raise TournamentError(f"{k.name} cannot be played at tables of {lo} to {hi}: it allows "
                              f"{', '.join(map(str, possible))} players.")
    if format == "round_robin" and sizes != [2]:
        raise TournamentError("Round robin is for duels: choose table_size {\"min\": 2, \"max\": 2} "
                              f"or Swiss for tables of {lo} to {hi}.")
    rounds = _int(rounds, "rounds", 1, 100, null=True)
    if rounds is not None and format != "swiss":
        raise TournamentError("rounds applies to Swiss only: round robin and knockout take as many as the field needs.")
    if not isinstance(double, bool):
        raise TournamentError("double must be true or false.")
    if double and format != "round_robin":
        raise TournamentError("double applies to round robin only.")
    if best_of not in (1, 3) or isinstance(best_of, bool):
        raise TournamentError("best_of must be 1 or 3.")
    if best_of == 3 and (format != "knockout" or sizes != [2]):
        raise TournamentError("best_of 3 is for knockout duels only.")
    if advance is None:
        advance = 1 if sizes == [2] else max(1, min(sizes) // 2)
    advance = _int(advance, "advance", 1)
    if format == "knockout" and sizes != [2] and advance >= min(sizes):
        raise TournamentError(f"advance must be smaller than the smallest table ({min(sizes)}).")
    if points is not None:
        if (not isinstance(points, list) or not points or len(points) > max(sizes)
                or not all(isinstance(x, (int, float)) and not isinstance(x, bool) and 0 <= x <= MAX_POINTS for x in points)
                or any(a < b for a, b in zip(points, points[1:]))):
            raise TournamentError(f"points must list up to {max(sizes)} numbers from 0 to {MAX_POINTS}, best place first, never rising.")
    if bye_points is not None and (not isinstance(bye_points, (int, float)) or isinstance(bye_points, bool)
                                   or not 0 <= bye_points <= MAX_POINTS):
        raise TournamentError(f"bye_points must be a number from 0 to {MAX_POINTS} (a bye the pairing gives).")
    clock = clock or {}
    if not isinstance(clock, dict):
        raise TournamentError("clock must be {\"per_move\": seconds | null, \"on_timeout\": ...}.")
    per_move = clock.get("per_move", settings.DEFAULT_PER_MOVE_SECONDS)
    per_move = _int(per_move, "clock.per_move", 1, settings.MAX_PER_MOVE_SECONDS, null=True)  # as a game's (else no round starts)
    on_timeout = clock.get("on_timeout", "forfeit")
    if on_timeout not in dict(Game.TIMEOUT_POLICIES):
        raise TournamentError("clock.on_timeout must be one of bot, skip, forfeit.")
    if round_days is None:
        round_days = DEFAULT_ROUND_DAYS
    if not isinstance(round_days, (int, float)) or isinstance(round_days, bool) or not MIN_ROUND_DAYS <= round_days <= 365:
        raise TournamentError("round_days must be a number of days from one hour (1/24 = 0.0417) to 365.")
    smallest = 2 if format != "knockout" or sizes == [2] else min(sizes) + 1
    min_players = _int(min_players if min_players is not None else max(smallest, min(sizes)), "min_players", 2, MAX_PLAYERS_CAP)
    max_players = _int(max_players, "max_players", min_players, MAX_PLAYERS_CAP, null=True)
    if rounds is not None and max_players is not None and rounds > pairing.max_rounds(max_players, sizes):
        raise TournamentError(f"rounds {rounds} cannot be paired without rematches: {max_players} players can play at "
                              f"most {pairing.max_rounds(max_players, sizes)} Swiss rounds without meeting again.")
    if not isinstance(rated, bool):
        raise TournamentError("rated must be true or false.")
    max_timeouts = _int(max_timeouts if max_timeouts is not None else DEFAULT_MAX_TIMEOUTS, "max_timeouts", 1)
    entry = _entry(min_rated_games, min_rating, invited)
    if not isinstance(late_join, bool) or (late_join and format != "swiss"):
        raise TournamentError("late_join must be true or false, and is for Swiss only (players join from the next round).")
    if not isinstance(late_points, (int, float)) or isinstance(late_points, bool) or not 0 <= late_points <= MAX_POINTS:
        raise TournamentError(f"late_points must be a number from 0 to {MAX_POINTS} (a late player's points to start with).")
    return options, {
        "rounds": rounds, "double": double, "best_of": best_of, "table_size": {"min": lo, "max": hi},
        "sizes": sizes, "kind_sizes": possible, "advance": advance, "points": points, "clock": {"per_move": per_move, "on_timeout": on_timeout},
        "round_days": round_days, "max_players": max_players, "min_players": min_players, "rated": rated,
        "max_timeouts": max_timeouts, "bye_points": bye_points, "draw": plan.DRAW, "entry": entry,
        "late_join": late_join, "late_points": late_points,
    }


def _entry(min_rated_games, min_rating, invited) -> dict | None:
    """Who may join: at least ``min_rated_games`` rated games or a rating of ``min_rating`` in
    the kind, and (``invited``: usernames) only those named. None: anyone."""
    min_rated_games = _int(min_rated_games, "min_rated_games", 0, 100000, null=True)
    if min_rating is not None and (not isinstance(min_rating, (int, float)) or isinstance(min_rating, bool)
                                   or not 0 <= min_rating <= 10000):
        raise TournamentError("min_rating must be a number from 0 to 10000.")
    if invited is not None:
        if (not isinstance(invited, list) or not all(isinstance(n, str) for n in invited)
                or len(invited) > MAX_PLAYERS_CAP):
            raise TournamentError(f"invited must be a list of up to {MAX_PLAYERS_CAP} usernames.")
        found = dict(get_user_model().objects.filter(username__in=invited).values_list("username", "pk"))
        unknown = [n for n in invited if n not in found]
        if unknown:
            raise TournamentError(f"invited: there is no player named {', '.join(unknown[:5])}.")
        invited = sorted(set(found.values()))
    if min_rated_games is None and min_rating is None and invited is None:
        return None
    return {"min_rated_games": min_rated_games, "min_rating": min_rating, "invited": invited}


def _may_enter(t, user, rating) -> None:
    """The organiser's entry conditions (config "entry"), checked as the player joins."""
    entry = t.state["config"].get("entry")
    if not entry:
        return
    kind = get(t.kind).name
    if entry["invited"] is not None and user.pk not in entry["invited"]:
        raise TournamentError("This tournament is by invitation: you are not on its list.")
    if entry["min_rated_games"] or entry["min_rating"] is not None:
        r = rating_of(user, t.kind)
        played = r.games if r.pk is not None else 0
        if entry["min_rated_games"] and played < entry["min_rated_games"]:
            raise TournamentError(f"Entry needs at least {entry['min_rated_games']} rated games of {kind}: you have {played}.")
        if entry["min_rating"] is not None and (rating is None or rating < entry["min_rating"]):
            have = "no rating yet" if rating is None else f"{rating}"
            raise TournamentError(f"Entry needs a {kind} rating of at least {entry['min_rating']:g}: you have {have}.")


def create(*, organiser, name, kind, format, options=None, starts_at=None, **settings_) -> Tournament:
    with transaction.atomic():
        t, created = _prepared(organiser=organiser, name=name, kind=kind, format=format, options=options,
                               starts_at=starts_at, **settings_)
        t.save()
        _append(t, "created", created)
        _save(t)
    return t


def future_start(value, error: type[Exception]) -> datetime:
    """``starts_at`` as given to a tournament or a league: an aware time in the future, else
    ``error`` saying what is wrong (naive times are UTC)."""
    when = value if isinstance(value, datetime) else parse_datetime(str(value))
    if when is None:
        raise error("starts_at must be a date and time (ISO 8601), e.g. 2026-12-01T18:00:00Z.")
    if timezone.is_naive(when):
        when = when.replace(tzinfo=UTC)
    if when <= timezone.now():
        raise error("starts_at must be in the future.")
    return when


def _prepared(*, organiser, name, kind, format, options=None, starts_at=None, **settings_) -> tuple[Tournament, dict]:
    """A checked tournament, unsaved, and its "created" event's data."""
    if not isinstance(name, str) or not name.strip() or len(name) > 80:
        raise TournamentError("name must be 1 to 80 characters.")
    options, config = config_of(kind=kind, options=options, format=format, **settings_)
    if starts_at is not None:
        starts_at = future_start(starts_at, TournamentError)
    seed = new_seed()
    t = Tournament(name=name.strip(), kind=kind, format=format, organiser=organiser, seed=seed,
                   seed_sha256=seed_digest(seed), starts_at=starts_at)
    return t, {
        "name": t.name, "kind": kind, "options": options, "format": format, "config": config,
        "organiser": organiser.pk, "seed_sha256": t.seed_sha256,
        "starts_at": starts_at.isoformat() if starts_at else None,
    }


def create_and_start(specs: list[dict], entrants: list[list], *, mail=True) -> list[Tournament]:
    """Tournaments created with their players and started together (a league's divisions):
    each spec takes ``create``'s keywords, each entrants list the users who join it. Their
    streams are those of create, a join per player and start; written in a few statements for
    all of them, the first round's games too (games.create_games). ``mail``: the round's
    emails (a league sends its own)."""
    made = [_prepared(**spec) for spec in specs]
    ts = [t for t, _ in made]
    ratings = {kind: _ratings([u for t, users in zip(ts, entrants) if t.kind == kind for u in users], kind)
               for kind in {t.kind for t in ts}}
    with transaction.atomic():
        Tournament.objects.bulk_create(ts)
        events = []
        for (t, created), users in zip(made, entrants):
            events.append(_event(t, "created", created))
            events += [_join_event(t, u, ratings[t.kind][u.pk]) for u in users]
            n, need = len(stream.active(t.state)), t.state["config"]["min_players"]
            if n < need:
                raise TournamentError(f"Too few players to start: {n} joined, at least {need} are needed.")
            events.append(_start_event(t, n))
        TournamentEvent.objects.bulk_create(events)
        _start_rounds(ts, mail=mail)
        Tournament.objects.bulk_create(ts, update_conflicts=True, unique_fields=["id"], update_fields=SAVED_FIELDS)
    return ts


# ---------------------------------------------------------------- joining and leaving


def _rating(user, kind):
    """The player's rating (None before their first rated game)."""
    try:
        value = rating_of(user, kind)
    except Exception:  # no rating yet
        return None
    return _rating_value(value)


def _ratings(users, kind) -> dict:
    """``_rating`` for many players, by user id: one query."""
    return {pk: _rating_value(value) for pk, value in ratings_of(users, kind).items()}


def _rating_value(value):
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return value
    if getattr(value, "pk", None) is None or not getattr(value, "games", 0):
        return None  # never rated in this kind: seeded in drawn order below the rated
    return getattr(value, "rating", None)


def join(tid, user) -> Tournament:
    with transaction.atomic():
        t = _locked(tid)
        _join_event(t, user, _rating(user, t.kind)).save()
        _save(t)
    return t


def _join_event(t, user, rating) -> TournamentEvent:
    s = t.state
    late = t.status == Tournament.RUNNING and s["config"].get("late_join")
    if late and s["total_rounds"] is not None and len(s["rounds"]) >= s["total_rounds"]:
        raise TournamentError("This tournament is in its last round: joining is closed.")
    if t.status != Tournament.OPEN and not late:
        raise TournamentError(f"This tournament is {t.status}: joining is closed.")
    me = s["players"].get(str(user.pk))
    if me and me["status"] == "active":
        raise TournamentError("You have already joined this tournament.")
    cap = s["config"]["max_players"]
    if cap is not None and len(stream.active(s)) >= cap:
        raise TournamentError(f"This tournament is full ({cap} players).")
    _may_enter(t, user, rating)
    data = {"player": user.pk, "name": user.username, "rating": rating}
    if late:  # paired from the next round, with the organiser's points to start with
        data.update(points=s["config"]["late_points"], round=len(s["rounds"]) + 1)
    return _event(t, "joined", data)


def withdraw(tid, user, *, reason="asked") -> Tournament:
    """The player leaves: not paired again; a game still running is resigned."""
    with transaction.atomic():
        t = _locked(tid)
        me = t.state["players"].get(str(user.pk))
        if t.status in (Tournament.FINISHED, Tournament.CANCELLED):
            raise TournamentError(f"This tournament is {t.status}: there is nothing to withdraw from.")
        if not me or me["status"] != "active":
            raise TournamentError("You are not playing in this tournament.")
        _append(t, "withdrawn", {"player": user.pk, "reason": reason})
        if t.status == Tournament.RUNNING:
            t.needs_advance = True  # their knockout match, or the round, may now be decided
        _save(t)
        running = _running_games(t.state, [user.pk])
        _resign(running, [user.pk])
        transaction.on_commit(lambda: _kick(tid))
    return Tournament.objects.get(pk=tid)


def _running_games(s, players) -> list[int]:
    if not s["rounds"]:
        return []
    out = []
    for table in s["rounds"][-1]["tables"]:
        for g in table["games"]:
            if g["ranks"] is None and (players is None or set(players) & set(g["players"])):
                out.append(g["game"])
    return out


def _resign(game_ids, players, by="resign"):
    users = set(players)
    for gid in game_ids:
        game = game_with_seats(gid)
        if game.status != Game.ACTIVE:
            continue
        for seat in game.seat_list:
            if seat.user_id in users and Game.objects.filter(pk=gid, status=Game.ACTIVE).exists():
                try:
                    games.act(gid, seat.index, action=RESIGN, by=by)
                except IllegalAction:
                    pass  # already out of this game


# ---------------------------------------------------------------- starting


def start(tid, user=None) -> Tournament:
    """The organiser starts it (``user``), or its ``starts_at`` came (``user`` None): below the
    minimum field a scheduled start cancels it with an email to everyone who joined."""
    with transaction.atomic():
        t = _locked(tid)
        if user is not None and user.pk != t.state["organiser"]:
            raise NotOrganiser("Only the organiser can start this tournament.")
        if t.status != Tournament.OPEN:
            raise TournamentError(f"This tournament is {t.status}: it cannot start.")
        n, need = len(stream.active(t.state)), t.state["config"]["min_players"]
        if n < need:
            if user is not None:
                raise TournamentError(f"Too few players to start: {n} joined, at least {need} are needed.")
            _cancel(t, f"Only {n} player{'s' if n != 1 else ''} joined by the start time; at least {need} were needed.")
            return t
        rounds, most = t.state["config"].get("rounds"), pairing.max_rounds(n, t.state["config"]["sizes"])
        if user is not None and t.state["format"] == "swiss" and rounds and rounds > most:
            raise TournamentError(f"{n} players cannot play {rounds} Swiss rounds without rematches: at most {most}. "
                                  "Wait for more players, or create it with fewer rounds.")
        _start_event(t, n).save()
        _start_next_round(t)
        _save(t)
    return t


def _start_event(t, n) -> TournamentEvent:
    return _event(t, "started", {"seeds": plan.seeding(t.state, t.seed), "lots": plan.lots(t.state, t.seed),
                                 "rounds": plan.total_rounds(t.state, n)})


def cancel(tid, user) -> Tournament:
    """The organiser calls it off. Games still running go on as friendly games (unrated, counted
    nowhere: a tournament that no longer exists must not move ratings); finished ones keep theirs."""
    for attempt in range(3):
        try:
            return _cancel_once(tid, user)
        except OperationalError as exc:
            # The round's adjudication locks the tournament, then its games; a cancel the games,
            # then the tournament (as a game-over does). PostgreSQL aborts one of the two: if
            # it was the cancel, the adjudication has gone through and the cancel tries again.
            if not is_deadlock(exc) or attempt == 2:
                raise
    raise AssertionError("unreachable")  # pragma: no cover


def _cancel_once(tid, user) -> Tournament:
    with transaction.atomic():
        # The running games' rows before the tournament's, in the order a game-over takes them
        # (its move writes the game row, then its hook locks the tournament): a move finishing
        # one now either lands first and counts, or waits and finds the game unrated.
        list(_running_rows(tid).select_for_update().order_by("pk").values_list("pk", flat=True))
        t = _locked(tid)
        if user.pk != t.state["organiser"]:
            raise NotOrganiser("Only the organiser can cancel this tournament.")
        if t.status not in (Tournament.OPEN, Tournament.RUNNING):
            raise TournamentError(f"This tournament is already {t.status}.")
        _cancel(t, "The organiser cancelled the tournament.")
    return t


def _running_rows(tid):
    return Game.objects.filter(tournament_link__tournament_id=tid, status__in=[Game.WAITING, Game.ACTIVE])


def _cancel(t, reason):
    friendly = sorted(_running_rows(t.pk).values_list("pk", flat=True))
    if friendly:
        Game.objects.filter(pk__in=friendly).update(rated=False)  # stamps updated_at (GameQuerySet.update)
    _append(t, "cancelled", {"reason": reason, "seed": t.seed, **({"friendly": friendly} if friendly else {})})
    t.round_ends_at, t.warn_at, t.needs_advance = None, None, False
    _save(t)
    if friendly:  # friendly from now: a player already on vacation has their clock stopped there
        vacation.became_friendly(friendly)
    emails.cancelled(t, friendly)


# ---------------------------------------------------------------- rounds


def _start_next_round(t) -> bool:
    """Pair and start the next round (games created, already accepted), or finish."""
    return _start_rounds([t])[0]


def _start_rounds(ts, *, mail=True) -> list[bool]:
    """``_start_next_round`` for several tournaments, their games created together."""
    now, paired, wanted = timezone.now(), [], []
    for t in ts:
        tables = plan.next_round(t.state, t.seed)
        # Byes only: one player is left (Swiss, knockout); in a round robin, a round whose every
        # opponent withdrew is played as byes and a later round may still hold games (advance).
        if not tables or (all(tb["bye"] for tb in tables) and t.state["format"] != "round_robin"):
            _finish(t)
            continue
        paired.append((t, tables))
        number = len(t.state["rounds"]) + 1
        wanted += [(t, tb["players"], number, i) for i, tb in enumerate(tables) if not tb["bye"]]
    gids = iter(_new_games(wanted))
    events = []
    for t, tables in paired:
        number = len(t.state["rounds"]) + 1
        ends = now + timedelta(days=t.state["config"]["round_days"])
        out = [{"players": tb["players"], "bye": tb["bye"],
                "games": [] if tb["bye"] else [{"game": next(gids), "players": tb["players"]}]} for tb in tables]
        events.append(_event(t, "round_started", {"number": number, "starts_at": now.isoformat(),
                                                  "ends_at": ends.isoformat(), "tables": out}))
        t.round_ends_at, t.warn_at, t.needs_advance = ends, plan.warning_at(now, ends), False
    TournamentEvent.objects.bulk_create(events)
    if mail:
        for t, _ in paired:
            emails.round_started(t, len(t.state["rounds"]))
    started = {id(t) for t, _ in paired}
    return [id(t) in started for t in ts]


def _new_game(t, players, number, table) -> int:
    return _new_games([(t, players, number, table)])[0]


def _new_games(wanted) -> list[int]:
    """Games already accepted by their players (joining was consent), one per (tournament,
    players, round, table), created together and linked to their tables."""
    specs = []
    for t, players, _, _ in wanted:
        s = t.state
        clock = s["config"]["clock"]
        specs.append({"creator": None, "kind": t.kind, "options": s["options"], "accepted": True,
                      "seats": [{"user": s["players"][str(p)]["name"]} for p in players],
                      "per_move": clock["per_move"], "on_timeout": clock["on_timeout"],
                      "rated": s["config"].get("rated", True)})
    made = games.create_games(specs)
    TournamentGame.objects.bulk_create([TournamentGame(game_id=g.pk, tournament=t, round=number, table=table)
                                        for g, (t, _, number, table) in zip(made, wanted)])
    # The first clocks were set before the links existed, so a player away may have had one held:
    # a tournament game is not friendly, its clocks run (kinplay.clocks.vacation.friendly).
    held = list(Deadline.objects.filter(game_id__in=[g.pk for g in made], done_at__isnull=True,
                                        paused_left__isnull=False)) if made else []
    if held:
        now = timezone.now()
        for d in held:
            assert d.paused_left is not None  # the query took only paused deadlines
            d.due_at, d.paused_left = now + timedelta(seconds=d.paused_left), None
        Deadline.objects.bulk_update(held, ["due_at", "paused_left"])
        for game_id in {d.game_id for d in held}:
            vacation._show_deadline(game_id)
    return [g.pk for g in made]


def _finish(t):
    _append(t, "finished", {"seed": t.seed, "winner": plan.winner(t.state)})
    t.round_ends_at, t.warn_at, t.needs_advance = None, None, False
    emails.finished(t)


def game_finished(game: Game):
    """games.events.game_finished (kinplay.tournaments.receivers): in the transaction of the move
    that ended the game. Appends the result and nothing heavier: the next step runs after commit. The tournament's
    row is locked (its version numbers the event)."""
    link = (TournamentGame.objects.select_related("tournament").select_for_update(of=("tournament",))
            .filter(game_id=game.pk).first())
    if link is None or link.tournament.status != Tournament.RUNNING:
        return
    t, rnd = link.tournament, link.round
    # A timeout counts when the clock played or forfeited for the player; a reaction window's
    # default ("timeout-default": not raising a hand) is how windows are meant to close.
    clocked = (History.objects.filter(game_id=game.pk, command__by__in=["timeout-bot", "timeout-forfeit"])
               .order_by().values_list("seat", flat=True).distinct())
    seats = {s.index: s.user_id for s in game.seat_list}
    users = (seats.get(seat) for seat in clocked if seat is not None)  # the system acts with no seat, a bot with no user
    timed_out = sorted({user for user in users if user is not None})
    ranks = (game.result or {}).get("ranks") or []
    data = {"round": rnd, "table": link.table, "game": game.pk, "ranks": ranks, "timeouts": timed_out}
    TournamentEvent.objects.create(tournament_id=t.pk, seq=t.version + 1, type="game_finished", data=data)
    still = (TournamentGame.objects.filter(tournament_id=t.pk, round=rnd, game__status__in=[Game.WAITING, Game.ACTIVE])
             .exclude(game_id=game.pk).exists())
    if not still or timed_out or t.format == "knockout":
        Tournament.objects.filter(pk=t.pk).update(version=t.version + 1, needs_advance=True)
        tid = t.pk
        transaction.on_commit(lambda: _kick(tid))
    else:
        Tournament.objects.filter(pk=t.pk).update(version=t.version + 1)


# The task named, not imported: its module imports this one.
ADVANCE_TASK = "kinplay.tournaments.tasks.advance_tournament"


def _kick(tid):
    try:
        app.tasks[ADVANCE_TASK].delay(tid)
    except Exception as exc:  # broker down: the sweep will advance it
        log.warning("could not reach the broker (%s); the tournament sweep will advance %s", exc, tid)


def advance(tid, now=None) -> str:
    """Take every step the tournament can take now: withdraw players over the timeout limit,
    adjudicate a round whose time is up, start a knockout match's next game, finish the
    round and pair the next one (or finish the tournament)."""
    now = now or timezone.now()
    with transaction.atomic():
        t = _locked(tid)
        if t.status != Tournament.RUNNING or not t.state["rounds"]:
            Tournament.objects.filter(pk=tid, needs_advance=True).update(needs_advance=False)
            return "not-running"
        s = t.state
        out = _withdraw_timed_out(t)
        rnd = s["rounds"][-1]
        adjudicate = []
        if t.round_ends_at and t.round_ends_at <= now and not stream.round_done(s, rnd):
            adjudicate = _running_games(s, None)
        _save(t)
        _resign(_running_games(t.state, out), out)
        for gid in adjudicate:
            _adjudicate(t, gid)
        t = _locked(tid)
        gone = _withdraw_timed_out(t) if adjudicate else []  # a forfeit there is a timeout: out before the next round
        if gone:
            _save(t)
            _resign(_running_games(t.state, gone), gone)
            t = _locked(tid)
        s, rnd = t.state, t.state["rounds"][-1]
        outcome = "waiting"
        if s["format"] == "knockout":
            for i, table in enumerate(rnd["tables"]):
                if (not table["bye"] and len(table["players"]) == 2 and not stream.table_done(s, table)
                        and all(g["ranks"] is not None for g in table["games"])):
                    players = plan.next_match_game(table)
                    gid = _new_game(t, players, rnd["number"], i)
                    _append(t, "game_added", {"round": rnd["number"], "table": i, "game": gid, "players": players})
                    outcome = "match-game"
        while t.status == Tournament.RUNNING and stream.round_done(t.state, rnd):  # a round of byes only is done at once
            _append(t, "round_finished", {"number": rnd["number"]})
            outcome = "next-round" if _start_next_round(t) else "finished"
            rnd = t.state["rounds"][-1]
        t.needs_advance = False
        _save(t)
    return outcome


class ResultMismatch(games.Unprocessable):
    """A result correction naming a round or table the tournament does not have, or ranks that
    do not fit the table (422)."""


def correct_result(tid, user, *, round, table, ranks, reason) -> Tournament:
    """The organiser corrects a finished game's result as the tournament counts it (standings,
    tiebreaks; rounds already paired stay as they are; the game and its rating are untouched):
    an event with the reason, shown in the tournament's history."""
    with transaction.atomic():
        t = _locked(tid)
        s = t.state
        if user.pk != s["organiser"]:
            raise NotOrganiser("Only the organiser can correct a result.")
        if t.status not in (Tournament.RUNNING, Tournament.FINISHED) or t.format == "knockout":
            raise TournamentError("Results can be corrected in a running or finished Swiss or round robin only.")
        if not isinstance(reason, str) or not reason.strip() or len(reason) > 200:
            raise TournamentError("reason must be 1 to 200 characters: the history shows it.")
        try:
            number = _int(round, "round", 1, len(s["rounds"]))
            tables = s["rounds"][number - 1]["tables"]
            tb = tables[_int(table, "table", 0, len(tables) - 1)]
        except TournamentError as exc:
            raise ResultMismatch(str(exc)) from None
        done = [g for g in tb["games"] if g["ranks"] is not None]
        if tb["bye"] or not done:
            raise TournamentError("That table has no game with a result to correct.")
        k = len(tb["players"])
        if not isinstance(ranks, list) or len(ranks) != k or not all(
                isinstance(x, int) and not isinstance(x, bool) and 1 <= x <= k for x in ranks):
            raise ResultMismatch(f"ranks must list {k} places from 1 to {k}, in the table's seat order (1 is best; equal is shared).")
        g = done[-1]
        _append(t, "result_corrected", {"round": number, "table": tables.index(tb), "game": g["game"], "ranks": ranks,
                                        "before": g["ranks"], "reason": reason.strip(), "by": user.username})
        _save(t)
    return t


class PairingMismatch(games.Unprocessable):
    """A pairing correction naming players who are not in the round, or who share a table (422)."""


def correct_pairing(tid, user, *, players, reason) -> Tournament:
    """The organiser swaps two players of a running Swiss's current round, each taking the
    other's seat, before anyone has moved in their games: the two games are called off (as
    games that never started) and new ones created for the two tables; the players of both
    tables are emailed. A ``pairing_corrected`` event with the reason, shown in the history.
    ``players``: two usernames."""
    with transaction.atomic():
        t = _locked(tid)
        s = t.state
        if user.pk != s["organiser"]:
            raise NotOrganiser("Only the organiser can correct a pairing.")
        if t.status != Tournament.RUNNING or t.format != "swiss" or not s["rounds"]:
            raise TournamentError("Pairings can be corrected in a running Swiss only.")
        if not isinstance(reason, str) or not reason.strip() or len(reason) > 200:
            raise PairingMismatch("reason must be 1 to 200 characters: the history shows it.")
        rnd = s["rounds"][-1]
        if rnd["status"] != "running":
            raise TournamentError(f"Round {rnd['number']} is over: only the current round's pairing can be corrected.")
        by_name = {p["name"].casefold(): p["id"] for p in s["players"].values()}
        if (not isinstance(players, list) or len(players) != 2 or not all(isinstance(n, str) for n in players)
                or players[0].casefold() == players[1].casefold()):
            raise PairingMismatch("players must name two different players of the round, whose seats are swapped.")
        ids = []
        for n in players:
            pid = by_name.get(n.casefold())
            where = [i for i, tb in enumerate(rnd["tables"]) if pid in tb["players"]]
            if pid is None or not where:
                raise PairingMismatch(f"{n} does not play in round {rnd['number']}.")
            if s["players"][str(pid)]["status"] != "active":
                raise TournamentError(f"{n} has withdrawn: only players still in the tournament can be re-seated.")
            ids.append((pid, where[0]))
        (a, ta), (b, tb_) = ids
        if ta == tb_:
            raise PairingMismatch(f"{players[0]} and {players[1]} sit at the same table: swapping them changes nothing.")
        for i in (ta, tb_):
            for g in rnd["tables"][i]["games"]:
                if g["ranks"] is not None:
                    raise TournamentError(f"The game of table {i + 1} is over: its pairing can no longer change.")
        old = [g["game"] for i in (ta, tb_) for g in rnd["tables"][i]["games"]]
        for gid in old:
            try:
                games.call_off_unplayed(gid, "repaired", user)
            except IllegalAction as exc:
                raise TournamentError(f"Game #{gid}: {exc}") from None
        swap = {a: b, b: a}
        seated = {i: [swap.get(p, p) for p in rnd["tables"][i]["players"]] for i in (ta, tb_)}
        TournamentGame.objects.filter(game_id__in=old).delete()
        wanted = [(t, seated[i], rnd["number"], i) for i in (ta, tb_) if not rnd["tables"][i]["bye"]]
        made = dict(zip((i for _, _, _, i in wanted), _new_games(wanted)))
        _append(t, "pairing_corrected", {
            "round": rnd["number"], "players": [a, b], "reason": reason.strip(), "by": user.username, "replaced": old,
            "tables": [{"table": i, "players": seated[i], "game": made.get(i)} for i in (ta, tb_)]})
        _save(t)
        emails.pairing_corrected(t, rnd["number"], [p for i in (ta, tb_) for p in seated[i]])
    return t


def _withdraw_timed_out(t) -> list[int]:
    """Players with ``max_timeouts`` games lost or played by the clock (or forfeited by
    adjudication) are withdrawn and told so."""
    s = t.state
    limit = s["config"]["max_timeouts"]
    out = [p for p in stream.active(s) if s["players"][str(p)]["timeouts"] >= limit]
    for p in out:
        _append(t, "withdrawn", {"player": p, "reason": "timeouts"})
    if out:
        emails.timed_out(t, out)
    return out


def _adjudicate(t, gid):
    """The round's time is up and this game still runs: the players holding the turn have held
    it past the round's limit and forfeit (a resignation in the game's own stream, by
    "adjudication"); if the game goes on without them, the heuristic bot plays it out for the
    rest, so it ends with a result its log explains; it counts as a timeout for each of them. A
    game in which no player has moved at all is a double forfeit (outside knockouts): every player
    forfeits and the tournament counts it lost for all, whatever the game then records. A game
    started after the limit (a knockout match's next game) has nobody to blame: the bot plays it
    out for everyone."""
    game = game_with_seats(gid)
    if game.status != Game.ACTIVE:
        return
    rules = get(game.kind).rules
    state = load_state(game)
    stalled = sorted(rules.to_act(state))
    if t.round_ends_at and game.created_at >= t.round_ends_at:
        stalled = []  # a match's next game, started after the time ran out: nobody held its turn too long
    seats = {s.index: s.user_id for s in game.seat_list}
    holders = [seats[i] for i in stalled if seats.get(i) is not None]  # each is charged a timeout
    double = (bool(stalled) and t.format != "knockout"
              and not History.objects.filter(game_id=gid, seat__isnull=False, command__by="player").exists())
    if double:  # who holds the turn forfeits first, so the game's log starts with them
        stalled += [i for i in sorted(seats) if i not in stalled]
    with transaction.atomic():
        t2 = Tournament.objects.select_for_update().get(pk=t.pk)
        link = TournamentGame.objects.get(game_id=gid)
        t2.version += 1
        TournamentEvent.objects.create(tournament=t2, seq=t2.version, type="game_adjudicated", data={
            "round": link.round, "table": link.table, "game": gid,
            "forfeited": [seats[i] for i in stalled if seats.get(i) is not None], "timed_out": holders,
            "double_forfeit": double})
        Tournament.objects.filter(pk=t.pk).update(version=t2.version)
    for seat in stalled:
        if Game.objects.filter(pk=gid, status=Game.ACTIVE).exists():
            try:
                games.act(gid, seat, action=RESIGN, by="adjudication")
            except IllegalAction:
                pass
    kind = get(game.kind)
    for _ in range(MAX_ADJUDICATION_STEPS):
        game = Game.objects.get(pk=gid)
        if game.status != Game.ACTIVE:
            break
        state = load_state(game)
        waiting = sorted(kind.rules.to_act(state))
        if not waiting:
            break
        seat = waiting[0]
        action = kind.bots.heuristic_bot(clone(state), seat, Rng(game.seed, f"adjudication:{game.version}"))
        games.act(gid, seat, action=action, by="adjudication")


# ---------------------------------------------------------------- the sweep


def warn(t: Tournament, now=None) -> int:
    """The running round ends soon: one email to each player whose game is still running
    (which games, when the round ends, what happens then). ``t`` as the sweep listed it: only
    the sweep that claims its ``warn_at`` writes them; returns how many were queued."""
    now = now or timezone.now()
    with transaction.atomic():
        if not t.claim_warning(now):
            return 0
        s = load(t)
        if t.round_ends_at is None or t.round_ends_at <= now or not s["rounds"]:
            return 0  # the sweep came too late: the advance adjudicates the round instead
        return emails.round_ending(t, s["rounds"][-1]["number"], _running_games(s, None))


def sweep(now=None) -> int:
    """Beat: start tournaments whose time came; advance those with a finished round, a game
    to add or a round past its time; warn players of a round that ends soon. One query finds
    each: no loop per tournament."""
    now = now or timezone.now()
    done = 0
    for tid in Tournament.objects.filter(status=Tournament.OPEN, starts_at__lte=now).values_list("pk", flat=True)[:100]:
        try:
            start(tid)
            done += 1
        except Exception:
            log.exception("starting tournament %s failed", tid)
    due = Tournament.objects.filter(Q(needs_advance=True) | Q(round_ends_at__lte=now), status=Tournament.RUNNING)
    for tid in due.values_list("pk", flat=True)[:100]:
        try:
            advance(tid, now=now)
            done += 1
        except Exception:  # one broken tournament must not stop the others
            log.exception("advancing tournament %s failed", tid)
    for t in Tournament.objects.filter(status=Tournament.RUNNING, warn_at__lte=now).order_by("warn_at")[:100]:
        try:
            done += bool(warn(t, now=now))
        except Exception:
            log.exception("warning the players of tournament %s failed", t.pk)
    return done
