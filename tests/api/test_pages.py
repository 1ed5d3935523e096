"""Long lists come in pages that are still JSON arrays: ?limit= and a cursor in, a Link header
to the next page and the total out (api/pages.py)."""

import re

import pytest

from games import services

pytestmark = pytest.mark.django_db


def next_url(response):
    found = re.fullmatch(r'<([^>]+)>; rel="next"', response.get("Link", ""))
    return found and found.group(1)


def walk(client, url, key="id"):
    """Every page from ``url`` on, following rel="next": the pages' items' ``key`` (their ids)."""
    pages = []
    while url:
        r = client.get(url)
        assert r.status_code == 200, r.json()
        pages.append([x[key] for x in r.json()])
        url = next_url(r)
    return pages


def test_it_lists_250_games_in_pages_each_once_while_a_new_game_is_created(api, alice):
    services.create_games([dict(creator=alice, kind="knonsters", seats=[{"user": "alice"}, {}]) for _ in range(240)]
                          + [dict(creator=alice, kind="knonsters", seats=[{"user": "alice"}, {"bot": "random"}]) for _ in range(10)])
    c = api(alice)
    whole = c.get("/api/games/?limit=500")
    assert whole["X-Total-Count"] == "250" and "Link" not in whole
    order = [g["id"] for g in whole.json()]
    assert len(set(order)) == 250

    default = c.get("/api/games/")  # a client that reads the array as before gets the first page (DEFAULT_LIMIT)
    assert [g["id"] for g in default.json()] == order[:25] and "limit=25" in next_url(default)
    first = c.get("/api/games/?limit=100")
    assert [g["id"] for g in first.json()] == order[:100] and first["X-Total-Count"] == "250"
    new = c.post("/api/games/", {"kind": "knonsters", "seats": [{"user": "alice"}, {}]}, format="json").json()
    rest = walk(c, next_url(first))
    assert [len(p) for p in rest] == [100, 50]
    assert [g["id"] for g in first.json()] + rest[0] + rest[1] == order  # each once, in the same order
    assert new["id"] not in order and c.get("/api/games/?limit=500")["X-Total-Count"] == "251"


def test_it_keeps_invitations_and_my_turn_first_across_pages(api, alice, bob):
    services.create_games([dict(creator=alice, kind="knonsters", seats=[{"user": "alice"}, {}]) for _ in range(3)])
    mine = services.create_game(creator=alice, kind="knonsters", seats=[{"user": "alice"}, {"bot": "random"}])
    asked = services.create_game(creator=bob, kind="knonsters", seats=[{"user": "bob"}, {"user": "alice"}])
    assert walk(api(alice), "/api/games/?limit=2")[:1] == [[asked.pk, mine.pk]]


@pytest.mark.parametrize("query", ["limit=0", "limit=501", "limit=ten", "limit=-1", "limit=%C2%B2",
                                   "cursor=abc", "cursor=12", "cursor=1.2.3", "cursor=1.", "open=true&cursor=1"])
def test_it_refuses_a_bad_page_with_a_reason(api, alice, query):
    r = api(alice).get(f"/api/games/?{query}")
    assert r.status_code == 400 and r.json()["error"] == "bad_request"
    assert re.search(r"limit must be a number from 1 to 500|cursor is not one this list gave", r.json()["detail"])


def test_it_pages_the_open_games_newest_first(api, alice, bob):
    made = services.create_games([dict(creator=alice, kind="knonsters", seats=[{"user": "alice"}, {}]) for _ in range(5)])
    assert walk(api(bob), "/api/games/?open=true&limit=2") == [[made[4].pk, made[3].pk], [made[2].pk, made[1].pk], [made[0].pk]]


def test_it_reaches_every_tournament_and_league_through_the_next_links(api, alice):
    c = api(alice)
    tournaments = [c.post("/api/tournaments/", {"name": f"Cup {i}", "kind": "karenza", "format": "swiss"},
                          format="json").json()["id"] for i in range(3)]
    leagues = [c.post("/api/leagues/", {"name": f"League {i}", "kind": "karenza"}, format="json").json()["id"]
               for i in range(3)]
    assert walk(api(), "/api/tournaments/?limit=2") == [tournaments[:0:-1], tournaments[:1]]
    assert walk(api(), "/api/tournaments/?limit=2&status=open")[1] == tournaments[:1]  # the filter stays in the link
    assert walk(api(), "/api/leagues/?limit=2") == [leagues[:0:-1], leagues[:1]]
    assert api().get("/api/leagues/?limit=2")["X-Total-Count"] == "3"
    assert api().get("/api/tournaments/?limit=x").status_code == 400


def test_it_documents_the_pages_in_the_schema(api):
    paths = api().get("/api/schema/?format=json").json()["paths"]
    for path in ("/api/games/", "/api/tournaments/", "/api/leagues/"):
        get = paths[path]["get"]
        assert {"limit", "cursor"} <= {p["name"] for p in get["parameters"]}
        assert {"Link", "X-Total-Count"} <= set(get["responses"]["200"]["headers"])


def test_it_pages_a_games_events_by_seq_each_once(api, alice):
    from tests.play import finish

    game = finish(services.create_game(creator=alice, kind="karenza", seats=[{"user": "alice"}, {"bot": "random"}]))
    c = api(alice)
    whole = c.get(f"/api/games/{game.pk}/events/?limit=500")
    assert whole.status_code == 200 and "Link" not in whole
    seqs = [e["seq"] for e in whole.json()]
    assert game.version > 10 and seqs[-1] == game.version
    pages, url = [], f"/api/games/{game.pk}/events/?after=2&limit=5"
    while url:
        r = c.get(url)
        pages.append([e["seq"] for e in r.json()])
        url = next_url(r)
    assert [s for page in pages for s in page] == [s for s in seqs if s > 2]
    assert len(pages) == -(-(game.version - 2) // 5) and all(p[-1] <= 2 + 5 * (i + 1) for i, p in enumerate(pages) if p)
    assert c.get(f"/api/games/{game.pk}/events/?limit=0").status_code == 400
