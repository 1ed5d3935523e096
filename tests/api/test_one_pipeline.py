"""One request pipeline: a move goes through Django's middleware (settings.MIDDLEWARE) and DRF's
dispatch like every other request; /api/ passes by only what the pages alone need."""

from unittest import mock

import pytest
from django.contrib.messages.middleware import MessageMiddleware
from rest_framework.views import APIView
from whitenoise.middleware import WhiteNoiseMiddleware

from games import services

pytestmark = pytest.mark.django_db


def spy(cls, name):
    return mock.patch.object(cls, name, autospec=True, side_effect=getattr(cls, name))


@pytest.fixture
def game(alice):
    return services.create_game(creator=alice, kind="knonsters", per_move=None, seats=[{"user": "alice"}, {"bot": "random"}])


def test_it_runs_a_move_through_django_s_middleware_and_drf_s_dispatch(api, alice, game):
    client = api(alice)
    body = client.get(f"/api/games/{game.pk}/").json()
    with spy(APIView, "initial") as initial, spy(APIView, "dispatch") as dispatch:
        answer = client.post(f"/api/games/{game.pk}/actions/", {"action": body["legal_actions"][0]["action"],
                                                               "expected_version": body["version"]}, format="json")
    assert answer.status_code == 201 and answer.json()["game"]["version"] > body["version"]
    assert initial.call_count == 1 and dispatch.call_count == 1  # DRF: authentication, throttles, then the view
    assert answer["X-Frame-Options"] == "DENY"  # XFrameOptionsMiddleware
    assert answer["X-Content-Type-Options"] == "nosniff" and answer["Cross-Origin-Opener-Policy"] == "same-origin"  # SecurityMiddleware
    assert answer["Content-Length"] == str(len(answer.content))  # CommonMiddleware (SlashFirst)


def test_it_answers_a_refused_move_by_drf_s_dispatch(api, game):
    with spy(APIView, "dispatch") as dispatch:
        answer = api().post(f"/api/games/{game.pk}/actions/", {"action": {}}, format="json",
                            HTTP_AUTHORIZATION="Token nope")
    assert answer.status_code == 401 and answer.json()["error"] == "not_authenticated" and dispatch.call_count == 1


def test_it_leaves_out_the_pages_middleware_for_the_api(api, alice):
    with spy(MessageMiddleware, "process_request") as messages, spy(WhiteNoiseMiddleware, "__call__") as static:
        answer = api(alice).get("/api/kinds/")
    assert answer.status_code == 200 and answer["X-Frame-Options"] == "DENY"
    assert messages.call_count == 0 and static.call_count == 0


def test_it_keeps_the_pages_middleware_for_the_pages(client):
    with spy(MessageMiddleware, "process_request") as messages, spy(WhiteNoiseMiddleware, "__call__") as static:
        answer = client.get("/login/")
    assert answer.status_code == 200 and answer["X-Frame-Options"] == "DENY"
    assert messages.call_count == 1 and static.call_count == 1


def test_it_redirects_a_page_without_its_final_slash_as_django_does(client):
    answer = client.get("/login")
    assert answer.status_code == 301 and answer["Location"] == "/login/"


def test_it_sets_the_csrf_cookie_the_api_docs_page_needs(client):
    answer = client.get("/api/docs/")
    assert answer.status_code == 200 and "csrftoken" in answer.cookies
