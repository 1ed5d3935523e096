"""The tournament API: shapes, and every refusal a 4xx with a reason and nothing stored."""

import pytest

from kinplay.tournaments.models import Tournament, TournamentEvent


def create(client, **over):
    body = {"name": "Winter duel", "kind": "karenza", "format": "swiss", "rounds": 3, **over}
    return client.post("/api/tournaments/", body, format="json")


def test_it_creates_lists_and_shows_a_tournament(api, alice, bob):
    r = create(api(alice))
    assert r.status_code == 201, r.json()
    t = r.json()
    assert t["status"] == "open" and t["organiser"] == "alice" and t["format"] == "swiss"
    assert t["fairness"]["seed_sha256"] and t["fairness"]["seed"] is None
    assert api(bob).post(f"/api/tournaments/{t['id']}/join/").json()["players"] == [
        {"name": "bob", "status": "active", "rating": None, "timeouts": 0, "seed": None}]
    listed = api().get("/api/tournaments/?status=open").json()
    assert [x["id"] for x in listed] == [t["id"]] and listed[0]["players"] == 1
    assert api().get("/api/tournaments/?status=running").json() == []
    assert api().get(f"/api/tournaments/{t['id']}/").json()["name"] == "Winter duel"


def test_it_starts_a_round_at_once_with_games_that_need_no_acceptance(api, alice, bob, charlie):
    tid = create(api(alice)).json()["id"]
    for u in (alice, bob, charlie):
        assert api(u).post(f"/api/tournaments/{tid}/join/").status_code == 200
    t = api(alice).post(f"/api/tournaments/{tid}/start/").json()
    assert t["status"] == "running"
    tables = t["rounds"][0]["tables"]
    assert sorted(len(tb["players"]) for tb in tables) == [1, 2] and [tb["bye"] for tb in tables] == [False, True]
    game = api(alice).get(f"/api/games/{tables[0]['game']}/").json()
    assert game["status"] == "active" and not any(s["invited"] for s in game["seats"])


@pytest.mark.parametrize("over, status, reason", [  # 400: the schema says no; 422: settings that do not fit together
    ({"format": "ladder"}, 400, "is not a valid choice"),
    ({"format": "round_robin", "kind": "knonsters", "table_size": {"min": 3, "max": 4}}, 422, "Round robin is for duels"),
    ({"rounds": 0}, 400, "rounds: Ensure this value is greater than or equal to 1"),
    ({"format": "knockout", "best_of": 2, "rounds": None}, 400, "best_of: \"2\" is not a valid choice"),
    ({"kind": "kinapa", "table_size": {"min": 3, "max": 3}}, 422, "cannot be played at tables of 3 to 3"),
    ({"kind": "chess"}, 400, "Unknown kind"),
    ({"kind": "knonsters", "points": [1, 2]}, 422, "never rising"),
    ({"points": [1e20, 0]}, 400, "points.0: Ensure this value is less than or equal to 1000"),  # was stored, then every read of it a 500
    ({"min_players": 5001}, 400, "min_players: Ensure this value is less than or equal to 5000"),
    ({"round_days": 0.01}, 400, "round_days: Ensure this value is greater than or equal to 0.0416"),
    ({"rounds": 5, "max_players": 4}, 422, "rounds 5 cannot be paired without rematches: 4 players can play at most 3"),
    ({"bye_points": -1}, 400, "bye_points: Ensure this value is greater than or equal to 0"),
])
def test_it_refuses_bad_settings_with_a_reason_and_stores_nothing(api, alice, over, status, reason):
    r = create(api(alice), **over)
    assert r.status_code == status, r.json()
    assert r.json()["error"] == ("invalid" if status == 400 else "unprocessable") and reason in r.json()["detail"]
    assert not Tournament.objects.exists() and not TournamentEvent.objects.exists()


def test_it_refuses_joining_twice_a_full_or_a_running_tournament(api, alice, bob, charlie):
    tid = create(api(alice), max_players=2, rounds=1).json()["id"]  # two players: one round without a rematch
    assert api(alice).post(f"/api/tournaments/{tid}/join/").status_code == 200
    twice = api(alice).post(f"/api/tournaments/{tid}/join/")
    assert twice.status_code == 409 and "already joined" in twice.json()["detail"]
    api(bob).post(f"/api/tournaments/{tid}/join/")
    full = api(charlie).post(f"/api/tournaments/{tid}/join/")
    assert full.status_code == 409 and "full" in full.json()["detail"]
    api(alice).post(f"/api/tournaments/{tid}/start/")
    late = api(charlie).post(f"/api/tournaments/{tid}/join/")
    assert late.status_code == 409 and "running" in late.json()["detail"]


def test_it_lets_only_the_organiser_start_or_cancel_and_not_below_the_minimum(api, alice, bob):
    tid = create(api(alice)).json()["id"]
    api(bob).post(f"/api/tournaments/{tid}/join/")
    before = TournamentEvent.objects.count()
    for verb in ("start", "cancel"):
        r = api(bob).post(f"/api/tournaments/{tid}/{verb}/")
        assert r.status_code == 403 and r.json()["error"] == "forbidden" and "organiser" in r.json()["detail"]
    few = api(alice).post(f"/api/tournaments/{tid}/start/")
    assert few.status_code == 409 and "Too few players" in few.json()["detail"]
    assert TournamentEvent.objects.count() == before
    assert api().post(f"/api/tournaments/{tid}/join/").status_code in (401, 403)
    assert api(alice).get("/api/tournaments/999/").status_code == 404


def test_it_refuses_withdrawing_from_a_finished_or_foreign_tournament(api, alice, bob):
    tid = create(api(alice)).json()["id"]
    r = api(bob).post(f"/api/tournaments/{tid}/withdraw/")
    assert r.status_code == 409 and "not playing" in r.json()["detail"]
    api(alice).post(f"/api/tournaments/{tid}/cancel/")
    r = api(alice).post(f"/api/tournaments/{tid}/withdraw/")
    assert r.status_code == 409 and "cancelled" in r.json()["detail"]


from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

ANY = st.one_of(st.none(), st.booleans(), st.integers(-5, 300), st.floats(allow_nan=False, allow_infinity=False),
                st.text(max_size=12), st.lists(st.integers(-2, 9), max_size=9),
                st.dictionaries(st.sampled_from(["min", "max", "per_move", "on_timeout", "x"]), st.integers(-1, 9), max_size=3))
FIELDS = ["name", "kind", "options", "format", "rounds", "double", "best_of", "table_size", "advance", "points",
          "clock", "round_days", "max_players", "min_players", "max_timeouts", "starts_at", "rated"]


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(body=st.fixed_dictionaries({"name": st.just("Fuzz"), "kind": st.sampled_from(["karenza", "knonsters", "kinapa", "x"]),
                                   "format": st.sampled_from(["swiss", "round_robin", "knockout", "y"])},
                                  optional={f: ANY for f in FIELDS if f not in ("name", "kind", "format")}))
def test_it_answers_any_creation_body_with_a_4xx_or_a_tournament_never_a_500(api, alice, body):
    r = api(alice).post("/api/tournaments/", body, format="json")
    # 400: a setting the schema refuses; 422: settings that do not fit together (options the kind lacks ...)
    assert r.status_code in (201, 400, 422), r.content
    assert set(r.json()) >= ({"id", "standings"} if r.status_code == 201 else {"error", "detail"})


def test_it_refuses_a_body_it_does_not_read_as_its_schema_says(api, alice):
    r = api(alice).post("/api/tournaments/", "name=Winter duel", content_type="text/plain")
    assert r.status_code == 415 and r.json()["error"] and not Tournament.objects.exists()


def test_it_lets_a_player_leave_and_come_back_while_registration_is_open(api, alice, bob):
    tid = create(api(alice)).json()["id"]
    api(bob).post(f"/api/tournaments/{tid}/join/")
    assert api(bob).post(f"/api/tournaments/{tid}/withdraw/").json()["players"][0]["status"] == "withdrawn"
    back = api(bob).post(f"/api/tournaments/{tid}/join/").json()
    assert back["players"] == [{"name": "bob", "status": "active", "rating": None, "timeouts": 0, "seed": None}]
    assert [r["player"] for r in back["standings"]] == ["bob"]


@pytest.mark.parametrize("over, detail", [
    ({"table_size": {"min": 3}}, "table_size.max: This field is required."),
    ({"points": [1, "a"]}, "points.1: A valid number is required."),
    ({"clock": {"on_timeout": "nap"}}, 'clock.on_timeout: "nap" is not a valid choice.'),
])
def test_it_names_a_nested_field_it_refuses_in_plain_words(api, alice, over, detail):
    r = create(api(alice), **over)
    assert r.status_code == 400 and r.json() == {"error": "invalid", "detail": detail}
    assert not Tournament.objects.exists()


def test_it_refuses_a_move_clock_longer_than_any_game_may_have(api, alice, bob, settings):
    """A clock the games refuse (games.services: at most MAX_PER_MOVE_SECONDS) is refused when
    the tournament is made, not when its first round cannot be dealt."""
    too_long = settings.MAX_PER_MOVE_SECONDS + 1
    r = create(api(alice), clock={"per_move": too_long})
    assert r.status_code == 400 and "clock.per_move" in r.json()["detail"], r.json()
    from kinplay.tournaments import services  # the page's way in: the same refusal

    with pytest.raises(services.TournamentError, match="clock.per_move must be a whole number from 1 to 7776000"):
        services.create(organiser=alice, name="T", kind="karenza", format="swiss", clock={"per_move": too_long})
    assert not Tournament.objects.exists()
    tid = create(api(alice), clock={"per_move": settings.MAX_PER_MOVE_SECONDS}, rounds=1).json()["id"]
    for u in (alice, bob):
        api(u).post(f"/api/tournaments/{tid}/join/")
    assert api(alice).post(f"/api/tournaments/{tid}/start/").status_code == 200


def test_it_reads_a_start_time_without_a_zone_as_utc(alice):
    """As future_start says: a league's or a tournament's start given without a zone is UTC (it
    raised AttributeError: timezone.utc is gone from Django 5)."""
    from datetime import UTC, datetime

    from kinplay.tournaments import services

    t = services.create(organiser=alice, name="Later", kind="karenza", format="swiss", starts_at="2099-01-01T18:00:00")
    assert t.starts_at == datetime(2099, 1, 1, 18, tzinfo=UTC)


def test_it_refuses_to_start_more_swiss_rounds_than_the_field_can_play_without_rematches(api, alice, bob, charlie):
    tid = create(api(alice), rounds=4).json()["id"]
    for u in (alice, bob, charlie):
        api(u).post(f"/api/tournaments/{tid}/join/")
    r = api(alice).post(f"/api/tournaments/{tid}/start/")
    assert r.status_code == 409 and "3 players cannot play 4 Swiss rounds without rematches: at most 3" in r.json()["detail"]
    assert Tournament.objects.get(pk=tid).status == "open"


def test_it_caps_a_scheduled_or_default_swiss_at_the_rounds_its_field_can_play(players):
    from kinplay.tournaments import services
    ps = players(4)
    t = services.create(organiser=ps[0], name="Four at one table", kind="knonsters", format="swiss",
                        table_size={"min": 3, "max": 4})
    for u in ps:
        services.join(t.pk, u)
    services.start(t.pk, ps[0])  # the default (at least 3 rounds) would seat the same four thrice
    assert services.load(Tournament.objects.get(pk=t.pk))["total_rounds"] == 1


def test_it_lets_only_invited_players_in_and_refuses_a_list_naming_nobody(api, alice, bob, charlie):
    nobody = create(api(alice), invited=["alice", "zed"])
    assert nobody.status_code == 422 and "there is no player named zed" in nobody.json()["detail"]
    tid = create(api(alice), invited=["alice", "bob"]).json()["id"]
    assert api(bob).post(f"/api/tournaments/{tid}/join/").status_code == 200
    r = api(charlie).post(f"/api/tournaments/{tid}/join/")
    assert r.status_code == 409 and "by invitation" in r.json()["detail"]
    assert [p["name"] for p in api(alice).get(f"/api/tournaments/{tid}/").json()["players"]] == ["bob"]


def test_it_asks_for_rated_games_or_a_rating_in_the_kind_before_joining(api, alice, bob):
    from kinplay.ratings.models import Rating

    Rating.objects.create(user=bob, kind="karenza", games=3)
    games_needed = create(api(alice), min_rated_games=3).json()["id"]
    r = api(alice).post(f"/api/tournaments/{games_needed}/join/")
    assert r.status_code == 409 and "at least 3 rated games of Karenza: you have 0" in r.json()["detail"]
    assert api(bob).post(f"/api/tournaments/{games_needed}/join/").status_code == 200
    rating_needed = create(api(alice), min_rating=5000).json()["id"]
    r = api(bob).post(f"/api/tournaments/{rating_needed}/join/")
    assert r.status_code == 409 and "a Karenza rating of at least 5000" in r.json()["detail"]


def test_it_lets_a_late_player_into_a_running_swiss_from_the_next_round_with_the_set_points(api, alice, bob, charlie,
                                                                                             make_user):
    from games.models import Game
    from kinplay.tournaments import services
    from tests.play import finish

    dave, erin = make_user("dave"), make_user("erin")
    tid = create(api(alice), rounds=2, late_join=True, late_points=0.5).json()["id"]
    for u in (alice, bob, charlie):
        api(u).post(f"/api/tournaments/{tid}/join/")
    api(alice).post(f"/api/tournaments/{tid}/start/")
    assert api(dave).post(f"/api/tournaments/{tid}/join/").status_code == 200
    t = api(alice).get(f"/api/tournaments/{tid}/").json()
    assert all("dave" not in tb["players"] for tb in t["rounds"][0]["tables"]), "not in the round already paired"
    dave_row = next(r for r in t["standings"] if r["player"] == "dave")
    assert dave_row["points"] == 0.5 and dave_row["played"] == 0
    for tb in t["rounds"][0]["tables"]:
        if tb["game"]:
            finish(Game.objects.get(pk=tb["game"]))
    services.sweep()
    t = api(alice).get(f"/api/tournaments/{tid}/").json()
    assert len(t["rounds"]) == 2 and any("dave" in tb["players"] for tb in t["rounds"][1]["tables"])
    last = api(erin).post(f"/api/tournaments/{tid}/join/")
    assert last.status_code == 409 and "last round" in last.json()["detail"]


def test_it_refuses_a_late_join_where_the_organiser_did_not_allow_it(api, alice, bob, charlie):
    tid = create(api(alice), rounds=1).json()["id"]
    for u in (alice, bob):
        api(u).post(f"/api/tournaments/{tid}/join/")
    api(alice).post(f"/api/tournaments/{tid}/start/")
    r = api(charlie).post(f"/api/tournaments/{tid}/join/")
    assert r.status_code == 409 and "running: joining is closed" in r.json()["detail"]
    bad = create(api(alice), format="knockout", rounds=None, late_join=True)
    assert bad.status_code == 422 and "late_join" in bad.json()["detail"]


def test_it_lets_the_organiser_correct_a_result_with_a_reason_the_history_shows(api, alice, bob, charlie):
    from games.models import Game
    from tests.play import finish

    tid = create(api(alice), rounds=2).json()["id"]
    for u in (alice, bob, charlie):
        api(u).post(f"/api/tournaments/{tid}/join/")
    t = api(alice).post(f"/api/tournaments/{tid}/start/").json()
    i, tb = next((i, tb) for i, tb in enumerate(t["rounds"][0]["tables"]) if not tb["bye"])
    body = {"round": 1, "table": i, "ranks": [1, 1], "reason": "Both agreed a draw; the server lost the offer."}
    early = api(alice).post(f"/api/tournaments/{tid}/correct/", body, format="json")
    assert early.status_code == 409 and "no game with a result" in early.json()["detail"]  # not yet: the state refuses
    nowhere = api(alice).post(f"/api/tournaments/{tid}/correct/", dict(body, round=3), format="json")
    assert nowhere.status_code == 422 and "round must be a whole number from 1 to 1" in nowhere.json()["detail"]
    finish(Game.objects.get(pk=tb["game"]))
    assert api(bob).post(f"/api/tournaments/{tid}/correct/", body, format="json").status_code == 403
    bad = api(alice).post(f"/api/tournaments/{tid}/correct/", dict(body, ranks=[1, 5]), format="json")
    assert bad.status_code == 422 and "ranks must list 2 places" in bad.json()["detail"]
    t = api(alice).post(f"/api/tournaments/{tid}/correct/", body, format="json").json()
    points = {r["player"]: r["points"] for r in t["standings"]}
    assert [points[p] for p in tb["players"]] == [0.5, 0.5]
    assert t["rounds"][0]["tables"][i]["result"] == f"draw (corrected by the organiser: {body['reason']})"
    (c,) = t["corrections"]
    assert c["reason"] == body["reason"] and c["by"] == "alice" and c["players"] == tb["players"] and c["ranks"] == [1, 1]
