"""Organising a league on the site: every setting the API takes, checked as the API checks it;
the season's end on the league's page."""

import re

from django.test import Client

from api.leagues import CreateLeague
from kinplay.leagues import services
from kinplay.leagues.models import League
from tests.pages import api_fields, client_for

FORM = {"name": "Winter league", "kind": "kinapa", "format": "swiss", "division_size": "8", "season_days": "21",
        "promote": "2", "relegate": "2", "drop_limit": "2", "placement": "rating", "rounds": "5",
        "table_size-min": "3", "table_size-max": "4", "points": "3, 2, 1, 0", "clock-per_move": "172800",
        "clock-on_timeout": "skip", "rated": "on", "opt-kinapa-round_limit": "12"}
API = {"name": "Winter league", "kind": "kinapa", "format": "swiss", "division_size": 8, "season_days": 21,
       "promote": 2, "relegate": 2, "drop_limit": 2, "placement": "rating", "rounds": 5,
       "table_size": {"min": 3, "max": 4}, "points": [3, 2, 1, 0], "clock": {"per_move": 172800, "on_timeout": "skip"},
       "rated": True, "options": {"round_limit": 12}}


def test_it_offers_every_setting_the_api_takes(alice):
    page = client_for(alice).get("/leagues/new/").content.decode()
    for name in api_fields(CreateLeague()):
        if name != "options":
            assert f'name="{name.replace(".", "-")}"' in page, name
    assert 'name="opt-kinapa-round_limit"' in page
    assert 'href="/leagues/new/"' in client_for(alice).get("/leagues/").content.decode()


def test_it_creates_from_the_form_the_league_the_api_creates_from_the_same_settings(alice, api):
    r = client_for(alice).post("/leagues/new/", FORM, follow=True)
    web = League.objects.get()
    assert r.redirect_chain == [(f"/leagues/{web.pk}/", 302)] and "is open for sign-ups" in r.content.decode()
    created = api(alice).post("/api/leagues/", API, format="json")
    assert created.status_code == 201
    by_api = League.objects.get(pk=created.json()["id"])
    assert web.organiser == alice and web.state["config"] == by_api.state["config"]
    assert web.state["options"] == by_api.state["options"] and web.state["options"]["round_limit"] == 12


def test_it_says_beside_the_field_why_the_league_is_refused_and_stores_nothing(alice):
    r = client_for(alice).post("/leagues/new/", {**FORM, "division_size": "4", "promote": "3"})
    page = r.content.decode()
    assert r.status_code == 400 and not League.objects.exists()
    assert re.search(r'<ul class="field-errors" id="promote-errors"><li>promote \+ relegate \(3 \+ 2\) cannot be more than a '
                     r'division \(4 players\).</li></ul>', page)
    r = client_for(alice).post("/leagues/new/", {**FORM, "season_days": "0"})
    assert r.status_code == 400 and re.search(r'id="season_days-errors"><li>Ensure this value is greater than or equal to 1.',
                                               r.content.decode())  # the API's schema bound, beside its field
    r = client_for(alice).post("/leagues/new/", {**FORM, "placement": "top"})
    assert r.status_code == 400 and "&quot;top&quot; is not a valid choice." in r.content.decode()
    assert not League.objects.exists()


def test_it_lets_only_a_signed_in_player_organise_and_checks_the_csrf_token(alice):
    assert Client().get("/leagues/new/")["Location"] == "/login/?next=/leagues/new/"
    assert Client().post("/leagues/new/", FORM).status_code == 302 and not League.objects.exists()
    guarded = Client(enforce_csrf_checks=True)
    guarded.force_login(alice)
    assert guarded.post("/leagues/new/", FORM).status_code == 403 and not League.objects.exists()


def test_it_shows_when_the_running_season_ends(players, time_machine):
    from datetime import UTC, datetime

    time_machine.move_to(datetime(2026, 11, 25, 7, 21, tzinfo=UTC), tick=False)
    ps = players(4)
    league = services.create(organiser=ps[0], name="Ladder", kind="karenza", division_size=4, season_days=28)
    for u in ps:
        services.sign_up(league.pk, u)
    before = client_for(ps[1]).get(f"/leagues/{league.pk}/").content.decode()
    assert "First season starts 2 Dec 2026 07:21 UTC" in before and "· ends" not in before
    time_machine.move_to(datetime(2026, 12, 3, 7, 21, tzinfo=UTC), tick=False)
    services.sweep()
    ends = Client().get(f"/api/leagues/{league.pk}/").json()["seasons"][0]["ends_at"]
    assert ends.startswith("2026-12-31T07:21")  # 28 days after it started
    page = client_for(ps[1]).get(f"/leagues/{league.pk}/").content.decode()
    assert 'id="l-season">Season 1 · ends 31 Dec 2026 07:21 UTC</span>' in page
