"""Rebuilding a tournament's read model from its stream, and checking it (verify_tournament)."""

from __future__ import annotations

from datetime import datetime

from django.db import transaction

from games.rng import seed_digest
from kinplay.tournaments import plan, stream
from kinplay.tournaments.models import Tournament, TournamentEvent, TournamentGame
from kinplay.tournaments.selectors import load


def events_of(t):
    return [{"type": ty, "data": d} for ty, d in TournamentEvent.objects.filter(tournament=t).order_by("seq").values_list("type", "data")]


def rebuild(t: Tournament) -> None:
    """The row, its state and the game links, from the events alone."""
    events = events_of(t)
    state = stream.fold(events)
    links = []
    for r in state.get("rounds", []):
        for i, tb in enumerate(r["tables"]):
            links += [TournamentGame(game_id=g["game"], tournament=t, round=r["number"], table=i) for g in tb["games"]]
    ends = state["rounds"][-1]["ends_at"] if state.get("status") == "running" and state["rounds"] else None
    with transaction.atomic():
        TournamentGame.objects.filter(tournament=t).delete()
        TournamentGame.objects.bulk_create(links)
        Tournament.objects.filter(pk=t.pk).update(
            state=state, version=len(events), state_version=len(events), status=state.get("status", "open"),
            round_ends_at=datetime.fromisoformat(ends) if ends else None)


def verify(t: Tournament) -> list[str]:
    """Problems found (none: the stream, the read model and every draw agree)."""
    problems = []
    events = events_of(t)
    seqs = list(TournamentEvent.objects.filter(tournament=t).order_by("seq").values_list("seq", flat=True))
    if seqs != list(range(1, len(seqs) + 1)):
        problems.append("the event sequence has gaps")
    live = dict(t.state)
    live = load(Tournament.objects.get(pk=t.pk))
    folded = stream.fold(events)
    if folded != live:
        problems.append("the stored state differs from the replay of the events")
    if stream.standings(folded) != stream.standings(live) if folded.get("order") else False:
        problems.append("the standings differ from the replay")
    seed = folded.get("seed")
    if seed:
        if seed_digest(seed) != t.seed_sha256:
            problems.append("the revealed seed does not match the published sha256")
        else:
            problems += _redraw(events, seed)
    return problems


def _redraw(events, seed) -> list[str]:
    """Every draw again from the revealed seed: the seeding and each round's tables."""
    problems: list[str] = []
    state: dict = {}
    for e in events:
        if e["type"] == "started":
            if plan.seeding(state, seed) != e["data"]["seeds"]:
                problems.append("the seeding was not drawn from the seed")
            if "lots" in e["data"] and plan.lots(state, seed) != e["data"]["lots"]:
                problems.append("the drawing of lots was not drawn from the seed")
        if e["type"] == "round_started":
            want = plan.next_round(state, seed) or []
            got = [{"players": tb["players"], "bye": tb["bye"]} for tb in e["data"]["tables"]]
            if [{"players": tb["players"], "bye": tb["bye"]} for tb in want] != got:
                problems.append(f"round {e['data']['number']}: the tables are not the ones the seed gives")
        if e["type"] == "game_added":
            table = state["rounds"][e["data"]["round"] - 1]["tables"][e["data"]["table"]]
            if plan.next_match_game(table) != e["data"]["players"]:
                problems.append(f"round {e['data']['round']}: a match game's seats do not alternate")
        state = stream.evolve(state, e["type"], e["data"])
    return problems
