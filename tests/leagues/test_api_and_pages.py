"""The league API and pages: shapes, every refusal a 400 with a reason and nothing stored."""

from datetime import timedelta

import pytest
from django.utils import timezone

from kinplay.leagues import selectors, services, stream
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


@pytest.mark.parametrize("over, status, reason", [  # 400: the schema says no; 422: settings that do not fit together
    ({"kind": "chess"}, 400, "Unknown kind"),
    ({"kind": "karenza", "format": "swiss", "division_size": 1}, 400, "division_size: Ensure this value is greater than or equal to 2"),
    ({"kind": "knonsters", "format": "swiss", "table_size": {"min": 3, "max": 4}, "division_size": 2}, 422, "too small"),
    ({"promote": 3, "relegate": 2}, 422, "promote + relegate (3 + 2) cannot be more than a division (4 players)"),
    ({"placement": "random"}, 400, "placement"),
    ({"season_days": 0}, 400, "season_days"),
    ({"format": "knockout"}, 400, "format"),
    ({"name": ""}, 400, "name"),
    ({"starts_at": "2001-01-01T00:00:00Z"}, 422, "starts_at must be in the future"),
    ({"clock": {"per_move": 10**9}}, 400, "clock.per_move: Ensure this value is less than or equal to 7776000."),
    ({"division_size": 40, "season_days": 1}, 422, "season_days 1 is too short: a division of up to 59 players plays 59 rounds"),
])
def test_it_refuses_bad_leagues_with_the_reason(api, alice, over, status, reason):
    r = create(api(alice), **over)
    assert r.status_code == status, r.json()
    body = r.json()
    assert set(body) >= {"error", "detail"} and reason in str(body), body
    assert not League.objects.exists()


def test_it_refuses_signing_up_twice_and_leaving_a_league_one_is_not_in(api, alice, bob):
    lid = create(api(alice)).json()["id"]
    assert api(bob).post(f"/api/leagues/{lid}/signup/").status_code == 200
    r = api(bob).post(f"/api/leagues/{lid}/signup/")
    assert r.status_code == 409 and "already signed up" in r.json()["detail"]
    r = api(alice).post(f"/api/leagues/{lid}/leave/")
    assert r.status_code == 409 and "not in this league" in r.json()["detail"]
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


def test_it_shows_a_season_one_left_as_left_on_the_paths(client, players):
    ps = players(4)
    alice, bob = ps[:2]
    league = services.create(organiser=alice, name="Ladder", kind="karenza", division_size=4)
    for u in ps:
        services.sign_up(league.pk, u)
    services.sweep(now=timezone.now() + timedelta(days=8))
    services.leave(league.pk, bob)
    services.sign_up(league.pk, bob)
    play_season(league, {u.pk: i for i, u in enumerate(ps)})
    client.force_login(bob)
    page = client.get(f"/leagues/{league.pk}/").content.decode()
    assert 'S1: division 1 <span class="muted">left</span>' in page  # "Your path"
    player_page = client.get("/players/bob/").content.decode()
    assert 'S1 division 1 <span class="muted">left</span>' in player_page


def test_it_documents_when_the_first_season_starts_as_it_does(api, alice):
    league = api(alice).post("/api/leagues/", {"name": "Patient", "kind": "karenza"}, format="json").json()
    starts = timezone.datetime.fromisoformat(league["starts_at"])
    assert timedelta(days=6, hours=23) < starts - timezone.now() <= timedelta(days=7)  # docs/tournaments.md#leagues: a week after creation
    schema = api(alice).get("/api/schema/?format=json").json()
    doc = schema["components"]["schemas"]["CreateLeague"]["properties"]["starts_at"]["description"]
    assert "a week after creation" in doc and "default now" not in doc


def test_it_lists_leagues_as_its_schema_says(api, alice):
    create(api(alice))
    schema = api().get("/api/schema/?format=json").json()
    listed = schema["paths"]["/api/leagues/"]["get"]["responses"]["200"]["content"]["application/json"]["schema"]
    row = schema["components"]["schemas"][listed["items"]["$ref"].split("/")[-1]]
    (league,) = api().get("/api/leagues/").json()
    assert set(row["required"]) <= set(league) <= set(row["properties"])


def test_it_writes_a_seasons_days_as_a_person_would(api, client, alice):
    for days, said in ((14, "14 days a season"), (10.5, "10.5 days a season")):
        lid = api(alice).post("/api/leagues/", {"name": f"Every {days}", "kind": "karenza", "season_days": days},
                              format="json").json()["id"]
        page = client.get(f"/leagues/{lid}/").content.decode()
        assert said in page and ".0 days" not in page


def test_it_asks_before_a_player_leaves_the_league(client, players):
    import html

    ps = players(4)
    league = services.create(organiser=ps[0], name="Ladder", kind="karenza", division_size=4)
    services.sign_up(league.pk, ps[1])
    client.force_login(ps[1])
    page = html.unescape(client.get(f"/leagues/{league.pk}/").content.decode())
    assert 'data-confirm="Leave Ladder?"' in page  # waiting for the first season: nothing more to lose
    for u in ps[2:] + ps[:1]:
        services.sign_up(league.pk, u)
    services.sweep(now=timezone.now() + timedelta(days=8))
    page = html.unescape(client.get(f"/leagues/{league.pk}/").content.decode())
    assert ('data-confirm="Leave Ladder? You withdraw from your division this season, and a game of yours still running '
            'is resigned."' in page)


def test_it_shows_when_a_past_season_ended_not_when_it_was_planned_to(api, client, players, time_machine):
    time_machine.move_to(timezone.now(), tick=False)
    ps = players(4)
    league = services.create(organiser=ps[0], name="Ladder", kind="karenza", division_size=4, season_days=28)
    for u in ps:
        services.sign_up(league.pk, u)
    services.sweep(now=timezone.now() + timedelta(days=8))
    league = play_season(league, {u.pk: -i for i, u in enumerate(ps)})  # over in minutes, planned for four weeks
    season = api().get(f"/api/leagues/{league.pk}/seasons/1/").json()
    assert season["status"] == "finished" and season["ended_at"][:10] == timezone.now().date().isoformat()
    assert season["ends_at"][:10] != season["ended_at"][:10]
    assert api().get(f"/api/leagues/{league.pk}/").json()["seasons"][0]["ended_at"] == season["ended_at"]
    page = client.get(f"/leagues/{league.pk}/").content.decode()
    assert f"{season['starts_at'][:10]} – {season['ended_at'][:10]}" in page and season["ends_at"][:10] not in page
    older = League.objects.get(pk=league.pk)
    del older.state["seasons"][0]["ended_at"]  # a season finished before its event said when: the event's time
    assert selectors.ended_at(older) == {1: LeagueEvent.objects.get(league=league, type="season_finished").at.isoformat()}


def test_it_shows_a_deactivated_player_in_the_league_table_without_a_link(client, players):
    ps = players(4)
    league = services.create(organiser=ps[0], name="Ladder", kind="karenza", division_size=4)
    for u in ps:
        services.sign_up(league.pk, u)
    services.sweep(now=timezone.now() + timedelta(days=8))
    client.force_login(ps[0])
    assert 'href="/players/bob/"' in client.get(f"/leagues/{league.pk}/").content.decode()
    ps[1].is_active = False
    ps[1].save()
    page = client.get(f"/leagues/{league.pk}/").content.decode()
    assert ">bob<" in page and "/players/bob/" not in page and 'href="/players/alice/"' in page
