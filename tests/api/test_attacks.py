"""The attacks of issue 11 on the API, each as it was done: nobody moves for you, nothing is
unbounded, no request makes a 500."""

import pytest
from django.contrib.auth import get_user_model
from django.core.cache import cache

from games import services
from games.models import Event, Game

pytestmark = pytest.mark.django_db

TWO = [{"user": "alice"}, {"user": "bob"}]


@pytest.fixture(autouse=True)
def _fresh_throttles():
    cache.clear()
    yield
    cache.clear()


def create(client, **overrides):
    body = {"kind": "knonsters", "options": {}, "seats": TWO, "clock": {"per_move": None}}
    body.update(overrides)
    r = client.post("/api/games/", body, format="json")
    assert r.status_code == 201, r.json()
    invited = [seat["name"] for seat in r.json()["seats"] if seat["invited"]]
    for name in invited:  # the invited players say yes at once
        services.accept_invitation(r.json()["id"], get_user_model().objects.get(username=name))
    return client.get(f"/api/games/{r.json()['id']}/").json() if invited else r.json()


def first_move(client, game_id):
    game = client.get(f"/api/games/{game_id}/").json()
    return game, game["legal_actions"][0]


# ---------------------------------------------------------------- idempotency keys


def test_it_never_answers_bobs_move_with_alices_idempotent_result(api, alice, bob):
    """Bob sends the key Alice used: his move is stored, not silently replaced by hers."""
    a, b = api(alice), api(bob)
    game = create(a)
    assert set(game["to_act"]) == {0, 1}  # Knonsters starts with a choice both make
    _, move_a = first_move(a, game["id"])
    r = a.post(f"/api/games/{game['id']}/actions/", {"action": move_a["action"]}, format="json", HTTP_IDEMPOTENCY_KEY="k-1")
    assert r.status_code == 201
    _, move_b = first_move(b, game["id"])
    r = b.post(f"/api/games/{game['id']}/actions/", {"action": move_b["action"]}, format="json", HTTP_IDEMPOTENCY_KEY="k-1")
    assert r.status_code == 201, r.json()
    assert {e["seat"] for e in r.json()["events"]} >= {1}
    assert Event.objects.filter(game_id=game["id"], seat=1, command__isnull=False).exists()


def test_it_refuses_a_key_reused_for_another_request(api, alice, bob):
    a = api(alice)
    game = create(a)
    _, move = first_move(a, game["id"])
    url = f"/api/games/{game['id']}/actions/"
    first = a.post(url, {"action": move["action"]}, format="json", HTTP_IDEMPOTENCY_KEY="click-7")
    again = a.post(url, {"action": move["action"]}, format="json", HTTP_IDEMPOTENCY_KEY="click-7")
    assert first.status_code == again.status_code == 201
    assert again.json()["version"] == first.json()["version"]
    other = a.post(url, {"notation": "something else"}, format="json", HTTP_IDEMPOTENCY_KEY="click-7")
    assert other.status_code == 422 and other.json()["error"] == "idempotency_key_reused"


def test_it_refuses_an_idempotency_key_over_128_characters(api, alice, bob):
    a = api(alice)
    game = create(a)
    _, move = first_move(a, game["id"])
    r = a.post(f"/api/games/{game['id']}/actions/", {"action": move["action"]}, format="json",
               HTTP_IDEMPOTENCY_KEY="k" * 129)
    assert r.status_code == 400 and "128" in r.json()["detail"]
    assert Game.objects.get(pk=game["id"]).version == game["version"]


# ---------------------------------------------------------------- bounded work


def test_it_leaves_an_all_bot_game_to_the_worker(api, alice, settings, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        game = create(api(alice), kind="kenta", seats=[{"bot": "heuristic"}] * 5)
    bot_commands = Event.objects.filter(game_id=game["id"], command__by="bot").count()
    assert game["status"] == "active" and 0 < bot_commands <= settings.INLINE_BOT_STEPS
    for run in callbacks:  # the worker: play_bots, chained chunk by chunk until the game is over
        with django_capture_on_commit_callbacks(execute=True):
            run()
    assert Game.objects.get(pk=game["id"]).status == "finished"
    assert services.play_bots(game["id"]) == "game-over"  # a second run changes nothing


def test_the_sweep_plays_owed_bot_moves_when_the_broker_was_down(api, alice, django_capture_on_commit_callbacks):
    import time_machine
    from django.utils import timezone

    from kinplay.clocks.receivers import BOTS_GRACE_SECONDS
    from kinplay.clocks.services import sweep

    with django_capture_on_commit_callbacks(execute=False):  # the task is never delivered
        game = create(api(alice), kind="kenta", seats=[{"bot": "heuristic"}] * 5)
    version = Game.objects.get(pk=game["id"]).version
    assert sweep() == 0  # not before the task had its chance
    with time_machine.travel(timezone.now() + timezone.timedelta(seconds=BOTS_GRACE_SECONDS + 1), tick=False):
        assert sweep() >= 1
    assert Game.objects.get(pk=game["id"]).version > version


@pytest.mark.parametrize("per_move", [2**31, 91 * 24 * 3600, 0])
def test_it_refuses_clocks_beyond_ninety_days(api, alice, bob, per_move):
    r = api(alice).post("/api/games/", {"kind": "knonsters", "seats": TWO, "clock": {"per_move": per_move}}, format="json")
    assert r.status_code == 400 and r.json()["error"] == "invalid"
    assert not Game.objects.exists()


def test_it_says_what_is_wrong_in_a_nested_field_in_words(api, alice):
    r = api(alice).post("/api/games/", {"kind": "knonsters", "seats": TWO, "clock": {"per_move": 0, "on_timeout": "x"}},
                        format="json")
    assert r.status_code == 400 and r.json()["error"] == "invalid"
    detail = r.json()["detail"]
    assert "clock.per_move: Ensure this value is greater than or equal to 1." in detail
    assert "clock.on_timeout: " in detail
    assert "ErrorDetail" not in detail and "{" not in detail
    r = api(alice).post("/api/tournaments/", {"name": "T", "kind": "karenza", "format": "swiss", "points": [1, -1]},
                        format="json")
    assert r.status_code == 400 and r.json()["detail"] == "points.1: Ensure this value is greater than or equal to 0."


def test_it_names_a_body_type_it_does_not_read(api, alice):
    r = api(alice).post("/api/games/", "kind=knonsters", content_type="text/plain")
    assert r.status_code == 415 and r.json()["error"] == "unsupported_media_type"


def test_it_answers_a_huge_body_with_a_json_413(api, alice):
    r = api(alice).post("/api/games/", '{"kind": "' + "x" * 2_000_000 + '"}', content_type="application/json")
    assert r.status_code == 413 and r.json()["error"] == "too_large"


def test_it_refuses_json_nested_a_thousand_deep(api, alice):
    r = api(alice).post("/api/games/", '{"kind": "kenta", "options": ' + "[" * 1000 + "]" * 1000 + "}",
                        content_type="application/json")
    assert r.status_code == 400 and r.json()["error"] == "malformed"


def test_it_does_not_echo_a_long_notation(api, alice, bob):
    a = api(alice)
    game = create(a)
    r = a.post(f"/api/games/{game['id']}/actions/", {"notation": "n" * 100_000}, format="json")
    assert r.status_code == 400 and "n" * 300 not in r.content.decode()


# ---------------------------------------------------------------- no 500s


def test_it_refuses_a_replay_point_inside_the_setup_of_every_kind(api, alice, bob):
    from games.registry import kinds

    a = api(alice)
    for slug, kind in kinds().items():
        seats = [{"user": "alice"}] + [{"bot": "random"}] * (kind.rules.MIN_PLAYERS - 1)
        game = create(a, kind=slug, seats=seats)
        answers = {at: a.get(f"/api/games/{game['id']}/?at={at}").status_code for at in range(game["version"] + 1)}
        assert set(answers.values()) <= {200, 404}, (slug, answers)  # a view the game does not show is not found
        assert answers[game["version"]] == 200 and answers[0] == 404
        ok = [at for at, code in answers.items() if code == 200]
        assert ok == list(range(ok[0], game["version"] + 1)), slug  # from the end of the setup on


@pytest.mark.parametrize("query", ["?at=²", "?at=-1", "?at=99999999999999999999999"])
def test_it_refuses_odd_replay_points(api, alice, bob, query):
    game = create(api(alice))
    r = api(alice).get(f"/api/games/{game['id']}/{query}")
    assert r.status_code == 400 and r.json()["error"] == "bad_request"


@pytest.mark.parametrize("after", ["²", "99999999999999999999999", "-3"])
def test_it_refuses_odd_event_cursors(api, alice, bob, after):
    game = create(api(alice))
    r = api(alice).get(f"/api/games/{game['id']}/events/?after={after}")
    assert r.status_code == 400 and r.json()["error"] == "bad_request"


def test_it_refuses_a_superscript_version(api, alice, bob):
    game, move = first_move(api(alice), create(api(alice))["id"])
    r = api(alice).post(f"/api/games/{game['id']}/actions/", {"action": move["action"], "expected_version": "²"}, format="json")
    assert r.status_code == 400


@pytest.mark.parametrize("body", [{"expected_version": True}, {"expected_version": None}, {"expected_version": -1},
                                  {"expected_version": 2**31}, {"expected_version": 1.5}, {"notation": ""}])
def test_it_refuses_an_odd_move_body_without_moving(api, alice, bob, body):
    game, move = first_move(api(alice), create(api(alice))["id"])
    r = api(alice).post(f"/api/games/{game['id']}/actions/", {"action": move["action"], **body}, format="json")
    assert r.status_code == 400 and r.json()["error"] == "invalid"
    assert api(alice).get(f"/api/games/{game['id']}/").json()["version"] == game["version"]


def test_it_refuses_a_move_sent_both_ways_without_moving(api, alice, bob):
    game, move = first_move(api(alice), create(api(alice))["id"])
    r = api(alice).post(f"/api/games/{game['id']}/actions/", {"action": move["action"], "notation": move["notation"]},
                        format="json")
    assert r.status_code == 422 and r.json()["error"] == "unprocessable" and "exactly one" in r.json()["detail"]
    assert api(alice).get(f"/api/games/{game['id']}/").json()["version"] == game["version"]


@pytest.mark.parametrize("query", ["/api/ratings/kenta/?page=", "/api/ratings/kenta/?page_size=", "/api/games/?limit=",
                                   "/api/tournaments/?limit="])
def test_it_refuses_a_page_number_of_thousands_of_digits(api, alice, query):
    # int() refuses more than 4300 digits: what isdigit() let through was a 500
    r = api(alice).get(query + "1" * 5000)
    assert r.status_code == 400 and r.json()["error"] == "bad_request"


def test_a_game_id_beyond_64_bits_is_not_found(api, alice):
    r = api(alice).get("/api/games/99999999999999999999999/")
    assert r.status_code == 404 and r.json()["error"] == "not_found"


def test_a_stale_version_on_a_finished_game_is_a_conflict(api, alice, bob):
    a = api(alice)
    game = create(a)
    done = a.post(f"/api/games/{game['id']}/resign/").json()
    assert done["game"]["status"] == "finished"
    r = a.post(f"/api/games/{game['id']}/actions/", {"notation": "x", "expected_version": game["version"]}, format="json")
    assert r.status_code == 409 and r.json()["version"] == done["version"]


def test_a_crash_in_the_api_is_answered_in_json(api, alice, monkeypatch):
    from games import selectors

    def broken(*args, **kwargs):
        raise RuntimeError("a bug")

    monkeypatch.setattr(selectors, "MyGames", broken)
    client = api(alice)
    client.raise_request_exception = False
    r = client.get("/api/games/")
    assert r.status_code == 500 and r["Content-Type"] == "application/json"
    assert r.json()["error"] == "server_error"


def test_every_kind_says_which_player_counts_it_takes(api):
    kinds = {k["slug"]: k for k in api().get("/api/kinds/").json()}
    assert 3 not in kinds["kinapa"]["player_counts"] and {2, 4, 8} <= set(kinds["kinapa"]["player_counts"])
    for k in kinds.values():
        assert k["player_counts"] and set(k["player_counts"]) <= set(range(k["min_players"], k["max_players"] + 1))


# ---------------------------------------------------------------- throttling and lockout


def test_it_throttles_the_sign_in_endpoints(api, alice, settings):
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": {
        **settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"], "auth": "3/min"}}
    c = api()
    codes = [c.post("/api/accounts/token/", {"username": "alice", "password": "a-long-password"}, format="json").status_code
             for _ in range(4)]
    assert codes == [200, 200, 200, 429]
    r = c.post("/api/accounts/register/", {"username": "dora", "email": "d@example.com", "password": "a-long-password"},
               format="json")
    assert r.status_code == 429 and r.json()["error"] == "throttled" and int(r["Retry-After"]) > 0


def test_it_throttles_moves_per_player(api, alice, bob, settings):
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": {
        **settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"], "moves": "2/min"}}
    a = api(alice)
    game = create(a)
    codes = [a.post(f"/api/games/{game['id']}/actions/", {"notation": "nonsense"}, format="json").status_code for _ in range(3)]
    assert codes == [409, 409, 429]  # an illegal move is refused by the game (409) and still counts
    assert api(bob).post(f"/api/games/{game['id']}/actions/", {"notation": "nonsense"}, format="json").status_code == 409


def test_it_locks_out_repeated_failed_logins_on_the_token_endpoint(api, alice, settings):
    c = api()
    for _ in range(settings.LOGIN_FAILURE_LIMIT):  # "five failures before a lockout": the fifth is a 401
        assert c.post("/api/accounts/token/", {"username": "alice", "password": "guess"}, format="json").status_code == 401
    r = c.post("/api/accounts/token/", {"username": "alice", "password": "guess"}, format="json")
    assert r.status_code == 429 and r.json()["error"] == "throttled" and int(r["Retry-After"]) > 0
    # locked: even the right password waits for the cool-off
    r = c.post("/api/accounts/token/", {"username": "alice", "password": "a-long-password"}, format="json")
    assert r.status_code == 429


def test_it_answers_an_unknown_name_like_a_wrong_password(api, alice):
    c = api()
    unknown = c.post("/api/accounts/token/", {"username": "nobody", "password": "guess"}, format="json")
    wrong = c.post("/api/accounts/token/", {"username": "alice", "password": "guess"}, format="json")
    assert unknown.status_code == wrong.status_code == 401 and unknown.json() == wrong.json()


def test_a_bot_whose_clock_runs_out_plays_rather_than_forfeits(api, alice, django_capture_on_commit_callbacks):
    """Bots that owe moves (the worker is behind) have clocks like anyone; running out must not
    apply a player's forfeit policy to them."""
    import time_machine
    from django.utils import timezone

    from kinplay.clocks.models import Deadline
    from kinplay.clocks.services import sweep

    with django_capture_on_commit_callbacks(execute=False):
        game = create(api(alice), kind="kenta", seats=[{"bot": "heuristic"}] * 5,
                      clock={"per_move": 10, "on_timeout": "forfeit"})
    version = Game.objects.get(pk=game["id"]).version
    first = Deadline.objects.filter(game_id=game["id"], kind=Deadline.MOVE).earliest("due_at")
    with time_machine.travel(first.due_at + timezone.timedelta(seconds=1), tick=False):
        assert sweep() >= 1
    assert not Event.objects.filter(game_id=game["id"], command__by="timeout-forfeit").exists()
    assert Game.objects.get(pk=game["id"]).version > version


def test_a_forged_forwarded_for_header_does_not_escape_the_throttle(api, alice, settings):
    """Without trusted proxies (PROXY_COUNT=0) a client's own X-Forwarded-For is ignored."""
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": {
        **settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"], "auth": "2/min"}}
    c = api()
    codes = [c.post("/api/accounts/token/", {"username": "alice", "password": "a-long-password"}, format="json",
                    HTTP_X_FORWARDED_FOR=f"10.0.0.{i}").status_code for i in range(3)]
    assert codes == [200, 200, 429]


def test_it_answers_the_last_allowed_failure_as_a_failure_and_refuses_the_next_even_right(api, alice, settings):
    """The boundary of LOGIN_FAILURE_LIMIT=5: four failures, the fifth a 401, the sixth refused."""
    settings.LOGIN_FAILURE_LIMIT = 5
    c = api()
    codes = [c.post("/api/accounts/token/", {"username": "alice", "password": "guess"}, format="json").status_code
             for _ in range(5)]
    assert codes == [401] * 5
    assert c.post("/api/accounts/token/", {"username": "alice", "password": "a-long-password"}, format="json").status_code == 429
