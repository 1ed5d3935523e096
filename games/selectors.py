"""Reads: what one person may see of a game. Every channel (API, page, email) goes through here."""

from __future__ import annotations

from django.db.models import Q

from games.models import Game, Seat
from games.registry import get
from games.store import load_state, stream


def seat_names(game) -> list[str]:
    return [s.name for s in game.seats.all()]


def redacted_events(game, seat, *, after=0, upto=None, rows=None) -> list[dict]:
    """The log as ``seat`` (None: a spectator) may see it (of ``rows`` when given)."""
    rules = get(game.kind).rules
    out = []
    for row in stream(game, after, upto) if rows is None else rows:
        e = rules.redact(row.as_rules_event(), seat)
        if e is not None:
            out.append({"seq": row.seq, "type": e["type"], "data": e["data"], "seat": row.seat, "at": row.at})
    return out


def log_lines(game, seat, *, after=0, upto=None, names=None) -> list[dict]:
    """The redacted log in words, newest last."""
    rules = get(game.kind).rules
    names = names or seat_names(game)
    lines = []
    for e in redacted_events(game, seat, after=after, upto=upto):
        text = rules.describe({"type": e["type"], "data": e["data"]}, names)
        if text:
            lines.append({"seq": e["seq"], "text": text, "at": e["at"], "seat": e["seat"]})
    return lines


def game_for(game, user, *, at: int | None = None, state: dict | None = None) -> dict:
    """The ``<game>`` of the API contract, as ``user`` may see it (at version ``at``).

    ``state``, when the caller already holds the current state, saves loading it again.
    """
    kind = get(game.kind)
    rules = kind.rules
    seat = game.seat_of(user)
    playing = game.version > 0  # an aborted game that never started has no state to view
    historical = at is not None and at < game.version
    if playing and (state is None or historical):
        state = load_state(game, at)
    finished = game.status == Game.FINISHED
    return {
        "id": game.pk,
        "kind": game.kind,
        "options": game.options,
        "status": game.status,
        "version": game.version,
        "at": at if historical else game.version,
        "seats": [{"index": s.index, "name": s.name, "bot": s.bot or None, "you": s.index == seat,
                   "invited": s.invited} for s in game.seats.all()],
        "you": seat,
        "to_act": sorted(rules.to_act(state)) if historical and rules.result(state) is None else game.to_act,
        "deadline": game.deadline,
        "clock": {"per_move": game.per_move, "on_timeout": game.on_timeout},
        "view": rules.view(state, seat) if playing else {},
        "legal_actions": rules.legal_actions(state, seat) if playing and seat is not None and not historical and game.status == Game.ACTIVE else [],
        "result": game.result,
        "rated": game.rated,
        "fairness": {"seed_sha256": game.seed_sha256, "seed": game.seed if finished else None},
    }


def games_of(user, *, status=None, my_turn=None, invited=None):
    """The user's games: invitations to answer first, then the ones waiting for their move."""
    qs = Game.objects.filter(seats__user=user).distinct().with_seats()
    if status:
        qs = qs.filter(status=status)
    if invited is not None:
        asked = Seat.objects.filter(user=user, invited=True, game__status=Game.WAITING).values("game_id")
        qs = qs.filter(pk__in=asked) if invited else qs.exclude(pk__in=asked)
    games = sorted(qs.order_by("-updated_at"),
                   key=lambda g: (not invited_to(g, user), not waiting_for(g, user), g.is_over))
    if my_turn is not None:
        games = [g for g in games if waiting_for(g, user) == my_turn]
    return games


def waiting_for(game, user) -> bool:
    seat = game.seat_of(user)
    return game.status == Game.ACTIVE and seat is not None and seat in game.to_act


def invited_to(game, user) -> bool:
    """An invitation ``user`` has still to answer."""
    return game.status == Game.WAITING and any(s.invited and s.user_id == user.pk for s in game.seats.all())


def open_games(user):
    """Games waiting for players that ``user`` could join."""
    qs = Game.objects.filter(status=Game.WAITING, seats__user__isnull=True, seats__bot="").distinct()
    if user.is_authenticated:
        qs = qs.exclude(seats__user=user)
    return qs.with_seats().order_by("-created_at")


def visible_games(user):
    """Games a user may look at: their own and every game as a spectator (public views)."""
    return Game.objects.all() if user.is_authenticated else Game.objects.none()
