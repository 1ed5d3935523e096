"""A NUL character or a lone surrogate in any path parameter, query value or cookie, on every
route, as a stranger and as a player: never a 500 (PostgreSQL refuses NUL in text, so on
PostgreSQL, where it matters, a lookup that reached the database with one would crash)."""

import re

import pytest
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver
from django.urls.resolvers import RoutePattern

from games import services

pytestmark = pytest.mark.django_db
NUL, SURROGATE = "a%00b", "%ED%A0%80"
PARAM = re.compile(r"<(?:(\w+):)?(\w+)>")


def routes(patterns=None, prefix=""):
    """Every route of the site as text ("games/<id:pk>/"), the admin's regex routes aside."""
    for p in get_resolver().url_patterns if patterns is None else patterns:
        if not isinstance(p.pattern, RoutePattern):
            continue
        if isinstance(p, URLResolver):
            yield from routes(p.url_patterns, prefix + str(p.pattern))
        elif isinstance(p, URLPattern):
            yield prefix + str(p.pattern)


def fill(route: str, text: str, number: str) -> str:
    return "/" + PARAM.sub(lambda m: number if m.group(1) in ("int", "id") else text, route)


@pytest.fixture
def clients(alice, api):
    game = services.create_game(creator=alice, kind="knonsters", seats=[{"user": "alice"}, {"bot": "random"}])
    player = Client(raise_request_exception=False)
    player.force_login(alice)
    return str(game.pk), [Client(raise_request_exception=False), player]


def test_routes_with_text_parameters_are_found():
    texts = [r for r in routes() if any(c not in ("int", "id") for c, _ in PARAM.findall(r))]
    assert any("players/" in r for r in texts) and len(texts) >= 3, texts


@pytest.mark.parametrize("text", [NUL, SURROGATE])
def test_a_path_parameter_holding_it_is_never_a_server_error(clients, text):
    game, users = clients
    for route in routes():
        if not any(c not in ("int", "id") for c, _ in PARAM.findall(route)):
            continue
        for client in users:
            answer = client.get(fill(route, text, game))
            assert answer.status_code != 500, (route, answer.status_code)
            if text == NUL:
                assert answer.status_code == 404, (route, answer.status_code)


@pytest.mark.parametrize("text", [NUL, SURROGATE])
def test_a_query_value_holding_it_is_never_a_server_error(clients, text):
    game, users = clients
    query = "&".join(f"{name}={text}" for name in ("q", "kind", "status", "page", "cursor", "limit", "after", "at",
                                                   "my_turn", "invited", "name", "next"))
    for route in routes():
        url = fill(route, "alice", game) + "?" + query
        for client in users:
            answer = client.get(url)
            assert answer.status_code != 500, (url, answer.status_code)
            if text == NUL:
                assert answer.status_code == 400, (url, answer.status_code)


def test_a_session_cookie_holding_a_nul_is_no_session(clients):
    _, (stranger, _) = clients
    stranger.cookies["sessionid"] = "abc\x00def"
    answer = stranger.get("/")
    assert answer.status_code == 200 and "sessionid=\"\"" in answer.cookies.output()  # cleared, nothing looked up
