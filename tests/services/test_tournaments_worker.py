"""Tournaments with a real broker and a real Celery worker + beat (issue 15): played to the end
through the API by scripted random clients; after round 1 nobody calls start (each round is
paired by the worker after the last game-over); one player vanishes and their games are
adjudicated when the round's time is up; one player withdraws."""

from __future__ import annotations

import time

import pytest
from django.utils import timezone
from django.utils.dateparse import parse_datetime

from games.rng import Rng
from kinplay.tournaments.models import Tournament
from kinplay.tournaments.projections import verify

pytestmark = [pytest.mark.services, pytest.mark.slow]  # rounds of about 22 s: the vanished player is adjudicated each round

NAMES = ["alice", "bob", "charlie", "dave", "erin", "frank", "grace", "heidi", "ivan", "judy"]


def play_my_moves(client, game_id, rng, max_moves=200):
    """A scripted client: while it is this player's move, submit a random legal one."""
    moved = 0
    for _ in range(max_moves):
        g = client.get(f"/api/games/{game_id}/").json()
        if g["status"] != "active" or not g["legal_actions"]:
            return moved
        move = g["legal_actions"][rng.randbelow(len(g["legal_actions"]))]
        r = client.post(f"/api/games/{game_id}/actions/", {"notation": move["notation"], "expected_version": g["version"]},
                        format="json")
        moved += r.status_code == 201
    return moved


# One format is enough here: tests/tournaments/test_running.py plays every format in process
# (Swiss, knockout, round robin); this proves the worker and beat drive one with nobody's help.
def test_it_runs_a_knonsters_swiss_at_three_to_four_a_table_by_itself_with_the_worker(start_worker, broker, api,
                                                                                     make_user):
    kind, n, settings_ = "knonsters", 10, {"format": "swiss", "rounds": 2, "table_size": {"min": 3, "max": 4}}
    worker = start_worker(broker)
    users = [make_user(name) for name in NAMES[:n]]
    clients = {u.username: api(u) for u in users}
    org = clients["alice"]
    t = org.post("/api/tournaments/", {"name": f"Worker {kind}", "kind": kind, "round_days": 1 / 24,  # the least
                                       "clock": {"per_move": 3600, "on_timeout": "forfeit"}, **settings_},
                 format="json").json()
    for c in clients.values():
        assert c.post(f"/api/tournaments/{t['id']}/join/").status_code == 200
    assert org.post(f"/api/tournaments/{t['id']}/start/").json()["status"] == "running"
    rng = Rng(f"clients-{kind}")
    first = org.get(f"/api/tournaments/{t['id']}/").json()["rounds"][0]["tables"]
    vanished = next(tb for tb in first if not tb["bye"])["players"][-1]  # never moves
    withdrawn = None
    deadline = time.monotonic() + 600
    while time.monotonic() < deadline:
        d = org.get(f"/api/tournaments/{t['id']}/").json()
        if d["status"] != "running":
            break
        if len(d["rounds"]) >= 2 and withdrawn is None:
            playing = [p["name"] for p in d["players"] if p["status"] == "active" and p["name"] != vanished]
            withdrawn = playing[-1]
            r = clients[withdrawn].post(f"/api/tournaments/{t['id']}/withdraw/")
            assert r.status_code == 200
            withdrew_at = len(r.json()["rounds"])  # paired no more after this round
            continue
        moved = 0
        for tb in d["rounds"][-1]["tables"]:
            if tb["bye"] or tb["game"] is None:
                continue
            for name in tb["players"]:
                if name not in (vanished, withdrawn):
                    moved += play_my_moves(clients[name], tb["game"], rng)
        waiting = any(vanished in tb["players"] and not tb["result"] for tb in d["rounds"][-1]["tables"])
        if not moved and waiting:  # all but the vanished player have played: the hour is up, as far as the sweep can tell
            # Only this round's end: the worker may have paired the next round since the GET.
            ends = parse_datetime(d["rounds"][-1]["ends_at"])
            Tournament.objects.filter(pk=t["id"], round_ends_at=ends).update(round_ends_at=timezone.now())
        if not moved:
            time.sleep(0.5)  # waiting for the worker: the next round, or the adjudication
    final = org.get(f"/api/tournaments/{t['id']}/").json()
    if final["status"] != "finished":
        worker.dump()
    assert final["status"] == "finished"
    assert final["fairness"]["seed"] and final["winner"]
    if withdrawn is not None:
        later = [p for r in final["rounds"][withdrew_at:] for tb in r["tables"] for p in tb["players"]]
        assert withdrawn not in later
        assert next(p for p in final["players"] if p["name"] == withdrawn)["status"] == "withdrawn"
    assert any("adjudicated" in (tb["result"] or "") for r in final["rounds"] for tb in r["tables"]
               if vanished in tb["players"])
    assert sorted(len(tb["players"]) for tb in final["rounds"][0]["tables"]) == [3, 3, 4]
    assert verify(Tournament.objects.get(pk=t["id"])) == []
