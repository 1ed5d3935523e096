"""The league API and pages: shapes, every refusal a 400 with a reason and nothing stored."""

from datetime import timedelta

import pytest
from django.utils import timezone

from kinplay.leagues import services, stream
from kinplay.leagues.models import League, LeagueEvent
from kinplay.notifications.models import Outbox
from kinplay.notifications.services import compose
from tests.leagues.conftest import play_season


def create(client, **over):
    return client.post("/api/leagues/", {"name": "Duel League", "kind": "karenza", "division_size": 4, **over}, format="json")


def test_it_creates_signs_up_leaves_and_shows_a_league(api, alice, bob, charlie):
    r = create(api(alice), starts_at="2099-01-01T00:00:00Z")
    assert r.status_code == 201, r.json()
    league = r.json()
    assert league["status"] == "open" and league["organiser"] == "alice" and league["settings"]["format"] == "round_robin"
    lid = league["id"]
    assert api(bob).post(f"/api/leagues/{lid}/signup/").json()["next_season"] == ["bob"]
    assert api(charlie).post(f"/api/leagues/{lid}/signup/").json()["players"] == 2
    assert api(charlie).post(f"/api/leagues/{lid}/leave/").json()["next_season"] == ["bob"]
    assert [x["id"] for x in api().get("/api/leagues/").json()] == [lid]
    shown = api(bob).get(f"/api/leagues/{lid}/").json()
    assert shown["signed_up"] and shown["table"] == [] and shown["seasons"] == []
    assert api().get(f"/api/leagues/{lid}/seasons/1/").status_code == 404


@pytest.mark.parametrize("over, reason", [
    ({"kind": "chess"}, "Unknown kind"),
    ({"kind": "karenza", "format": "swiss", "division_size": 1}, "division_size must be a whole number from 2"),
    ({"kind": "knonsters", "format": "swiss", "table_size": {"min": 3, "max": 4}, "division_size": 2}, "too small"),
    ({"promote": 3, "relegate": 2}, "promote + relegate (3 + 2) cannot be more than a division (4 players)"),
    ({"placement": "random"}, "placement"),
    ({"season_days": 0}, "season_days"),
    ({"format": "knockout"}, "format"),
    ({"name": ""}, "name"),
    ({"starts_at": "2001-01-01T00:00:00Z"}, "starts_at must be in the future"),
])
def test_it_refuses_bad_leagues_with_the_reason(api, alice, over, reason):
    r = create(api(alice), **over)
    assert r.status_code == 400, r.json()
    body = r.json()
    assert set(body) >= {"error", "detail"} and reason in str(body), body
    assert not League.objects.exists()


def test_it_refuses_signing_up_twice_and_leaving_a_league_one_is_not_in(api, alice, bob):
    lid = create(api(alice)).json()["id"]
    assert api(bob).post(f"/api/leagues/{lid}/signup/").status_code == 200
    r = api(bob).post(f"/api/leagues/{lid}/signup/")
    assert r.status_code == 400 and "already signed up" in r.json()["detail"]
    r = api(alice).post(f"/api/leagues/{lid}/leave/")
    assert r.status_code == 400 and "not in this league" in r.json()["detail"]
    assert LeagueEvent.objects.filter(league_id=lid).count() == 2
    assert api().post(f"/api/leagues/{lid}/signup/").status_code in (401, 403)
    assert api(bob).post("/api/leagues/999999/signup/").status_code == 404


def test_it_shows_seasons_zones_and_histories(api, client, players):
    ps = players(8)
    alice = ps[0]
    league = services.create(organiser=alice, name="Ladder", kind="karenza", division_size=4, promote=1, relegate=1)
    for u in ps:
        services.sign_up(league.pk, u)
    services.sweep(now=timezone.now() + timedelta(days=8))
    data = api(alice).get(f"/api/leagues/{league.pk}/").json()
    assert data["season"] == 1 and [len(d["standings"]) for d in data["table"]] == [4, 4]
    zones = [[r["zone"] for r in d["standings"]] for d in data["table"]]
    assert zones[0].count("down") == 1 and zones[0].count("up") == 0
    assert zones[1].count("up") == 1 and zones[1].count("down") == 0
    # The season email names the division and the first game.
    row = Outbox.objects.filter(kind="league_season", user=ps[5]).get()
    msg = compose(row)
    assert "division 2" in msg.subject and f"/games/{row.game_id}/" in msg.body
    league = play_season(league, {u.pk: -i for i, u in enumerate(ps)})  # sign-up order is strength order
    season = api().get(f"/api/leagues/{league.pk}/seasons/1/").json()
    assert season["status"] == "finished"
    assert [p["move"] for p in season["divisions"][0]["players"]] == ["stay", "stay", "stay", "down"]
    assert [p["move"] for p in season["divisions"][1]["players"]] == ["up", "stay", "stay", "stay"]
    anonymous = client.get(f"/leagues/{league.pk}/")
    assert anonymous.status_code == 200 and "Sign in to sign up" in anonymous.content.decode()
    client.force_login(ps[4])
    page = client.get(f"/leagues/{league.pk}/").content.decode()
    assert "Season 2" in page and "Past seasons" in page and "▲" in page and "▼" in page and "Your path" in page
    assert "Ladder" in client.get("/leagues/").content.decode()
    assert "Ladder · S1" not in client.get("/tournaments/").content.decode()  # divisions live on the league page
    player_page = client.get(f"/players/{ps[4].username}/").content.decode()
    assert 'id="league-history"' in player_page and "S1 division 2" in player_page
    r = client.post(f"/leagues/{league.pk}/leave/", follow=True)
    assert "You have left the league" in r.content.decode()
    league.refresh_from_db()
    assert league.state["members"][str(ps[4].pk)]["status"] == stream.LEFT


def test_it_plans_divisions_sensibly():
    assert stream.division_sizes(14, 6, 2) == [7, 7]
    assert stream.division_sizes(15, 6, 2) == [6, 6, 3]
    assert stream.division_sizes(12, 6, 2) == [6, 6]
    assert stream.division_sizes(1, 6, 2) == []
    assert stream.division_sizes(4, 6, 2) == [4]
    # A division short of players takes the best stayer of the one below, not a relegated player.
    tiers = [{"stay": [1, 2], "arrivals": [9]}, {"stay": [3, 4, 5], "arrivals": [6]}]
    assert stream.plan_divisions(tiers, [4, 3]) == [[1, 2, 3, 9], [4, 5, 6]]
    # Too many: the lowest stayer goes down.
    tiers = [{"stay": [1, 2, 3, 4], "arrivals": [9]}, {"stay": [5], "arrivals": []}]
    assert stream.plan_divisions(tiers, [4, 2]) == [[1, 2, 3, 9], [4, 5]]


def test_it_lists_no_league_politely(client, alice):
    assert "No league yet" in client.get("/leagues/").content.decode()
    client.force_login(alice)
    assert 'id="league-history"' not in client.get("/players/alice/").content.decode()
    assert client.get("/leagues/999999/").status_code == 404
