"""Rebuilding the read models from the streams (they are caches of the events)."""

from __future__ import annotations

from django.db import transaction

from games.engine import clone, evolve
from games.models import Game, History, Seat, Snapshot
from games.registry import get
from games.schema import rules_version, upcast
from games.store import snapshot_due


def rebuild(game: Game) -> None:
    """Snapshots and the game row again from the events, as the moves that wrote them did:
    snapshots at the same positions (``snapshot_due`` at command ends), the row by ``Game.project``."""
    rules = get(game.kind).rules
    with transaction.atomic():
        # Moves go on meanwhile: with the row locked, a move either committed before (its
        # events are read below) or waits and then applies its compare-and-set on top of the
        # version written here; the row never goes back to an older version.
        game = Game.objects.select_for_update().get(pk=game.pk)
        rows = list(History.objects.filter(game=game).order_by("seq")
                    .values_list("seq", "type", "data", "schema_version", "command"))
        Snapshot.objects.filter(game=game).delete()
        state: dict = {}
        snaps: list[Snapshot] = []
        start = 0  # the version the current command started from
        for i, (seq, type_, data, schema_version, _command) in enumerate(rows):
            state = evolve(rules, state, upcast(rules, type_, data, schema_version))
            command_ends = i + 1 == len(rows) or rows[i + 1][4] is not None
            if command_ends:
                if snapshot_due(start, seq):
                    snaps.append(Snapshot(game=game, seq=seq, state=clone(state), rules_version=rules_version(rules)))
                start = seq
        Snapshot.objects.bulk_create(snaps)
        game.version = len(rows)
        fields = ["version"]
        if rows:
            game.project(rules, state)
            fields += ["to_act", "result", "status"]
        Game.objects.filter(pk=game.pk).update(**{f: getattr(game, f) for f in fields})
        if game.is_over:
            Seat.mark_over(game)
