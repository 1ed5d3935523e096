"""The organiser's correction of a pairing: two players of the current round swap seats
before anyone moved in their games, with a reason the history shows; refusals by the status
rule of docs/api.md; a rebuild from the stream gives the same tournament."""

import os

from django.core.management import call_command

from games.models import Game
from kinplay.notifications.models import Outbox
from kinplay.tournaments import emails, selectors, services
from kinplay.tournaments.models import Tournament, TournamentEvent, TournamentGame
from kinplay.tournaments.projections import verify
from tests.play import step
from tests.tournaments.conftest import run_to_end

REASON = "alice and bob are flatmates: they asked not to meet in round 1"


def _started(api, ps, **over):
    body = {"name": "Spring duel", "kind": "karenza", "format": "swiss", "rounds": 2, **over}
    tid = api(ps[0]).post("/api/tournaments/", body, format="json").json()["id"]
    for u in ps:
        api(u).post(f"/api/tournaments/{tid}/join/")
    return tid, api(ps[0]).post(f"/api/tournaments/{tid}/start/").json()


def _swap(client, tid, a, b, reason=REASON):
    return client.post(f"/api/tournaments/{tid}/swap/", {"players": [a, b], "reason": reason}, format="json")


def test_it_swaps_two_players_of_the_round_replacing_their_games_and_tells_them(api, players):
    ps = players(4)
    tid, t = _started(api, ps)
    (t0, t1) = t["rounds"][0]["tables"]
    a, b = t0["players"][0], t1["players"][1]
    t = _swap(api(ps[0]), tid, a, b).json()
    new0, new1 = t["rounds"][0]["tables"]
    assert new0["players"] == [b, t0["players"][1]] and new1["players"] == [t1["players"][0], a]
    assert {new0["game"], new1["game"]}.isdisjoint({t0["game"], t1["game"]})
    for old in (t0["game"], t1["game"]):
        game = api(ps[0]).get(f"/api/games/{old}/").json()
        assert game["status"] == "aborted" and game["called_off"]["reason"] == "repaired"
    for tb in (new0, new1):
        game = api(ps[0]).get(f"/api/games/{tb['game']}/").json()
        assert game["status"] == "active" and [s["name"] for s in game["seats"]] == tb["players"]
    links = dict(TournamentGame.objects.filter(tournament_id=tid).values_list("game_id", "table"))
    assert links == {new0["game"]: 0, new1["game"]: 1}
    (c,) = t["pairing_corrections"]
    assert c == {"round": 1, "players": [a, b], "tables": [0, 1], "reason": REASON, "by": "alice"}
    # Everyone at the two tables is told: their new game and why.
    rows = Outbox.objects.filter(kind=emails.PAIRING_CORRECTED)
    assert sorted(r.user.username for r in rows) == sorted(new0["players"] + new1["players"])
    mail = emails.compose(rows.get(user__username=a))
    assert REASON in mail.body and f"/games/{new1['game']}/" in mail.body and t1["players"][0] in mail.subject
    # The history on the tournament's page says so, with the reason.
    page = api().get(f"/tournaments/{tid}/").content.decode()
    assert f"{a} and {b} swapped seats" in page and REASON.replace("'", "&#x27;") in page
    # The round is then played on the new games, and a rebuild from the stream is the same.
    tour = run_to_end(Tournament.objects.get(pk=tid))
    assert tour.status == "finished"
    live = selectors.tournament_for(tour)
    assert live["rounds"][0]["tables"][0]["result"]
    Tournament.objects.filter(pk=tid).update(state={}, state_version=0, status="open", round_ends_at=None)
    TournamentGame.objects.filter(tournament_id=tid).delete()
    call_command("rebuild_projections", stdout=open(os.devnull, "w"))
    tour = Tournament.objects.get(pk=tid)
    assert selectors.tournament_for(tour) == live and verify(tour) == []
    assert set(TournamentGame.objects.filter(tournament_id=tid, round=1).values_list("game_id", flat=True)) == {
        new0["game"], new1["game"]}


def test_it_swaps_a_player_with_the_bye(api, players):
    ps = players(3)
    tid, t = _started(api, ps)
    game_t, bye_t = t["rounds"][0]["tables"]
    assert bye_t["bye"]
    t = _swap(api(ps[0]), tid, game_t["players"][0], bye_t["players"][0]).json()
    now_game, now_bye = t["rounds"][0]["tables"]
    assert now_game["players"] == [bye_t["players"][0], game_t["players"][1]] and now_game["game"] != game_t["game"]
    assert now_bye == dict(bye_t, players=[game_t["players"][0]])
    mail = emails.compose(Outbox.objects.get(kind=emails.PAIRING_CORRECTED, user__username=game_t["players"][0]))
    assert "you now have a bye" in mail.subject
    # Who withdrew (here: on the bye) cannot be seated again.
    gone = next(u for u in ps if u.username == game_t["players"][0])
    services.withdraw(tid, gone)
    r = _swap(api(ps[0]), tid, game_t["players"][0], now_game["players"][1])
    assert r.status_code == 409 and "has withdrawn" in r.json()["detail"]


def test_it_refuses_bad_corrections_by_the_status_rule_and_stores_nothing(api, players):
    ps = players(4)
    tid, t = _started(api, ps)
    (t0, t1) = t["rounds"][0]["tables"]
    a, b = t0["players"][0], t1["players"][0]
    events = TournamentEvent.objects.filter(tournament_id=tid).count()

    def refused(client, status, detail, *body):
        r = _swap(client, tid, *body) if body else client.post(f"/api/tournaments/{tid}/swap/", {"players": [a]}, format="json")
        assert r.status_code == status, r.json()
        assert detail in r.json()["detail"]

    refused(api(ps[0]), 400, "players")  # the schema: two players and a reason
    refused(api(ps[1]), 403, "Only the organiser", a, b)
    refused(api(ps[0]), 422, "sit at the same table", t0["players"][0], t0["players"][1])
    refused(api(ps[0]), 422, "nobody does not play in round 1", a, "nobody")
    step(Game.objects.get(pk=t1["game"]))  # a move in table 2's game: its pairing is fixed now
    refused(api(ps[0]), 409, "A move was made in this game", a, b)
    assert TournamentEvent.objects.filter(tournament_id=tid).count() == events
    assert Game.objects.get(pk=t0["game"]).status == Game.ACTIVE, "the refused swap left table 1's game alone"
    robin = api(ps[0]).post("/api/tournaments/", {"name": "RR", "kind": "karenza", "format": "round_robin"}, format="json").json()
    for u in ps:
        api(u).post(f"/api/tournaments/{robin['id']}/join/")
    api(ps[0]).post(f"/api/tournaments/{robin['id']}/start/")
    r = _swap(api(ps[0]), robin["id"], a, b)
    assert r.status_code == 409 and "running Swiss only" in r.json()["detail"]
    services.cancel(tid, ps[0])
    r = _swap(api(ps[0]), tid, a, b)
    assert r.status_code == 409 and "running Swiss only" in r.json()["detail"]
