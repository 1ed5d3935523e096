import hashlib

import pytest

from games.models import Event, Game

pytestmark = pytest.mark.django_db

TWO = [{"user": "alice"}, {"user": "bob"}]


def create(client, **overrides):
    """Create a game; the players it invites accept at once, and the started game is returned."""
    from django.contrib.auth import get_user_model

    from games import services

    body = {"kind": "knonsters", "options": {}, "seats": TWO, "clock": {"per_move": None}}
    body.update(overrides)
    r = client.post("/api/games/", body, format="json")
    invited = [s["name"] for s in r.json()["seats"] if s["invited"]] if r.status_code == 201 else []
    for name in invited:
        services.accept_invitation(r.json()["id"], get_user_model().objects.get(username=name))
    return client.get(f"/api/games/{r.json()['id']}/") if invited else r


def test_it_registers_and_hands_out_tokens(api):
    c = api()
    r = c.post("/api/accounts/register/", {"username": "dora", "email": "dora@example.com", "password": "a-long-password"}, format="json")
    assert r.status_code == 201 and r.json()["token"]
    again = c.post("/api/accounts/register/", {"username": "dora", "email": "d2@example.com", "password": "a-long-password"}, format="json")
    assert again.status_code == 409 and "taken" in again.json()["detail"]
    r = c.post("/api/accounts/token/", {"username": "dora", "password": "a-long-password"}, format="json")
    assert r.status_code == 200 and r.json()["token"]
    assert c.post("/api/accounts/token/", {"username": "dora", "password": "nope"}, format="json").status_code == 401


def test_it_lists_every_kind_with_its_options_schema(api):
    kinds = {k["slug"]: k for k in api().get("/api/kinds/").json()}
    assert kinds["knonsters"]["min_players"] == 2 and kinds["knonsters"]["max_players"] == 4
    assert kinds["knonsters"]["options"]["type"] == "object"


def test_it_refuses_strangers(api):
    assert api().get("/api/games/").status_code == 401
    assert api().get("/api/games/").json()["error"] == "not_authenticated"


def test_it_explains_bad_games(api, alice, bob):
    c = api(alice)
    r = create(c, kind="chess")
    assert r.status_code == 400 and "knonsters" in r.json()["detail"]
    r = create(c, options={"no_such_option": True})
    assert r.status_code == 422 and "Options of Knonsters" in r.json()["detail"]
    r = create(c, seats=[{"user": "alice"}] * 5)
    assert r.status_code == 422
    r = create(c, seats=[{"user": "alice"}, {"user": "nobody"}])
    assert r.status_code == 422 and "nobody" in r.json()["detail"]
    r = c.post("/api/games/", "{not json", content_type="application/json")
    assert r.status_code == 400 and r.json()["error"] == "malformed"
    assert not Game.objects.exists()


def test_it_starts_a_full_table_and_waits_for_open_seats(api, alice, bob, charlie):
    r = create(api(alice), seats=[{"user": "alice"}, {}, {"bot": "random"}])
    game = r.json()
    assert r.status_code == 201 and game["status"] == "waiting"
    assert game["fairness"]["seed_sha256"] and game["fairness"]["seed"] is None
    joined = api(bob).post(f"/api/games/{game['id']}/join/").json()
    assert joined["status"] == "active" and [s["you"] for s in joined["seats"]] == [False, True, False]
    again = api(charlie).post(f"/api/games/{game['id']}/join/")
    assert again.status_code == 409


def test_it_accepts_each_legal_action_and_refuses_anything_else(api, alice, bob):
    game = create(api(alice)).json()
    c = api(alice)
    mine = c.get(f"/api/games/{game['id']}/").json()
    assert mine["legal_actions"], "alice chooses favourites first"
    version = mine["version"]
    bad = c.post(f"/api/games/{game['id']}/actions/", {"action": {"type": "teleport"}}, format="json")
    assert bad.status_code == 409 and bad.json()["error"] == "illegal_action"
    bad = c.post(f"/api/games/{game['id']}/actions/", {"notation": "win the game"}, format="json")
    assert bad.status_code == 409
    assert Event.objects.filter(game_id=game["id"]).count() == version
    move = mine["legal_actions"][-1]
    r = c.post(f"/api/games/{game['id']}/actions/", {"notation": move["notation"].upper()}, format="json")
    assert r.status_code == 201, r.json()
    assert r.json()["version"] > version and r.json()["events"]


def test_it_lets_a_player_act_only_for_their_own_seat(api, alice, bob, charlie):
    game = create(api(alice)).json()
    move = api(alice).get(f"/api/games/{game['id']}/").json()["legal_actions"][0]
    r = api(charlie).post(f"/api/games/{game['id']}/actions/", {"action": move["action"]}, format="json")
    assert r.status_code == 403
    assert api(charlie).post(f"/api/games/{game['id']}/resign/").status_code == 403
    assert Event.objects.filter(game_id=game["id"]).count() == game["version"]


def test_it_answers_a_stale_version_with_409_and_the_current_version(api, alice, bob):
    game = create(api(alice)).json()
    move = api(alice).get(f"/api/games/{game['id']}/").json()["legal_actions"][0]
    ok = api(alice).post(f"/api/games/{game['id']}/actions/", {"action": move["action"], "expected_version": game["version"]}, format="json")
    assert ok.status_code == 201
    bob_move = api(bob).get(f"/api/games/{game['id']}/").json()["legal_actions"][0]
    stale = api(bob).post(f"/api/games/{game['id']}/actions/", {"action": bob_move["action"], "expected_version": game["version"]}, format="json")
    assert stale.status_code == 409 and stale.json()["version"] == ok.json()["version"]


def test_it_stores_a_repeated_request_once(api, alice, bob):
    game = create(api(alice)).json()
    move = api(alice).get(f"/api/games/{game['id']}/").json()["legal_actions"][0]
    url = f"/api/games/{game['id']}/actions/"
    first = api(alice).post(url, {"action": move["action"]}, format="json", HTTP_IDEMPOTENCY_KEY="k-1")
    second = api(alice).post(url, {"action": move["action"]}, format="json", HTTP_IDEMPOTENCY_KEY="k-1")
    assert first.status_code == second.status_code == 201
    assert first.json()["version"] == second.json()["version"]
    assert first.json()["events"] == second.json()["events"]
    assert Event.objects.filter(game_id=game["id"]).count() == first.json()["version"]


def test_it_shows_the_view_as_it_was(api, alice, bob):
    game = create(api(alice)).json()
    move = api(alice).get(f"/api/games/{game['id']}/").json()["legal_actions"][0]
    api(alice).post(f"/api/games/{game['id']}/actions/", {"action": move["action"]}, format="json")
    then = api(alice).get(f"/api/games/{game['id']}/?at={game['version']}").json()
    assert then["view"] == game["view"] and then["legal_actions"] == []
    assert api(alice).get(f"/api/games/{game['id']}/?at=99999").status_code == 404


def test_it_reveals_the_seed_only_at_the_end(api, alice, bob):
    game = create(api(alice), seats=[{"user": "alice"}, {"bot": "heuristic"}]).json()
    r = api(alice).post(f"/api/games/{game['id']}/resign/")
    assert r.status_code == 201
    done = api(alice).get(f"/api/games/{game['id']}/").json()
    assert done["status"] == "finished" and done["result"]
    assert hashlib.sha256(done["fairness"]["seed"].encode()).hexdigest() == game["fairness"]["seed_sha256"]


def test_it_lists_my_games_waiting_for_me_first(api, alice, bob):
    a = create(api(alice)).json()
    b = create(api(alice), seats=[{"user": "alice"}, {}]).json()
    listed = api(alice).get("/api/games/").json()
    assert [g["id"] for g in listed] == [a["id"], b["id"]]
    assert [g["id"] for g in api(alice).get("/api/games/?my_turn=true").json()] == [a["id"]]
    assert [g["id"] for g in api(alice).get("/api/games/?status=waiting").json()] == [b["id"]]


def test_it_serves_the_openapi_schema_and_docs(api):
    r = api().get("/api/schema/")
    assert r.status_code == 200 and b"/api/games/{id}/actions/" in r.content
    assert api().get("/api/docs/").status_code == 200


def test_it_leaves_the_game_out_of_a_move_s_answer_on_request(api, alice, bob):
    game = create(api(alice)).json()
    url = f"/api/games/{game['id']}/actions/"
    move = api(alice).get(f"/api/games/{game['id']}/").json()["legal_actions"][0]
    lean = api(alice).post(f"{url}?view=none", {"action": move["action"], "expected_version": game["version"]}, format="json")
    assert lean.status_code == 201 and set(lean.json()) == {"version", "events"}
    assert lean.json()["version"] == game["version"] + 1 and lean.json()["events"][0]["seq"] == lean.json()["version"]
    move = api(bob).get(f"/api/games/{game['id']}/").json()["legal_actions"][0]
    whole = api(bob).post(url, {"action": move["action"]}, format="json")
    assert whole.status_code == 201 and whole.json()["game"]["version"] == whole.json()["version"]
    assert api(bob).post(f"{url}?view=all", {"action": move["action"]}, format="json").status_code == 400


def _schema_fields(api, name):
    """The properties the served OpenAPI schema gives component ``name``."""
    schema = api().get("/api/schema/?format=json").json()
    return set(schema["components"]["schemas"][name]["properties"])


def test_it_documents_every_field_of_a_game_s_clock(api, alice, bob):
    game = create(api(alice), clock={"per_move": 3600, "window": 600}).json()
    assert game["clock"]["window"] == 600
    assert set(game["clock"]) <= _schema_fields(api, "ClockOut")
    assert set(game) <= _schema_fields(api, "GameOut")


def test_it_lists_the_open_games_a_player_could_join(api, alice, bob, charlie):
    mine = create(api(alice), seats=[{"user": "alice"}, {}]).json()
    invited_only = create(api(alice), seats=[{"user": "alice"}, {"user": "charlie"}]).json()  # no open seat
    full = create(api(bob), seats=[{"user": "bob"}, {"bot": "random"}]).json()
    assert mine["seats"][1]["bot"] is None and mine["seats"][1]["name"] == "open seat"
    listed = api(bob).get("/api/games/?open=true").json()
    assert [g["id"] for g in listed] == [mine["id"]]
    assert invited_only["id"] not in [g["id"] for g in listed] and full["id"] not in [g["id"] for g in listed]
    assert api(alice).get("/api/games/?open=true").json() == []  # her own game is not offered to her
    assert api(bob).post(f"/api/games/{mine['id']}/join/").status_code == 200
    assert api(charlie).get("/api/games/?open=true").json() == []


def test_it_refuses_a_yes_no_filter_it_cannot_read_rather_than_take_it_as_no(api, alice):
    for query in ("my_turn=maybe", "invited=on", "open=2"):
        r = api(alice).get(f"/api/games/?{query}")
        assert r.status_code == 400 and r.json() == {"error": "bad_request", "detail": f"{query.split('=')[0]} must be true or false."}
    for query in ("my_turn=true", "my_turn=0", "invited=No", "open=false"):
        assert api(alice).get(f"/api/games/?{query}").status_code == 200


def test_it_lets_a_client_talk_at_the_table_and_keeps_the_spectators_chat_from_the_players(api, alice, bob, charlie):
    game = api(alice).post("/api/games/", {"kind": "knonsters", "seats": [{"user": "alice"}, {"bot": "random"}]},
                           format="json").json()
    url = f"/api/games/{game['id']}/chat/"
    r = api(alice).post(url, {"text": "  good   luck\n"}, format="json")
    assert r.status_code == 201 and r.json()["channel"] == "players" and r.json()["text"] == "good luck"
    assert api(charlie).post(url, {"text": "alice should play the 3"}, format="json").json()["channel"] == "spectators"
    assert [(line["channel"], line["text"]) for line in api(alice).get(url).json()] == [("players", "good luck")]
    seen = api(charlie).get(url).json()
    assert [(line["channel"], line["text"], line["you"]) for line in seen] == [
        ("players", "good luck", False), ("spectators", "alice should play the 3", True)]
    assert api(charlie).get(url + "?after=1").json() == []
    for bad in ({"text": "   "}, {"text": "x" * 501}, {}):
        r = api(alice).post(url, bad, format="json")
        assert r.status_code == 400 and r.json()["error"] in ("bad_request", "invalid"), r.json()
    assert api(alice).get(url + "?after=x").status_code == 400
    assert api().get(url).status_code == 401
