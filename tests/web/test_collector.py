"""kinplay.server.RequestOnly frees the reference cycles a request leaves behind (Django's
prefetch: each seat points to its game, the game to its seats; DRF's request, view and
response point to each other) as the request ends, not in a full collection in the middle of
a later request."""

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
