"""What players see of ratings: the API, the leaderboard and player pages, the rating change
on the game-over screen and in the game-over email, links from player names."""

import re
from datetime import UTC, datetime

import pytest
import time_machine
from django.urls import reverse

from games.models import Game
from kinplay.ratings.models import Rating
from kinplay.ratings.templatetags.ratings import signed
from tests.api.test_pages import walk
from tests.play import finish
from tests.ratings.test_ratings import game_of, won_by

pytestmark = pytest.mark.django_db


# ---------------------------------------------------------------- API


def test_it_lists_a_kinds_leaderboard_best_first(api, alice, bob, charlie, tiny):
    won_by(0, game_of(alice, bob))
    won_by(0, game_of(alice, charlie))
    body = api(bob).get("/api/ratings/tiny/").json()
    assert body["count"] == 3 and body["next"] is None
    rows = body["results"]
    # charlie lost to an alice already rated higher: that costs less than bob's first loss
    assert [(r["rank"], r["player"]) for r in rows] == [(1, "alice"), (2, "charlie"), (3, "bob")]
    assert rows[0] == {"rank": 1, "player": "alice", "rating": Rating.objects.get(user=alice).rating,
                       "mu": rows[0]["mu"], "sigma": rows[0]["sigma"], "games": 2, "provisional": True}
    assert rows[0]["rating"] > 1500 > rows[-1]["rating"]


def test_it_pages_the_leaderboard_and_ranks_across_pages(api, alice, bob, charlie, make_user, tiny):
    dora = make_user("dora")
    won_by(0, game_of(alice, bob))
    won_by(0, game_of(charlie, dora))  # alice and charlie equal: rank 1 both; bob and dora rank 3
    first = api(alice).get("/api/ratings/tiny/?page_size=2").json()
    second = api(alice).get(first["next"]).json()
    assert [r["rank"] for r in first["results"]] == [1, 1]
    assert [r["rank"] for r in second["results"]] == [3, 3]
    assert {r["player"] for r in second["results"]} == {"bob", "dora"}


def test_it_walks_the_whole_leaderboard_by_its_next_cursors_each_player_once(api, alice, bob, charlie, make_user, tiny):
    more = [make_user(f"p{i}") for i in range(5)]
    won_by(0, game_of(alice, bob))
    won_by(0, game_of(charlie, more[0]))  # ties: alice and charlie, bob and p0
    for a, b in zip(more[1:], more[2:]):
        won_by(0, game_of(a, b))
    whole = api(alice).get("/api/ratings/tiny/?page_size=200").json()
    assert whole["count"] == 8
    url, rows = "/api/ratings/tiny/?page_size=2", []
    while url:
        page = api(alice).get(url).json()
        assert page["count"] == (None if "cursor=" in url else whole["count"]) and len(page["results"]) <= 2
        rows += page["results"]
        url = page["next"]
        assert url is None or "cursor=" in url and "page=" not in url.replace("page_size", "")
    assert rows == whole["results"]  # each once, in order, with the ranks a single page gives
    r = api(alice).get("/api/ratings/tiny/?cursor=bm90IGEgY3Vyc29y")
    assert r.status_code == 404 and "cursor" in r.json()["detail"]  # a page no list has, like one past the end


def test_it_answers_404_for_an_unknown_kind_or_player(api, alice):
    r = api(alice).get("/api/ratings/chess/")
    assert r.status_code == 404 and r.json()["error"] == "not_found" and "chess" in r.json()["detail"]
    r = api(alice).get("/api/players/nobody/")
    assert r.status_code == 404 and r.json() == {"error": "not_found", "detail": "There is no player “nobody”."}
    assert api(alice).get("/api/ratings/kenta/?page=9").status_code == 404


def test_it_answers_400_to_paging_input_that_is_no_page(api, alice, bob, tiny):
    won_by(0, game_of(alice, bob))
    for query, said in (("page=abc", "page must be"), ("page=0", "page must be"), ("page=-1", "page must be"),
                        ("page=1.5", "page must be"), ("page_size=abc", "page_size must be"), ("page_size=0", "page_size must be"),
                        ("page_size=201", "page_size must be")):
        r = api(alice).get(f"/api/ratings/tiny/?{query}")
        assert r.status_code == 400 and r.json()["error"] == "bad_request" and said in r.json()["detail"], query
    r = api(alice).get("/api/ratings/tiny/?page=2")  # a number past the end: no such page
    assert r.status_code == 404 and r.json()["detail"].startswith("There is no page 2")
    assert [x["player"] for x in api(alice).get("/api/ratings/tiny/?page=last&page_size=1").json()["results"]] == ["bob"]


def test_it_shows_a_players_ratings_history_and_recent_games(api, alice, bob, tiny):
    first = won_by(1, game_of(alice, bob))
    second = won_by(0, game_of(alice, bob))
    friendly = won_by(0, game_of(alice, bob, rated=False))
    body = api(alice).get("/api/players/bob/").json()
    assert body["name"] == "bob"
    assert body["ratings"]["tiny"]["games"] == 2 and body["ratings"]["tiny"]["provisional"] is True
    assert [h["game"] for h in body["history"]["tiny"]] == [first.pk, second.pk]
    assert body["history"]["tiny"][-1]["rating"] == body["ratings"]["tiny"]["rating"]
    assert [g["id"] for g in body["recent"]] == [friendly.pk, second.pk, first.pk]
    assert body["recent"][0]["rated"] is False and body["recent"][0]["rating"] is None
    assert body["recent"][2]["outcome"] == "won" and body["recent"][2]["rating"]["delta"] > 0
    assert body["head_to_head"]["games"] == 3
    assert (body["head_to_head"]["wins"], body["head_to_head"]["losses"]) == (2, 1)  # alice's view
    assert api(bob).get("/api/players/BOB/").json()["head_to_head"] is None  # one's own page


def test_it_pages_through_a_players_rating_history_newest_first_each_game_once(api, alice, bob, tiny):
    with time_machine.travel(datetime(2026, 3, 1, 12, tzinfo=UTC), tick=False):  # every game ends at one instant
        played = [won_by(i % 2, game_of(alice, bob)) for i in range(5)]
    c = api(alice)
    first = c.get("/api/players/bob/history/tiny/?limit=2")
    assert first.status_code == 200 and first["X-Total-Count"] == "5"
    assert [p["game"] for p in first.json()] == [played[4].pk, played[3].pk]
    assert first.json()[0]["rating"] == Rating.objects.get(user=bob, kind="tiny").rating
    pages = walk(c, "/api/players/bob/history/tiny/?limit=2", key="game")
    assert pages == [[played[4].pk, played[3].pk], [played[2].pk, played[1].pk], [played[0].pk]]
    profile = c.get("/api/players/bob/").json()["history"]["tiny"]
    assert [p["game"] for p in profile] == [g.pk for g in played]  # the profile's history: oldest first
    assert profile[::-1] == c.get("/api/players/bob/history/tiny/?limit=5").json()


def test_it_keeps_a_players_profile_to_the_latest_rated_games_of_each_kind(api, alice, bob, tiny, monkeypatch):
    monkeypatch.setattr("api.ratings.HISTORY_SHOWN", 2)
    played = [won_by(0, game_of(alice, bob)) for _ in range(3)]
    assert [p["game"] for p in api(alice).get("/api/players/bob/").json()["history"]["tiny"]] == [played[1].pk, played[2].pk]


@pytest.mark.parametrize(("url", "status"), [
    ("/api/players/bob/history/tiny/?cursor=12", 400), ("/api/players/bob/history/tiny/?cursor=a.1", 400),
    ("/api/players/bob/history/tiny/?limit=0", 400), ("/api/players/bob/history/chess/", 404),
    ("/api/players/nobody/history/tiny/", 404)])
def test_it_refuses_a_history_page_it_never_gave(api, alice, bob, tiny, url, status):
    won_by(0, game_of(alice, bob))
    assert api(alice).get(url).status_code == status


def test_it_ranks_a_players_new_rating_at_once_on_their_profile(api, alice, bob, charlie, tiny):
    won_by(0, game_of(alice, bob))
    c = api(charlie)
    assert c.get("/api/players/bob/").json()["ratings"]["tiny"]["rank"] == 2
    won_by(1, game_of(alice, bob))
    won_by(1, game_of(alice, bob))
    assert c.get("/api/players/bob/").json()["ratings"]["tiny"]["rank"] == 1
    assert c.get("/api/players/alice/").json()["ratings"]["tiny"]["rank"] == 2


def test_it_creates_an_unrated_game_through_the_api(api, alice, bob, tiny):
    r = api(alice).post("/api/games/", {"kind": "tiny", "seats": [{"user": "alice"}, {"user": "bob"}],
                                        "rated": False}, format="json")
    assert r.status_code == 201 and r.json()["rated"] is False
    assert Game.objects.get(pk=r.json()["id"]).rated is False
    r = api(alice).post("/api/games/", {"kind": "tiny", "seats": [{"user": "alice"}, {"user": "bob"}]}, format="json")
    assert r.json()["rated"] is True


def test_it_documents_the_ratings_api_in_the_schema(api, alice):
    schema = api(alice).get("/api/schema/?format=json").json()
    assert "/api/ratings/{kind}/" in schema["paths"] and "/api/players/{name}/" in schema["paths"]


# ---------------------------------------------------------------- pages


def test_it_highlights_my_row_on_the_leaderboard(signed_in, alice, bob, tiny):
    won_by(0, game_of(alice, bob))
    page = signed_in(bob).get(reverse("leaderboard", args=["tiny"])).content.decode()
    mine = re.search(r'<tr class="is-you"[^>]*>(.*?)</tr>', page, re.DOTALL).group(1)
    assert "bob" in mine and "alice" not in mine
    assert reverse("player", args=["alice"]) in page and "You are #2" in page
    assert 'title="Provisional' in page


def test_it_pages_the_leaderboard_page(signed_in, alice, bob, tiny, make_user, monkeypatch):
    from kinplay.ratings import views

    monkeypatch.setattr(views, "PER_PAGE", 1)
    won_by(0, game_of(alice, bob))
    client = signed_in(bob)
    first = client.get(reverse("leaderboard", args=["tiny"])).content.decode()
    assert "Page 1 of 2" in first and "alice" in first and 'class="is-you"' not in first
    second = client.get(reverse("leaderboard", args=["tiny"]) + "?page=2").content.decode()
    assert 'class="is-you"' in second


def test_it_links_my_rank_to_the_page_my_row_is_on_when_ratings_tie(signed_in, alice, bob, charlie, make_user,
                                                                      tiny, monkeypatch):
    from kinplay.ratings import views

    monkeypatch.setattr(views, "PER_PAGE", 1)
    dora = make_user("dora")
    won_by(0, game_of(alice, bob))
    won_by(0, game_of(charlie, dora))  # bob and dora share rank 3; bob, the earlier account, comes first
    page = signed_in(dora).get(reverse("leaderboard", args=["tiny"])).content.decode()
    assert 'href="?page=4#me">You are #3</a>' in page
    assert 'class="is-you"' in signed_in(dora).get(reverse("leaderboard", args=["tiny"]) + "?page=4").content.decode()


def test_it_404s_unknown_kinds_and_players_on_the_pages(signed_in, alice):
    client = signed_in(alice)
    assert client.get(reverse("leaderboard", args=["chess"])).status_code == 404
    assert client.get(reverse("player", args=["nobody"])).status_code == 404
    assert client.get(reverse("leaderboards")).status_code == 302


def test_it_shows_a_player_page_with_a_chart_and_head_to_head(signed_in, alice, bob, charlie, tiny):
    games = [won_by(0, game_of(alice, bob)), won_by(1, game_of(alice, bob)), finish(game_of(bob, charlie, kind="tiny4"))]
    page = signed_in(alice).get(reverse("player", args=["bob"])).content.decode()
    assert "<svg" in page and 'class="rating-chart"' in page and "<script" not in page.split("<main")[1].split("</main>")[0]
    chart = page[page.index("<svg class=\"rating-chart\""):page.index("</svg>", page.index("rating-chart"))]
    assert chart.count("<circle") == 3  # one point per rated game, both kinds
    for g in games:
        assert reverse("game", args=[g.pk]) in page
    assert "You against bob" in page and "1</strong> ahead" in page and "1</strong> behind" in page
    assert "Tiny Four" in page


def test_it_prefills_the_new_game_form_from_challenge(signed_in, alice, bob, tiny):
    client = signed_in(alice)
    page = client.get(reverse("player", args=["bob"])).content.decode()
    link = re.search(r'href="([^"]+)">Challenge bob', page).group(1).replace("&amp;", "&")
    form = client.get(link).content.decode()
    assert re.search(r'<option value="user"\s+selected>', form) and 'name="seat-2-user" value="bob"' in form


def test_it_shows_my_own_page_without_head_to_head(signed_in, alice, tiny):
    page = signed_in(alice).get(reverse("player", args=["alice"])).content.decode()
    assert "You against" not in page and "no rated game yet" in page


def test_it_shows_each_seats_rating_change_on_the_game_over_screen(signed_in, alice, bob, tiny):
    game = won_by(0, game_of(alice, bob))
    page = signed_in(alice).get(reverse("game", args=[game.pk])).content.decode()
    result = page[page.index('id="result"'):page.index("</section>", page.index('id="result"'))]
    alice_after = Rating.objects.get(user=alice).rating
    bob_after = Rating.objects.get(user=bob).rating
    assert f"+{alice_after - 1500}" in result and f"\u2212{1500 - bob_after}" in result
    assert "<dt>Ratings</dt><dd>Rated</dd>" in page
    unrated = won_by(0, game_of(alice, bob, rated=False))
    page = signed_in(alice).get(reverse("game", args=[unrated.pk])).content.decode()
    assert "rating-delta" not in page and "Unrated: a friendly game" in page
    page = signed_in(alice).get(reverse("game", args=[game_of(alice, bots=1).pk])).content.decode()
    assert "Unrated: a bot plays" in page


def test_it_links_player_names_on_game_pages_and_the_lobby(signed_in, alice, bob, tiny):
    game = game_of(alice, bob, bots=1)
    client = signed_in(alice)
    page = client.get(reverse("game", args=[game.pk])).content.decode()
    assert f'href="{reverse("player", args=["bob"])}"' in page and f'href="{reverse("player", args=["alice"])}"' in page
    assert "/players/Bot" not in page
    lobby = client.get(reverse("lobby")).content.decode()
    assert f'href="{reverse("player", args=["bob"])}"' in lobby
    assert f'href="{reverse("game", args=[game.pk])}"' in lobby


def test_it_creates_an_unrated_game_from_the_form(signed_in, alice, bob, tiny):
    client = signed_in(alice)
    form = client.get(reverse("new-game")).content.decode()
    assert re.search(r'<input type="checkbox" name="rated"\s+checked', form)
    post = {"kind": "tiny", "players": 2, "per_move": "none", "on_timeout": "bot",
            "seat-2-type": "user", "seat-2-user": "bob", "opt-tiny-cards": "1", "opt-tiny-pace": "calm",
            "opt-tiny-colours-0": "red", "opt-tiny-colours-1": "blue"}
    client.post(reverse("new-game"), post)
    client.post(reverse("new-game"), {**post, "rated": "on"})
    assert list(Game.objects.order_by("pk").values_list("rated", flat=True)) == [False, True]


def test_it_puts_the_rating_changes_in_the_game_over_email(alice, bob, inbox):
    finish(game_of(alice, bob, kind="knonsters", options={}))  # emails draw a real kind's board
    over = [m for m in inbox() if "is over" in m.subject]
    assert over
    mail = next(m for m in over if m.to == ["alice@example.com"])
    after = Rating.objects.get(user=alice).rating
    change = signed(after - 1500)  # "+83" or "−44"
    assert f"alice: {change} (1500 -> {after})" in mail.body
    assert f"{change}</strong>" in mail.alternatives[0][0]


# ---------------------------------------------------------------- strangers


def test_it_shows_leaderboards_and_player_pages_to_strangers_without_an_address(api, client, alice, bob, tiny):
    from kinplay.accounts import emails

    emails.ask_address(bob, "bob.new@example.org")  # waiting for its link: nobody's business
    won_by(0, game_of(alice, bob))
    board = api().get("/api/ratings/tiny/")
    assert board.status_code == 200
    assert [r["player"] for r in board.json()["results"]] == ["alice", "bob"]
    profile = api().get("/api/players/bob/")
    assert profile.status_code == 200 and profile.json()["head_to_head"] is None  # no "you" to compare
    assert profile.json()["ratings"]["tiny"]["games"] == 1
    pages = [client.get(reverse("leaderboard", args=["tiny"])), client.get(reverse("player", args=["bob"]))]
    assert [p.status_code for p in pages] == [200, 200]
    assert "alice" in pages[0].content.decode() and "You against" not in pages[1].content.decode()
    for answer in [board.content, profile.content, *(p.content for p in pages)]:
        assert b"@example." not in answer


def test_it_throttles_strangers_reading_the_ratings_pages_per_address(client, alice, tiny, settings):
    """The pages are public too, and cost what the API's answers cost: the same budget per address."""
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": {
        **settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"], "anon": "3/min"}}
    stranger = {"REMOTE_ADDR": "203.0.113.78"}
    with time_machine.travel(datetime(2026, 3, 1, 12, 0, 30, tzinfo=UTC), tick=False):  # one throttle window
        pages = [reverse("leaderboard", args=["tiny"]), reverse("player", args=["alice"])] * 2
        answers = [client.get(url, **stranger) for url in pages]
        assert [a.status_code for a in answers] == [200, 200, 200, 429]
        assert "Too many pages read from your address" in answers[-1].content.decode()
        assert int(answers[-1]["Retry-After"]) > 0
        client.force_login(alice)  # players are not counted against it
        assert client.get(pages[0], **stranger).status_code == 200


def test_it_throttles_strangers_reading_ratings_per_address(api, alice, tiny, settings):
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": {
        **settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"], "anon": "3/min"}}
    stranger = {"REMOTE_ADDR": "203.0.113.77"}
    with time_machine.travel(datetime(2026, 3, 1, 12, 0, 30, tzinfo=UTC), tick=False):  # one throttle window
        answers = [api().get(url, **stranger).status_code
                   for url in ["/api/ratings/tiny/", "/api/players/alice/", "/api/ratings/tiny/", "/api/players/alice/"]]
        assert answers == [200, 200, 200, 429]
        assert api(alice).get("/api/ratings/tiny/", **stranger).status_code == 200  # players have their own budget


def test_it_shows_a_deactivated_players_name_without_a_link_to_their_gone_page(signed_in, alice, bob, tiny):
    game = won_by(0, game_of(alice, bob))
    bob.is_active = False
    bob.save()  # as the admin does it
    client = signed_in(alice)
    bob_page = reverse("player", args=["bob"])
    for url in (reverse("leaderboard", args=["tiny"]), reverse("game", args=[game.pk]), reverse("player", args=["alice"])):
        page = client.get(url).content.decode()
        assert "bob" in page and bob_page not in page, url
        assert reverse("player", args=["alice"]) in page  # the others still link
    assert client.get(bob_page).status_code == 404
