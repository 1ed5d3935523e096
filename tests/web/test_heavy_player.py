"""The player with thirty games at once: her lobby and her API games list cost the same
queries with thirty games as with five."""

import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from games import services
from kinplay.clocks.services import sweep
from tests.play import accepted, finish, step

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


def test_it_says_in_the_games_list_who_lost_on_time_as_the_game_itself_does(time_machine, api, alice, bob):
    time_machine.move_to(timezone.now(), tick=False)
    lost = accepted(services.create_game(creator=alice, kind="knonsters", seats=[{"user": "alice"}, {"user": "bob"}],
                                         per_move=60, on_timeout="forfeit"))
    more = services.create_game(creator=alice, kind="knonsters", seats=[{"user": "alice"}, {"user": "bob"}])
    finish(accepted(more))
    time_machine.shift(61)
    sweep()
    client = api(alice)
    listed = {g["id"]: g["result"]["summary"] for g in client.get("/api/games/").json()}
    assert "time ran out" in listed[lost.pk]
    assert listed == {pk: client.get(f"/api/games/{pk}/").json()["result"]["summary"] for pk in (lost.pk, more.pk)}


def test_it_puts_the_move_due_soonest_first_in_the_lobby_and_says_so(tiny, signed_in, alice, bob, charlie):
    later, soon, free = services.create_games([
        dict(creator=alice, kind="tiny", options={}, per_move=per_move, accepted=True,
             seats=[{"user": "alice"}, {"user": "bob"}]) for per_move in (3 * 86400, 3600, None)])
    services.create_game(creator=charlie, kind="tiny", options={}, per_move=None,
                         seats=[{"user": "charlie"}, {"user": "alice"}])  # an invitation lapses only after days
    page = signed_in(alice).get(reverse("lobby")).content.decode()
    assert page.index('id="games-turn"') < page.index('id="games-invitations"')
    turn = page.split('id="games-turn"')[1].split("</section>")[0]
    assert [int(pk) for pk in re.findall(r'href="/games/(\d+)/"', turn)] == [soon.pk, later.pk, free.pk]
    head = page.split('class="page-head"')[1].split("</section>")[0]
    assert re.search(rf"3 games waiting for your move, the soonest due first: <a [^>]*>Tiny #{soon.pk}</a> is due in 1 hour",
                     head)


def test_it_reads_the_last_moves_of_more_games_than_one_sqlite_statement_takes(db):
    # the lobby's "?finished=all" of a player with over a thousand games: SQLite refuses a WHERE
    # of about 1,000 games' ORs (games.store.any_of reads them 200 a statement)
    from games import selectors
    from games.models import Game

    games = [Game(pk=10**6 + i, kind="kenta", version=3) for i in range(1_200)]
    assert selectors.recent_rows(games, 3) == {g.pk: [] for g in games}
