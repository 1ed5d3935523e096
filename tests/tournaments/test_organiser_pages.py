"""Organising a tournament on the site: every setting the API takes, checked as the API checks it,
and only the organiser manages it."""

import re
from datetime import timedelta

from django.test import Client
from django.utils import timezone
from rest_framework import serializers

from api.tournaments import CreateTournament
from kinplay.tournaments import services
from kinplay.tournaments.forms import TOURNAMENT
from kinplay.tournaments.models import Tournament, TournamentEvent
from kinplay.web.organise import Spec
from tests.pages import api_fields, client_for

# A multiplayer Swiss with every setting away from its default, as the form posts it and as the API takes it.
FORM = {"name": "Spring cup", "kind": "knonsters", "format": "swiss", "rounds": "4", "best_of": "1",
        "table_size-min": "3", "table_size-max": "4", "points": "5, 3, 1, 0", "clock-per_move": "86400",
        "clock-on_timeout": "bot", "round_days": "2.5", "min_players": "5", "max_players": "12",
        "max_timeouts": "3", "opt-knonsters-win_bet": "on"}
API = {"name": "Spring cup", "kind": "knonsters", "format": "swiss", "rounds": 4, "table_size": {"min": 3, "max": 4},
       "points": [5, 3, 1, 0], "clock": {"per_move": 86400, "on_timeout": "bot"}, "round_days": 2.5,
       "min_players": 5, "max_players": 12, "max_timeouts": 3, "rated": False,
       "options": {"win_bet": True, "superpowers": False}}


def test_it_offers_every_setting_the_api_takes(alice):
    page = client_for(alice).get("/tournaments/new/").content.decode()
    for name in api_fields(CreateTournament()):
        if name != "options":  # the game's own options, below: one input per option of the chosen game
            assert f'name="{name.replace(".", "-")}"' in page, name
    assert 'name="opt-knonsters-win_bet"' in page and 'name="opt-kenta-colors-0"' in page
    assert '<option value="bot">A bot plays for them</option>' in page  # bots: where the API has them, for late moves


def test_it_creates_from_the_form_the_tournament_the_api_creates_from_the_same_settings(alice, api):
    r = client_for(alice).post("/tournaments/new/", FORM)
    web = Tournament.objects.get()
    assert r.status_code == 302 and r["Location"] == f"/tournaments/{web.pk}/"
    created = api(alice).post("/api/tournaments/", API, format="json")
    assert created.status_code == 201
    by_api = Tournament.objects.get(pk=created.json()["id"])
    assert web.organiser == alice and web.state["config"] == by_api.state["config"]
    assert web.state["options"] == by_api.state["options"] and web.state["options"]["win_bet"] is True
    assert web.state["config"]["clock"] == {"per_move": 86400, "on_timeout": "bot"}  # a bot plays a late move


def test_it_leaves_an_empty_setting_to_the_service_default_and_takes_no_clock(alice, api):
    r = client_for(alice).post("/tournaments/new/", {"name": "Friday", "kind": "karenza", "format": "round_robin",
                                                     "double": "on", "clock-per_move": "none", "rated": "on"})
    assert r.status_code == 302
    same = api(alice).post("/api/tournaments/", {"name": "Friday", "kind": "karenza", "format": "round_robin",
                                                 "double": True, "clock": {"per_move": None}}, format="json").json()
    web, by_api = Tournament.objects.order_by("pk")
    assert same["id"] == by_api.pk and web.state["config"] == by_api.state["config"]
    assert web.state["config"]["clock"]["per_move"] is None and web.state["config"]["double"] is True


def test_it_starts_at_the_time_given(alice):
    when = (timezone.now() + timedelta(days=3)).replace(second=0, microsecond=0)
    client_for(alice).post("/tournaments/new/", {**FORM, "starts_at": when.strftime("%Y-%m-%dT%H:%M")})
    assert Tournament.objects.get().starts_at == when


def test_it_says_beside_the_field_what_the_api_says_and_stores_nothing(alice):
    r = client_for(alice).post("/tournaments/new/", {**FORM, "max_players": "3", "rounds": "lots", "points": "5, x"})
    page = r.content.decode()
    assert r.status_code == 400 and not Tournament.objects.exists()
    assert re.search(r'id="id_rounds" value="lots"[^>]*aria-invalid="true" aria-describedby="rounds-errors"', page)
    assert '<ul class="field-errors" id="rounds-errors"><li>A valid integer is required.</li></ul>' in page
    assert '<ul class="field-errors" id="points-errors"><li>item 2: A valid number is required.</li></ul>' in page
    assert 'Check <a href="#id_rounds">Rounds</a>, <a href="#id_points">Points by place</a>' in page
    # The serializer passes, the service refuses: its reason goes beside the setting it names.
    r = client_for(alice).post("/tournaments/new/", {**FORM, "max_players": "3"})
    page = r.content.decode()
    assert r.status_code == 400 and not Tournament.objects.exists()
    assert '<ul class="field-errors" id="max_players-errors"><li>Most players must be a whole number from 5 to 5000.</li></ul>' in page
    assert 'value="5, 3, 1, 0"' in page and 'name="opt-knonsters-win_bet" checked' in page  # what was typed stays


def test_it_says_a_refusal_about_several_settings_above_the_form(alice):
    r = client_for(alice).post("/tournaments/new/", {**FORM, "format": "round_robin", "rounds": ""})
    assert r.status_code == 400 and not Tournament.objects.exists()
    assert re.search(r'<div class="form-error" role="alert" id="form-error">\s*<strong>The tournament could not be created.</strong>\s*'
                     r'<p>Round robin is for duels', r.content.decode())


def test_it_shows_a_setting_added_to_the_api_on_the_form_and_passes_it_on(alice, rf, monkeypatch):
    from kinplay.web import organise

    class WithByePoints(CreateTournament):
        bye_points = serializers.FloatField(required=False, allow_null=True, min_value=0, help_text="points for a bye")

    got = {}

    def create(**settings):
        got.update(settings)
        raise services.TournamentError("bye_points must be at most 1.")

    spec = Spec(WithByePoints, TOURNAMENT.labels, TOURNAMENT.sections, TOURNAMENT.help, TOURNAMENT.choices,
                TOURNAMENT.initial, TOURNAMENT.durations)
    request = rf.post("/tournaments/new/", {**FORM, "bye_points": "1.5"})
    request.user = alice
    page = organise.page(request, spec, create, "tournaments/new.html", lambda row: None).content.decode()
    assert got["bye_points"] == 1.5
    assert "<legend>More settings</legend>" in page and '<label for="id_bye_points">Bye points</label>' in page
    assert "points for a bye" in page and "Bye points must be at most 1." in page


def test_it_lets_only_a_signed_in_player_organise_and_checks_the_csrf_token(alice):
    assert Client().get("/tournaments/new/")["Location"] == "/login/?next=/tournaments/new/"
    assert Client().post("/tournaments/new/", FORM).status_code == 302 and not Tournament.objects.exists()
    guarded = Client(enforce_csrf_checks=True)
    guarded.force_login(alice)
    assert guarded.post("/tournaments/new/", FORM).status_code == 403 and not Tournament.objects.exists()


def test_it_gives_the_organiser_alone_the_buttons_that_manage_it(players):
    alice, bob, charlie = players(3)
    t = services.create(organiser=alice, name="Club night", kind="karenza", format="swiss")
    for u in (alice, bob, charlie):
        services.join(t.pk, u)
    mine, theirs = client_for(alice).get(f"/tournaments/{t.pk}/").content.decode(), client_for(bob).get(f"/tournaments/{t.pk}/").content.decode()
    for action in ("start", "cancel"):
        assert f'action="/tournaments/{t.pk}/{action}/"' in mine and f'action="/tournaments/{t.pk}/{action}/"' not in theirs
    events = TournamentEvent.objects.filter(tournament=t).count()
    for action in ("start", "cancel"):
        r = client_for(bob).post(f"/tournaments/{t.pk}/{action}/", follow=True)
        assert f"Only the organiser can {action} this tournament." in r.content.decode()
    assert TournamentEvent.objects.filter(tournament=t).count() == events and Tournament.objects.get().status == "open"
    assert client_for(bob).get(f"/tournaments/{t.pk}/start/").status_code == 405
    r = client_for(alice).post(f"/tournaments/{t.pk}/start/", follow=True)
    assert "The tournament has started" in r.content.decode() and Tournament.objects.get().status == "running"
    r = client_for(alice).post(f"/tournaments/{t.pk}/cancel/", follow=True)
    assert "The tournament is cancelled" in r.content.decode() and Tournament.objects.get().status == "cancelled"
