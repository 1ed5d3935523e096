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
    # of about 1,000 games' ORs (games.store.event_ranges reads them 200 a statement)
    from games import selectors
    from games.models import Game

    games = [Game(pk=10**6 + i, kind="kenta", version=3) for i in range(1_200)]
    assert selectors.recent_rows(games, 3) == {g.pk: [] for g in games}


def mixed_games(alice, bob):
    """alice's games in every bucket of her list: invitations, her move, bob's move, waiting for
    players, finished and cancelled."""
    more_games(alice, bob, 12)
    services.create_game(creator=bob, kind="tiny", options={}, per_move=None, seats=[{"user": "bob"}, {"user": "alice"}])
    opened = services.create_games([dict(creator=alice, kind="tiny", options={}, per_move=None,
                                         seats=[{"user": "alice"}, {}]) for _ in range(5)])
    for game in opened[:2]:
        services.cancel_game(game.pk, alice)


FILTERS = ["", "status=waiting", "status=active", "status=finished", "status=aborted", "my_turn=true",
           "my_turn=false", "invited=true", "invited=false", "status=finished&my_turn=false",
           "status=waiting&invited=false", "my_turn=false&invited=false"]


def expected(alice, query) -> list[int]:
    """alice's list by the rules of the list read from her whole history in Python."""
    from urllib.parse import parse_qsl

    from games import selectors
    from games.models import Game

    wanted = dict(parse_qsl(query))

    def keep(g):
        return (g.status == wanted.get("status", g.status)
                and wanted.get("my_turn", str(selectors.waiting_for(g, alice)).lower()) == str(selectors.waiting_for(g, alice)).lower()
                and wanted.get("invited", str(selectors.invited_to(g, alice)).lower()) == str(selectors.invited_to(g, alice)).lower())

    games = [g for g in Game.objects.filter(seats__user=alice).with_seats() if keep(g)]
    return [g.pk for g in sorted(games, key=lambda g: (selectors.urgency(g, alice), -g.pk))]


@pytest.mark.parametrize("query", FILTERS)
def test_it_pages_through_each_game_of_every_filter_once_in_the_lists_order(tiny, api, alice, bob, query):
    from tests.api.test_pages import walk

    mixed_games(alice, bob)
    whole = expected(alice, query)
    assert whole or query == "status=aborted&x"  # every filter has games to page through
    pages = walk(api(alice), f"/api/games/?{query}&limit=3")
    assert [pk for page in pages for pk in page] == whole
    assert all(len(page) == 3 for page in pages[:-1])
    assert api(alice).get(f"/api/games/?{query}")["X-Total-Count"] == str(len(whole))


def test_it_counts_up_to_a_thousand_games_and_leaves_the_total_out_past_that(tiny, api, alice, bob, monkeypatch):
    from api import pages

    mixed_games(alice, bob)
    total = len(expected(alice, ""))
    monkeypatch.setattr(pages, "COUNTED", total)
    assert api(alice).get("/api/games/?limit=2")["X-Total-Count"] == str(total)
    monkeypatch.setattr(pages, "COUNTED", total - 1)
    r = api(alice).get("/api/games/?limit=2")
    assert "X-Total-Count" not in r and "Link" in r


@pytest.mark.parametrize("url", ["/api/games/?limit=5", "/api/games/?status=finished&limit=5", "/api/games/?my_turn=false&limit=5",
                                 "/api/games/?open=true&limit=5", "/api/players/alice/", reverse("lobby")])
def test_a_lists_statements_do_not_grow_with_the_history(tiny, signed_in, alice, bob, url, django_assert_max_num_queries):
    client = signed_in(alice)
    mixed_games(alice, bob)
    services.create_games([dict(creator=bob, kind="tiny", options={}, per_move=None, seats=[{"user": "bob"}, {}])
                           for _ in range(6)])  # open games alice may join
    few = queries(client, url)
    for _ in range(3):
        mixed_games(alice, bob)
    with django_assert_max_num_queries(few):
        assert client.get(url).status_code == 200


def test_the_lobby_shows_each_bucket_in_its_section(tiny, signed_in, alice, bob):
    from games import selectors
    from games.models import Game

    mixed_games(alice, bob)
    page = signed_in(alice).get(reverse("lobby")).content.decode()

    def section(key):
        if f'id="games-{key}"' not in page:
            return []
        part = page.split(f'id="games-{key}"')[1].split("</section>")[0]
        return sorted({int(pk) for pk in re.findall(r'/games/(\d+)/', part)})

    games = list(Game.objects.filter(seats__user=alice).with_seats())
    assert section("turn") == sorted(g.pk for g in games if selectors.waiting_for(g, alice))
    assert section("invitations") == sorted(g.pk for g in games if selectors.invited_to(g, alice))
    assert section("active") == sorted(g.pk for g in games if g.status == Game.ACTIVE and not selectors.waiting_for(g, alice))
    assert section("waiting") == sorted(g.pk for g in games if g.status == Game.WAITING and not selectors.invited_to(g, alice))
    over = sorted((g.pk for g in games if g.is_over), reverse=True)
    assert section("finished") == sorted(over[:12])


def test_the_lobby_shows_a_long_section_a_page_at_a_time(tiny, signed_in, alice, bob, monkeypatch):
    from games import selectors
    from games.models import Game
    from kinplay.web import views

    monkeypatch.setattr(views, "LIVE_SHOWN", 2)
    mixed_games(alice, bob)
    client = signed_in(alice)
    url, seen = reverse("lobby"), []
    while url:
        page = client.get(url).content.decode()
        part = page.split('id="games-turn"')[1].split("</section>")[0]
        seen += list(dict.fromkeys(int(pk) for pk in re.findall(r'href="/games/(\d+)/"', part)))
        found = re.search(r'<a href="(\?turn=\d+)#games-turn" rel="next">More games</a>', part)
        url = found and reverse("lobby") + found.group(1)
    turns = [g for g in Game.objects.filter(seats__user=alice).with_seats() if selectors.waiting_for(g, alice)]
    assert sorted(seen) == sorted(g.pk for g in turns) and len(seen) == len(set(seen)) > 2
    assert re.search(rf'Your turn <span class="count">{len(turns)}</span>', page)
