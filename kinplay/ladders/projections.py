"""Rebuilding a ladder's read model (its row and its game links) from its stream alone."""

from __future__ import annotations

from django.db import transaction

from kinplay.ladders import stream
from kinplay.ladders.models import Ladder, LadderEvent, LadderGame


def events_of(ladder):
    return [{"type": ty, "data": d} for ty, d in LadderEvent.objects.filter(ladder=ladder).order_by("seq").values_list("type", "data")]


def rebuild(ladder: Ladder) -> None:
    events = events_of(ladder)
    state = stream.fold(events)
    closed = {e["data"]["game"] for e in events if e["type"] in stream.CLOSING}
    links = [LadderGame(game_id=e["data"]["game"], ladder=ladder, done=e["data"]["game"] in closed)
             for e in events if e["type"] == "challenged"]
    with transaction.atomic():
        LadderGame.objects.filter(ladder=ladder).delete()
        LadderGame.objects.bulk_create(links)
        Ladder.objects.filter(pk=ladder.pk).update(state=state, version=len(events))
