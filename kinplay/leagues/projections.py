"""Rebuilding a league's read model (row, divisions, placements) from its stream alone."""

from __future__ import annotations

from datetime import datetime

from django.db import transaction

from kinplay.leagues import stream
from kinplay.leagues.models import Division, League, LeagueEvent, Placement


def events_of(league):
    return [{"type": ty, "data": d} for ty, d in LeagueEvent.objects.filter(league=league).order_by("seq").values_list("type", "data")]


def rebuild(league: League) -> None:
    events = events_of(league)
    state = stream.fold(events)
    seasons = state.get("seasons", [])
    divisions, placements = [], []
    for season in seasons:
        for i, div in enumerate(season["divisions"], start=1):
            divisions.append(Division(tournament_id=div["tournament"], league=league, season=season["number"], number=i))
        for r in stream.path_of_season(state, season["number"]):
            placements.append(Placement(league=league, user_id=r["player"], season=season["number"],
                                        division=r["division"], rank=r["rank"], move=r["move"]))
    created: dict = next((e["data"] for e in events if e["type"] == "created"), {})
    running = bool(seasons) and seasons[-1]["status"] == "running"
    status = League.RUNNING if running else League.OPEN
    with transaction.atomic():
        Division.objects.filter(league=league).delete()
        Division.objects.bulk_create(divisions)
        Placement.objects.filter(league=league).delete()
        Placement.objects.bulk_create(placements)
        League.objects.filter(pk=league.pk).update(
            state=state, version=len(events), status=status, season=len(seasons),
            starts_at=league.starts_at or (datetime.fromisoformat(created["starts_at"]) if created.get("starts_at") else None))
