"""Writes to ladders: create, join, leave, challenge, and what a challenge's game tells the ladder.

Every change appends events to the ladder's stream under a row lock and folds them into the
read model (``Ladder.state``) in the same transaction. A challenge is an ordinary game with an
invitation (games.services.create_game): the challenged player accepts or declines it, or lets
it lapse after ``answer_days``; its answer and its end come back through games.events
(kinplay.ladders.receivers), inside the game's own transaction; a game's result is recorded
after its commit by a task (``record_result``), the beat sweep catching any it missed.
"""

from __future__ import annotations

import logging
from datetime import timedelta

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone

from games import services as games
from games.engine import IllegalAction
from games.models import Game
from games.registry import get, kinds
from games.store import game_with_seats
from kinplay.celery import app
from kinplay.clocks.models import Deadline
from kinplay.ladders import emails, stream
from kinplay.ladders.models import Ladder, LadderEvent, LadderGame
from kinplay.tournaments import services as tournaments

log = logging.getLogger("kinplay.ladders")

DEFAULTS = {"reach": 3, "max_out": 1, "max_in": 1, "repeat_days": 7, "answer_days": 3}
LIMITS = {"reach": (1, 100), "max_out": (1, 20), "max_in": (1, 20), "repeat_days": (0, 365), "answer_days": (1, 14)}


class LadderError(games.BadRequest):
    """Refused settings or a step the ladder cannot take now, with the reason: the API answers 422 for
    settings (api.organised.Organised.create), 409 for a step (Organised.action)."""


# ---------------------------------------------------------------- the stream


def _locked(lid) -> Ladder:
    return Ladder.objects.select_for_update().get(pk=lid)


def _append(ladder: Ladder, type_: str, data: dict):
    ladder.version += 1
    LadderEvent.objects.create(ladder=ladder, seq=ladder.version, type=type_, data=data)
    ladder.state = stream.evolve(ladder.state, type_, data)


def _save(ladder: Ladder):
    ladder.save(update_fields=["version", "state"])


# ---------------------------------------------------------------- creating


def config_of(*, kind, options=None, clock=None, rated=True, **limits) -> tuple[dict, dict]:
    """Check the organiser's settings; returns (options with defaults, config). A ladder's
    games are duels: the kind must allow two players."""
    if kind not in kinds():
        raise LadderError(f"Unknown kind “{kind}”. Kinds: {', '.join(kinds())}.")
    k = get(kind)
    options = games.options_with_defaults(k, options or {})
    if 2 not in tournaments.allowed_sizes(k, options):
        raise LadderError(f"{k.name} cannot be played by two players: a ladder's challenges are duels.")
    unknown = set(limits) - set(DEFAULTS)
    if unknown:
        raise LadderError(f"Unknown setting {', '.join(sorted(unknown))}.")
    config = {}
    for name, default in DEFAULTS.items():
        value = limits.get(name, default)
        config[name] = tournaments._int(value, name, *LIMITS[name]) if name != "repeat_days" else _days(value)
    clock = clock or {}
    if not isinstance(clock, dict):
        raise LadderError("clock must be {\"per_move\": seconds | null, \"on_timeout\": ...}.")
    per_move = tournaments._int(clock.get("per_move", settings.DEFAULT_PER_MOVE_SECONDS), "clock.per_move", 1,
                                settings.MAX_PER_MOVE_SECONDS, null=True)
    on_timeout = clock.get("on_timeout", "forfeit")
    if on_timeout not in dict(Game.TIMEOUT_POLICIES):
        raise LadderError("clock.on_timeout must be one of bot, skip, forfeit.")
    if not isinstance(rated, bool):
        raise LadderError("rated must be true or false.")
    config.update(clock={"per_move": per_move, "on_timeout": on_timeout}, rated=rated)
    return options, config


def _days(value):
    low, high = LIMITS["repeat_days"]
    if not isinstance(value, (int, float)) or isinstance(value, bool) or not low <= value <= high:
        raise LadderError(f"repeat_days must be a number of days from {low} to {high}.")
    return value


def create(*, organiser, name, kind, options=None, **settings_) -> Ladder:
    if not isinstance(name, str) or not name.strip() or len(name) > 80:
        raise LadderError("name must be 1 to 80 characters.")
    options, config = config_of(kind=kind, options=options, **settings_)
    with transaction.atomic():
        ladder = Ladder.objects.create(name=name.strip(), kind=kind, organiser=organiser)
        _append(ladder, "created", {"name": ladder.name, "kind": kind, "options": options, "config": config,
                                    "organiser": organiser.pk})
        _save(ladder)
    return ladder


# ---------------------------------------------------------------- members


def join(lid, user) -> Ladder:
    """On the ladder at the bottom."""
    with transaction.atomic():
        ladder = _locked(lid)
        if stream.place(ladder.state, user.pk) is not None:
            raise LadderError("You are already on this ladder.")
        _append(ladder, "joined", {"player": user.pk, "name": user.username})
        _save(ladder)
    return ladder


def leave(lid, user) -> Ladder:
    """Off the ladder: everyone below moves up one. Then each open challenge closes as its game
    allows: an invitation the leaver made is called off, one they received is declined, a game
    already running is resigned; none of them moves anyone (the leaver is no longer on the
    ladder). The games are changed after the ladder's transaction, in their own, which lock the
    game and then the ladder as every move does: never the other way round."""
    with transaction.atomic():
        ladder = _locked(lid)
        if stream.place(ladder.state, user.pk) is None:
            raise LadderError("You are not on this ladder.")
        _append(ladder, "left", {"player": user.pk})
        _save(ladder)
        still = stream.open_challenges(ladder.state, user.pk)
    for c in still:
        _close(c, user)
    return Ladder.objects.get(pk=lid)


def _close(c, user) -> None:
    """The leaver's open challenge closed through its game; its receivers tell the ladder."""
    gid = c["game"]
    status = Game.objects.filter(pk=gid).values_list("status", flat=True).first()
    try:
        if status == Game.ACTIVE:
            games.resign(gid, user=user)
        elif status == Game.WAITING and c["challenger"] == user.pk:
            games.cancel_game(gid, user)
        elif status == Game.WAITING:
            games.decline_invitation(gid, user)
    except (IllegalAction, games.NotYourSeat):
        pass  # answered, started or finished meanwhile: its own event has reached the ladder


# ---------------------------------------------------------------- challenges


def challenge(lid, user, opponent_name) -> Ladder:
    """``user`` challenges the player named ``opponent_name``: a game inviting them, seated
    challenger first, with the ladder's clock; the invitation lapses after ``answer_days``."""
    opponent = get_user_model().objects.filter(username__iexact=str(opponent_name)).first()
    now = timezone.now()
    with transaction.atomic():
        ladder = _locked(lid)
        s = ladder.state
        if opponent is None:
            raise games.Unprocessable(f"There is no player “{opponent_name}”.")
        why = stream.refusal(s, user.pk, opponent.pk, now)
        if why:
            raise LadderError(why)
        cfg = s["config"]
        game = games.create_game(creator=user, kind=ladder.kind, options=s["options"], invite_only=True,
                                 seats=[{"user": user.username}, {"user": opponent.username}],
                                 per_move=cfg["clock"]["per_move"], on_timeout=cfg["clock"]["on_timeout"],
                                 rated=cfg["rated"])
        answer_by = now + timedelta(days=cfg["answer_days"])
        # The invitation's own clock (kinplay.clocks) set to the ladder's answer time.
        Deadline.objects.filter(game=game, kind=Deadline.INVITATION, done_at__isnull=True).update(due_at=answer_by)
        LadderGame.objects.create(game=game, ladder=ladder)
        _append(ladder, "challenged", {"game": game.pk, "challenger": user.pk, "challenged": opponent.pk,
                                       "places": [stream.place(s, user.pk), stream.place(s, opponent.pk)],
                                       "at": now.isoformat(), "answer_by": answer_by.isoformat()})
        _save(ladder)  # the game's invitation tells the challenged player (emails.invitation_origin)
    return ladder


def _ladder_of(game_id) -> Ladder | None:
    """The ladder of a challenge's game, its row locked; None for any other game (one indexed read)."""
    return Ladder.objects.select_for_update(of=("self",)).filter(games__game_id=game_id).first()


def challenge_closed(game_id, outcome: str) -> None:
    """The invitation was accepted, declined, let lapse or called off (receivers)."""
    ladder = _ladder_of(game_id)
    if ladder is None:
        return
    c = ladder.state["challenges"].get(str(game_id))
    if c is None or c["status"] != "invited":
        return  # already closed (a decline both answers and withdraws the seat)
    _append(ladder, outcome, {"game": game_id, "challenger": c["challenger"], "challenged": c["challenged"]})
    _save(ladder)
    if outcome != "accepted":
        LadderGame.objects.filter(game_id=game_id).update(done=True)


# The task named, not imported: its module imports this one.
RESULT_TASK = "kinplay.ladders.tasks.record_result"


def game_finished(game: Game) -> None:
    """games.events.game_finished, in the move's transaction: nothing but a task after commit
    (``record_result``), and only for a game that can be a challenge (invite_only); the beat
    sweep is the safety net when the broker is down."""
    if game.invite_only:
        gid = game.pk
        transaction.on_commit(lambda: _kick(gid))


def _kick(game_id):
    try:
        app.tasks[RESULT_TASK].delay(game_id)
    except Exception as exc:  # broker down: the sweep will record it
        log.warning("could not reach the broker (%s); the ladder sweep will record game %s", exc, game_id)


def record_result(game_id) -> str:
    """A challenge's game has finished: its result goes in the stream; the winner is the one
    player ranked first alone (a draw leaves the places as they are). Idempotent."""
    with transaction.atomic():
        ladder = _ladder_of(game_id)
        if ladder is None or str(game_id) not in ladder.state["challenges"]:
            return "not-open"
        game = game_with_seats(game_id)
        if game.status != Game.FINISHED:
            return "not-finished"
        ranks = (game.result or {}).get("ranks") or []
        seats = {s.index: s.user_id for s in game.seat_list}
        best = [i for i, r in enumerate(ranks) if r == min(ranks)]
        winner = seats.get(best[0]) if len(best) == 1 else None
        event = stream.result(ladder.state, game_id, winner)
        _append(ladder, "result", event)
        _save(ladder)
        LadderGame.objects.filter(game_id=game_id).update(done=True)
        emails.result(ladder, event, [s.user for s in game.seat_list if s.user_id])
    return "recorded"


def sweep() -> int:
    """Beat: record the results of finished challenge games the task missed."""
    done = 0
    for gid in LadderGame.objects.filter(done=False, game__status=Game.FINISHED).values_list("game_id", flat=True)[:100]:
        try:
            done += record_result(gid) == "recorded"
        except Exception:  # one broken ladder must not stop the others
            log.exception("recording the result of ladder game %s failed", gid)
    return done
