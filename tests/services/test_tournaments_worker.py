"""Tournaments with a real broker and a real Celery worker + beat (issue 15): a Swiss played
to the end through the API by scripted random clients, every round started by the worker
after the last game-over (nobody calls start after round 1), a vanished player's game
adjudicated when the round's time is up, a withdrawal."""

from __future__ import annotations

import time
from collections import Counter

import pytest

from games.rng import Rng
from kinplay.tournaments.models import Tournament
from kinplay.tournaments.projections import verify
from tests.services.conftest import wait_for

pytestmark = pytest.mark.services


def play_my_moves(client, game_id, rng, max_moves=400):
    """A scripted client: while it is this player's move, submit a random legal one."""
    for _ in range(max_moves):
        g = client.get(f"/api/games/{game_id}/").json()
        if g["status"] != "active" or not g["legal_actions"]:
            return g
        move = g["legal_actions"][rng.randbelow(len(g["legal_actions"]))]
        client.post(f"/api/games/{game_id}/actions/", {"notation": move["notation"], "expected_version": g["version"]},
                    format="json")
    return client.get(f"/api/games/{game_id}/").json()


def test_it_runs_a_karenza_swiss_by_itself_with_the_worker(start_worker, broker, api, make_user):
    worker = start_worker(broker)
    users = [make_user(n) for n in ("alice", "bob", "charlie", "dave", "erin")]
    clients = {u.username: api(u) for u in users}
    t = clients["alice"].post("/api/tournaments/", {
        "name": "Worker Swiss", "kind": "karenza", "format": "swiss", "rounds": 3, "round_days": 0.0004,
        "clock": {"per_move": 3600, "on_timeout": "forfeit"}}, format="json").json()
    for c in clients.values():
        assert c.post(f"/api/tournaments/{t['id']}/join/").status_code == 200
    clients["alice"].post(f"/api/tournaments/{t['id']}/start/")
    rng = Rng("clients")
    vanished, withdrawn = None, None
    for number in (1, 2, 3):
        d = wait_for(lambda: (x := clients["alice"].get(f"/api/tournaments/{t['id']}/").json())["rounds"]
                     and len(x["rounds"]) >= number and x, f"round {number} to start", on_fail=worker.dump)
        if d["status"] != "running":
            break
        tables = [tb for tb in d["rounds"][number - 1]["tables"] if not tb["bye"]]
        if number == 1:
            vanished = tables[0]["players"][1]  # never moves again
        if number == 2 and withdrawn is None:
            withdrawn = next(p for tb in tables for p in tb["players"] if p != vanished)
            clients[withdrawn].post(f"/api/tournaments/{t['id']}/withdraw/")
        for _ in range(50):  # keep playing until every game of the round is over
            busy = False
            for tb in tables:
                for name in tb["players"]:
                    if name in (vanished, withdrawn):
                        continue
                    g = play_my_moves(clients[name], tb["game"], rng)
                    busy |= g["status"] == "active"
            if not busy or all(c["status"] != "active" for c in
                               (clients["alice"].get(f"/api/games/{tb['game']}/").json() for tb in tables)):
                break
            time.sleep(0.5)  # the vanished player's opponent waits for adjudication
    final = wait_for(lambda: (x := clients["alice"].get(f"/api/tournaments/{t['id']}/").json())["status"] == "finished" and x,
                     "the tournament to finish by itself", timeout=120, on_fail=worker.dump)
    assert len(final["rounds"]) == 3
    assert final["fairness"]["seed"]
    later = [p for r in final["rounds"][2:] for tb in r["tables"] for p in tb["players"]]
    assert withdrawn not in later
    pairs = Counter(frozenset(tb["players"]) for r in final["rounds"] for tb in r["tables"] if not tb["bye"])
    assert max(pairs.values()) == 1
    assert any("adjudicated" in (tb["result"] or "") for r in final["rounds"] for tb in r["tables"]
               if vanished in tb["players"])
    assert verify(Tournament.objects.get(pk=t["id"])) == []
