"""The API as someone writing their own client or bot meets it: the schema and the error
bodies say what to send and what went wrong, without reading kinplay's code."""

import pytest

from api import errors
from games.engine import IllegalAction
from games.models import Event
from tests.api.test_games_api import create

pytestmark = pytest.mark.django_db


def _schema(api):
    return api().get("/api/schema/?format=json").json()["components"]["schemas"]


def test_it_says_an_expected_version_ahead_of_the_game_is_the_client_s_not_a_race(api, alice, bob):
    game = create(api(alice)).json()
    move = game["legal_actions"][0]["action"]
    r = api(alice).post(f"/api/games/{game['id']}/actions/", {"action": move, "expected_version": game["version"] + 1},
                        format="json")
    assert r.status_code == 409 and r.json()["version"] == game["version"]
    assert "moved first" not in r.json()["detail"] and str(game["version"] + 1) in r.json()["detail"]
    assert Event.objects.filter(game_id=game["id"]).count() == game["version"]


def test_it_names_the_field_a_game_does_not_know_rather_than_blame_the_move(api, alice, bob):
    game = create(api(alice)).json()  # Knonsters: both players choose their favourites first
    move = game["legal_actions"][0]["action"]
    r = api(alice).post(f"/api/games/{game['id']}/actions/", {"action": {**move, "confidence": 0.9}}, format="json")
    assert r.status_code == 409 and r.json()["error"] == "illegal_action"
    detail = r.json()["detail"]
    assert "confidence" in detail and all(field in detail for field in move if field != "type")
    assert Event.objects.filter(game_id=game["id"]).count() == game["version"]
    assert api(alice).post(f"/api/games/{game['id']}/actions/", {"action": move}, format="json").status_code == 201


def test_it_keeps_a_game_s_own_reason_for_a_move_with_the_right_fields(api, alice, bob):
    game = create(api(alice)).json()
    move = game["legal_actions"][0]["action"]
    same_twice = {**move, "knonsters": [move["knonsters"][0]] * 2}
    r = api(alice).post(f"/api/games/{game['id']}/actions/", {"action": same_twice}, format="json")
    assert r.status_code == 409 and r.json()["detail"] == "Choose two different Knonsters."


def test_it_documents_every_error_code_a_client_can_get(api):
    """A client branches on `error`: each code the API answers with is in the schema's list."""
    from django.core.exceptions import RequestDataTooBig
    from django.http import Http404
    from rest_framework import exceptions

    from api.parsers import TooLarge
    from games.chat import ChatRefused
    from games.services import BadRequest, IdempotencyKeyReused, NotYourSeat
    from games.store import VersionConflict

    raised = [IllegalAction("x"), BadRequest("x"), ChatRefused("x"), IdempotencyKeyReused("x"), RequestDataTooBig(),
              NotYourSeat(), VersionConflict(3), Http404(), exceptions.APIException(), TooLarge()]
    raised += [cls("x") if cls is not exceptions.MethodNotAllowed else cls("PUT") for cls in errors.CODES
               if cls not in (exceptions.Throttled, exceptions.UnsupportedMediaType, TooLarge)]
    raised += [exceptions.Throttled(3), exceptions.UnsupportedMediaType("text/plain")]
    codes = {errors.handler(exc, {}).data["error"] for exc in raised}
    codes |= {"server_error", "unavailable", "throttled", "trailing_slash"}  # the JSON 500 and 503; the sign-in lockout's 429; kinplay.middleware
    described = _schema(api)["ErrorOut"]["properties"]["error"]["description"]
    assert {code for code in codes if f"`{code}`" not in described} == set()


def test_it_documents_the_three_ways_to_fill_a_seat(api):
    seats = _schema(api)["CreateGame"]["properties"]["seats"]
    text = seats.get("description", "")
    assert '"user"' in text and '"bot"' in text and "{}" in text and "random" in text and "heuristic" in text


@pytest.mark.parametrize("name", ["GameOut", "EventOut", "ActionResultOut"])
def test_it_describes_every_field_a_bot_reads(api, name):
    component = _schema(api)[name]["properties"]
    undescribed = {field for field, spec in component.items() if "description" not in spec}
    assert undescribed == set()


@pytest.mark.parametrize("header", ["Bearer 0123abcd", "0123abcd"])
def test_it_tells_a_client_with_another_authorization_scheme_how_to_send_its_token(api, header):
    c = api()
    c.credentials(HTTP_AUTHORIZATION=header)
    r = c.get("/api/games/")
    assert r.status_code == 401 and "Authorization: Token <key>" in r.json()["detail"]
    assert "0123abcd" not in r.json()["detail"]  # a credential is never echoed


def test_it_says_which_content_type_to_send(api, alice):
    r = api(alice).post("/api/games/", '{"kind": "knonsters"}', content_type="text/plain")
    assert r.status_code == 415 and "Content-Type: application/json" in r.json()["detail"]


def test_it_says_on_the_docs_page_how_to_sign_in_and_play_a_move(api):
    """/api/docs/ is all some client authors read: its introduction gives the loop."""
    intro = api().get("/api/schema/?format=json").json()["info"]["description"]
    for needed in ("POST /api/accounts/token/", "Authorization: Token", "legal_actions", "expected_version",
                   "Idempotency-Key", "409", "?my_turn=true", "ErrorOut"):
        assert needed in intro, needed


def test_it_answers_a_retried_resignation_as_the_first_like_a_retried_move(api, alice, bob):
    game = create(api(alice)).json()
    url = f"/api/games/{game['id']}/resign/"
    first = api(alice).post(f"{url}?view=none", format="json", HTTP_IDEMPOTENCY_KEY="resign-1")
    assert first.status_code == 201 and set(first.json()) == {"version", "events"}
    again = api(alice).post(f"{url}?view=none", format="json", HTTP_IDEMPOTENCY_KEY="resign-1")
    assert again.status_code == 201 and again.json() == first.json()
    assert Event.objects.filter(game_id=game["id"], type="resigned").count() == 1
    assert api(alice).post(url, format="json", HTTP_IDEMPOTENCY_KEY="k" * 129).status_code == 400


def test_it_words_a_body_level_refusal_without_drf_s_field_name(api, alice, bob):
    game = create(api(alice)).json()
    r = api(alice).post(f"/api/games/{game['id']}/actions/", {}, format="json")
    assert r.status_code == 422 and r.json()["detail"] == "Send exactly one of “action” or “notation”."
    r = api(alice).post("/api/games/", {"kind": "knonsters", "seats": [{}, {}], "clock": 5}, format="json")
    assert r.status_code == 400 and r.json()["detail"].startswith("clock: ") and "non_field_errors" not in r.json()["detail"]


def test_it_describes_every_filter_of_the_game_list(api):
    schema = api().get("/api/schema/?format=json").json()
    parameters = schema["paths"]["/api/games/"]["get"]["parameters"]
    assert {p["name"] for p in parameters if not p.get("description")} == set()
