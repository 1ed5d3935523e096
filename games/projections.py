"""Rebuilding the read models from the streams (they are caches of the events)."""

from __future__ import annotations

from django.conf import settings
from django.db import transaction

from games.engine import clone, evolve
from games.models import Event, Game, Snapshot
from games.registry import get


def rebuild(game: Game) -> None:
    rules = get(game.kind).rules
    with transaction.atomic():
        # Moves go on meanwhile: with the row locked, a move either committed before (its
        # events are read below) or waits and then applies its compare-and-set on top of the
        # version written here; the row never goes back to an older version.
        game = Game.objects.select_for_update().get(pk=game.pk)
        rows = list(Event.objects.filter(game=game).order_by("seq").values_list("seq", "type", "data"))
        Snapshot.objects.filter(game=game).delete()
        state, snaps = {}, []
        for seq, type_, data in rows:
            state = evolve(rules, state, {"type": type_, "data": data})
            if seq % settings.SNAPSHOT_EVERY == 0:
                snaps.append(Snapshot(game=game, seq=seq, state=clone(state)))
        Snapshot.objects.bulk_create(snaps)
        fields = {"version": len(rows)}
        if rows:
            result = rules.result(state)
            fields["result"] = result
            fields["to_act"] = [] if result is not None else sorted(rules.to_act(state))
            if game.status != Game.ABORTED:
                fields["status"] = Game.FINISHED if result is not None else Game.ACTIVE
        Game.objects.filter(pk=game.pk).update(**fields)

