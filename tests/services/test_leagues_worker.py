"""A league with a real broker and a real Celery worker + beat (issue 16): 14 Karenza players
in divisions of 6 (7 + 7), two full seasons played through the API by scripted random clients;
nobody starts a season: beat's league sweep does. A player withdrawn from their division is
dropped, a player who leaves is gone, two sign-ups start in the lowest division; the right
players move up and down; rebuild reproduces the league table."""

from __future__ import annotations

import os
import time
from datetime import timedelta

import pytest
from django.core.management import call_command
from django.utils import timezone

from games.rng import Rng
from kinplay.leagues import selectors
from kinplay.leagues.models import League
from tests.conftest import wait_for
from tests.services.test_tournaments_worker import play_my_moves

pytestmark = [pytest.mark.services, pytest.mark.slow]  # about a minute

NAMES = ["alice", "bob", "charlie", "dave", "erin", "frank", "grace", "heidi", "ivan", "judy",
         "mallory", "niaj", "olivia", "peggy", "rupert", "sybil"]


def play_season(org, clients, lid, number, rng, skip=(), timeout=900):
    """Every player moves in their running games until the league is in season ``number + 1``."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        league = org.get(f"/api/leagues/{lid}/").json()
        if league["season"] > number:
            return league
        moved = 0
        for div in league["table"]:
            t = org.get(f"/api/tournaments/{div['tournament']}/").json()
            if t["status"] != "running":
                continue
            for tb in t["rounds"][-1]["tables"]:
                if tb["bye"] or tb["game"] is None:
                    continue
                for name in tb["players"]:
                    if name not in skip:
                        moved += play_my_moves(clients[name], tb["game"], rng)
        if not moved:
            time.sleep(0.5)  # waiting for the worker: the next round, or the next season
    pytest.fail(f"season {number} did not end in {timeout}s")


def divisions(org, lid, n):
    return [[p["player"] for p in d["players"]] for d in org.get(f"/api/leagues/{lid}/seasons/{n}/").json()["divisions"]]


def test_it_runs_a_league_for_two_seasons_by_itself_with_the_worker(start_worker, broker, api, make_user):
    worker = start_worker(broker)
    users = [make_user(name) for name in NAMES]
    clients = {u.username: api(u) for u in users}
    org = clients["alice"]
    starts = timezone.now() + timedelta(seconds=15)
    r = org.post("/api/leagues/", {"name": "Worker league", "kind": "karenza", "division_size": 6, "promote": 2,
                                   "relegate": 2, "season_days": 7, "drop_limit": 1, "starts_at": starts.isoformat(),
                                   "clock": {"per_move": 3600, "on_timeout": "forfeit"}}, format="json")
    assert r.status_code == 201, r.json()
    lid = r.json()["id"]
    for name in NAMES[:14]:
        assert clients[name].post(f"/api/leagues/{lid}/signup/").status_code == 200
    wait_for(lambda: org.get(f"/api/leagues/{lid}/").json()["season"] == 1, "season 1 to start", timeout=60,
             on_fail=worker.dump)
    first = divisions(org, lid, 1)
    assert [len(d) for d in first] == [7, 7]
    dropped, gone = first[1][0], first[0][0]
    league = org.get(f"/api/leagues/{lid}/").json()
    assert clients[dropped].post(f"/api/tournaments/{league['table'][1]['tournament']}/withdraw/").status_code == 200
    assert clients[gone].post(f"/api/leagues/{lid}/leave/").status_code == 200
    for name in NAMES[14:]:
        assert clients[name].post(f"/api/leagues/{lid}/signup/").status_code == 200
    rng = Rng("league-clients")
    play_season(org, clients, lid, 1, rng, skip=(dropped, gone))

    season1 = org.get(f"/api/leagues/{lid}/seasons/1/").json()
    moves = [{p["player"]: p["move"] for p in d["players"]} for d in season1["divisions"]]
    up = [p for p, m in moves[1].items() if m == "up"]
    down = [p for p, m in moves[0].items() if m == "down"]
    assert len(up) == 2 and len(down) == 2
    assert moves[1][dropped] == "dropped" and moves[0][gone] == "left"
    second = divisions(org, lid, 2)
    assert [len(d) for d in second] == [7, 7]
    assert set(up) <= set(second[0]) and set(down) <= set(second[1])
    assert dropped not in second[0] + second[1] and gone not in second[0] + second[1]
    assert set(NAMES[14:]) <= set(second[1])  # new sign-ups start at the bottom

    play_season(org, clients, lid, 2, rng)
    season2 = org.get(f"/api/leagues/{lid}/seasons/2/").json()
    moves = [{p["player"]: p["move"] for p in d["players"]} for d in season2["divisions"]]
    third = divisions(org, lid, 3)
    assert {p for p, m in moves[1].items() if m == "up"} <= set(third[0])
    assert {p for p, m in moves[0].items() if m == "down"} <= set(third[1])

    live = org.get(f"/api/leagues/{lid}/").json()
    League.objects.filter(pk=lid).update(state={}, version=0, season=0)
    with open(os.devnull, "w") as quiet:
        call_command("rebuild_projections", stdout=quiet)
    again = org.get(f"/api/leagues/{lid}/").json()
    for key in ("season", "players", "next_season", "seasons"):
        assert again[key] == live[key]
    assert selectors.history(League.objects.get(pk=lid))[1] == season2
