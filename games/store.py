"""Reading and appending a game's stream. The unique key (game, seq) is the concurrency check."""

from __future__ import annotations

from django.conf import settings

from games.engine import replay
from games.models import Event, Snapshot
from games.registry import get


class VersionConflict(Exception):
    def __init__(self, current: int):
        super().__init__(f"the game is at version {current}")
        self.current = current


def load_state(game, upto: int | None = None) -> dict:
    """The state after event ``upto`` (default: the last), from the nearest snapshot."""
    upto = game.version if upto is None else upto
    snap = Snapshot.objects.filter(game=game, seq__lte=upto).order_by("-seq").first()
    state, start = (snap.state, snap.seq) if snap else ({}, 0)
    rows = Event.objects.filter(game=game, seq__gt=start, seq__lte=upto).order_by("seq").values_list("type", "data")
    return replay(get(game.kind).rules, ({"type": t, "data": d} for t, d in rows), state)


def stream(game, after: int = 0, upto: int | None = None):
    qs = Event.objects.filter(game=game, seq__gt=after)
    if upto is not None:
        qs = qs.filter(seq__lte=upto)
    return qs.order_by("seq")


def append(game, version: int, events: list[dict], state_after: dict, *, seat, command, idempotency_key=None) -> list[Event]:
    """Append one command's events after ``version``; IntegrityError if another landed first."""
    rows = [
        Event(
            game=game, seq=version + i, type=e["type"], data=e["data"], seat=seat,
            idempotency_key=idempotency_key if i == 1 else None,
            command=command if i == 1 else None,
        )
        for i, e in enumerate(events, start=1)
    ]
    Event.objects.bulk_create(rows)
    new_version = version + len(events)
    every = settings.SNAPSHOT_EVERY
    if new_version // every > version // every:
        Snapshot.objects.create(game=game, seq=new_version, state=state_after)
    return rows
