"""GET /api/tournaments/{id}/trf/: a duel tournament as a FIDE TRF-16 file, and the pairing
numbers (seeds) the file and the API share."""

from kinplay.tournaments import services
from kinplay.tournaments.models import Tournament
from tests.tournaments.conftest import play_round


def create(client, **over):
    body = {"name": "Winter duel", "kind": "karenza", "format": "swiss", "rounds": 3, **over}
    return client.post("/api/tournaments/", body, format="json")


def cells(line: str) -> list[str]:
    """The round entries of a TRF player line (columns 92 on, ten characters each)."""
    rest = line[89:]
    return [rest[i + 2:i + 10] for i in range(0, len(rest), 10)]


def test_it_exports_a_duel_tournament_as_a_trf_anyone_can_download(api, alice, bob, charlie):
    tid = create(api(alice)).json()["id"]
    for u in (alice, bob, charlie):
        api(u).post(f"/api/tournaments/{tid}/join/")
    api(alice).post(f"/api/tournaments/{tid}/start/")
    play_round(Tournament.objects.get(pk=tid))
    services.sweep()  # the next round is paired (the round's game-over queued it)
    t = api().get(f"/api/tournaments/{tid}/").json()
    assert t["rounds"][0]["status"] == "finished"
    r = api().get(f"/api/tournaments/{tid}/trf/")
    assert r.status_code == 200 and r["Content-Type"].startswith("text/plain")
    lines = r.content.decode().splitlines()
    assert lines[0] == "012 Winter duel" and "XXR 3" in lines and "XXC white1" in lines
    rows = [ln for ln in lines if ln.startswith("001")]
    seed = {p["name"]: p["seed"] for p in t["players"]}
    assert sorted(seed.values()) == [1, 2, 3]
    assert [int(ln[4:8]) for ln in rows] == [1, 2, 3]
    assert [ln[14:47].strip() for ln in rows] == sorted(seed, key=seed.get)  # pairing number = seed
    round1 = {ln[14:47].strip(): cells(ln)[0] for ln in rows}
    bye = t["rounds"][0]["tables"][1]["players"][0]
    assert round1[bye] == "0000 - U"
    white, black = t["rounds"][0]["tables"][0]["players"]
    assert round1[white][:6] == f"{seed[black]:4d} w" and round1[black][:6] == f"{seed[white]:4d} b"
    # Points after the finished round: the bye's point and the game's (a running round is not written).
    assert {ln[14:47].strip(): float(ln[80:84]) for ln in rows}[bye] == 1.0
    assert sum(float(ln[80:84]) for ln in rows) == 2.0
    assert {s["seed"] for s in t["standings"]} == {1, 2, 3}
    page = api().get(f"/tournaments/{tid}/").content.decode()
    assert 'title="pairing number: 1 is the strongest">Seed</th>' in page
    assert all(f'<td class="num">{n}</td><td class="num"><strong>' in page for n in (1, 2, 3))


def test_it_has_no_trf_for_multiplayer_tables_nor_for_an_unknown_tournament(api, alice):
    tid = create(api(alice), kind="knonsters", table_size={"min": 3, "max": 4}).json()["id"]
    r = api().get(f"/api/tournaments/{tid}/trf/")
    assert r.status_code == 404 and r.json()["error"] == "not_found" and "two-player" in r.json()["detail"]
    assert api().get("/api/tournaments/999/trf/").status_code == 404
