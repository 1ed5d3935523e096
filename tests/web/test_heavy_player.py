"""The player with thirty games at once: her lobby and her API games list cost the same
queries with thirty games as with five."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from games import services
from tests.play import finish, step

pytestmark = pytest.mark.django_db


def more_games(alice, bob, n):
    """``n`` more games of alice's against bob: most wait for her move (some on a clock), a
    third for bob's, a sixth are over, and bob invited her to one more."""
    specs = [dict(creator=alice, kind="tiny", options={}, per_move=3600 * (i + 1) if i % 2 else None, accepted=True,
                  seats=[{"user": "alice"}, {"user": "bob"}]) for i in range(n)]
    games = services.create_games(specs)
    for i, game in enumerate(games):
        if i % 3 == 1:
            step(game)
        elif i % 6 == 2:
            finish(game)
    services.create_game(creator=bob, kind="tiny", options={}, per_move=None, seats=[{"user": "bob"}, {"user": "alice"}])


def queries(client, url):
    with CaptureQueriesContext(connection) as seen:
        assert client.get(url).status_code == 200
    return len(seen.captured_queries)


@pytest.mark.parametrize("url", [reverse("lobby"), "/api/games/?limit=50"])
def test_it_shows_thirty_games_for_the_queries_of_five(tiny, signed_in, alice, bob, url, django_assert_max_num_queries):
    client = signed_in(alice)
    more_games(alice, bob, 5)
    five = queries(client, url)
    more_games(alice, bob, 25)
    with django_assert_max_num_queries(five):
        r = client.get(url)
    assert r.status_code == 200
    if url.startswith("/api/"):
        assert len(r.json()) == 32
    else:
        assert r.content.decode().count('class="game-card') >= 30
