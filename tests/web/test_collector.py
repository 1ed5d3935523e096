"""kinplay.server.RequestOnly frees the reference cycles requests leave behind (Django's
prefetch: each seat points to its game, the game to its seats; DRF's request, view and
response point to each other) once no request is in flight, not in a full collection in the
middle of a later request."""

import gc
import io
from wsgiref.util import setup_testing_defaults

import pytest

from tests.api.test_move_requests import _keep_the_test_connection, token  # noqa: F401 (a fixture)
from tests.web.test_heavy_player import more_games

pytestmark = pytest.mark.django_db


@pytest.fixture
def only_explicit_collections():
    """No automatic collection: what a request leaves behind stays there to be counted."""
    gc.disable()
    yield
    gc.enable()


def left_behind(app, user) -> int:
    """The objects that only the collector can free once ``app`` has answered the user's GET /api/games/."""
    environ = {"PATH_INFO": "/api/games/", "REQUEST_METHOD": "GET", "HTTP_HOST": "testserver",
               "SERVER_NAME": "testserver", "HTTP_AUTHORIZATION": token(user), "wsgi.input": io.BytesIO()}
    setup_testing_defaults(environ)
    statuses = []
    gc.collect()
    answer = app(environ, lambda status, headers, exc_info=None: statuses.append(status))
    b"".join(answer)
    if hasattr(answer, "close"):
        answer.close()
    del answer
    assert statuses == ["200 OK"]
    return gc.collect()


def test_it_frees_the_cycles_of_a_list_as_its_request_ends(tiny, alice, bob, only_explicit_collections):
    from kinplay.wsgi import application, django_app

    more_games(alice, bob, 10)
    left_behind(application, alice)  # the first request fills the process's caches
    assert left_behind(django_app, alice) > 100  # Django alone: the games' and the request's cycles
    assert left_behind(application, alice) == 0


def test_it_collects_only_when_the_last_request_in_flight_ends(only_explicit_collections):
    """A collection while another thread's request runs would move that request's live objects
    to the oldest generation, and leave its garbage there."""
    from django.http import HttpResponse

    from kinplay.server import RequestOnly

    collections, during = [], []

    def count(phase, info):
        if phase == "start":
            collections.append(info["generation"])

    def app(environ, start_response):
        if environ.get("first"):
            server({}, None)  # a second request, as another thread of the server would run it, ends first
            during.append(list(collections))
        return HttpResponse(b"{}")

    server = RequestOnly(app, {})
    gc.callbacks.append(count)
    try:
        assert server({"first": True}, None) == [b"{}"]
    finally:
        gc.callbacks.remove(count)
    assert during == [[]] and collections == [1]


def test_it_collects_the_whole_heap_every_so_many_idle_collections(only_explicit_collections, monkeypatch):
    """What outlived its request and became garbage later is freed too, by a full collection."""
    from django.http import HttpResponse

    from kinplay import server

    monkeypatch.setattr(server, "FULL_EVERY", 3)
    collections = []

    def count(phase, info):
        if phase == "start":
            collections.append(info["generation"])

    answer = server.RequestOnly(lambda environ, start_response: HttpResponse(b"{}"), {})
    gc.collect()  # counting from a full collection
    gc.callbacks.append(count)
    try:
        for _ in range(5):
            answer({}, None)
    finally:
        gc.callbacks.remove(count)
    assert collections == [1, 1, 1, 2, 1]
