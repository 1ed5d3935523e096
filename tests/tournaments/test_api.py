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
        {"name": "bob", "status": "active", "rating": None, "timeouts": 0}]
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


@pytest.mark.parametrize("over, reason", [
    ({"format": "ladder"}, "format must be one of"),
    ({"format": "round_robin", "kind": "knonsters", "table_size": {"min": 3, "max": 4}}, "Round robin is for duels"),
    ({"rounds": 0}, "rounds must be a whole number from 1"),
    ({"format": "knockout", "best_of": 2, "rounds": None}, "best_of must be 1 or 3"),
    ({"kind": "kinapa", "table_size": {"min": 3, "max": 3}}, "cannot be played at tables of 3 to 3"),
    ({"kind": "chess"}, "Unknown kind"),
    ({"kind": "knonsters", "points": [1, 2]}, "never rising"),
    ({"points": [1e20, 0]}, "numbers from 0 to 1000"),  # was stored, then every read of it a 500
])
def test_it_refuses_bad_settings_with_a_reason_and_stores_nothing(api, alice, over, reason):
    r = create(api(alice), **over)
    assert r.status_code == 400, r.json()
    assert r.json()["error"] in ("bad_request", "invalid") and reason in r.json()["detail"]
    assert not Tournament.objects.exists() and not TournamentEvent.objects.exists()


def test_it_refuses_joining_twice_a_full_or_a_running_tournament(api, alice, bob, charlie):
    tid = create(api(alice), max_players=2).json()["id"]
    assert api(alice).post(f"/api/tournaments/{tid}/join/").status_code == 200
    twice = api(alice).post(f"/api/tournaments/{tid}/join/")
    assert twice.status_code == 400 and "already joined" in twice.json()["detail"]
    api(bob).post(f"/api/tournaments/{tid}/join/")
    full = api(charlie).post(f"/api/tournaments/{tid}/join/")
    assert full.status_code == 400 and "full" in full.json()["detail"]
    api(alice).post(f"/api/tournaments/{tid}/start/")
    late = api(charlie).post(f"/api/tournaments/{tid}/join/")
    assert late.status_code == 400 and "running" in late.json()["detail"]


def test_it_lets_only_the_organiser_start_or_cancel_and_not_below_the_minimum(api, alice, bob):
    tid = create(api(alice)).json()["id"]
    api(bob).post(f"/api/tournaments/{tid}/join/")
    before = TournamentEvent.objects.count()
    for verb in ("start", "cancel"):
        r = api(bob).post(f"/api/tournaments/{tid}/{verb}/")
        assert r.status_code == 403 and r.json()["error"] == "forbidden" and "organiser" in r.json()["detail"]
    few = api(alice).post(f"/api/tournaments/{tid}/start/")
    assert few.status_code == 400 and "Too few players" in few.json()["detail"]
    assert TournamentEvent.objects.count() == before
    assert api().post(f"/api/tournaments/{tid}/join/").status_code in (401, 403)
    assert api(alice).get("/api/tournaments/999/").status_code == 404


def test_it_refuses_withdrawing_from_a_finished_or_foreign_tournament(api, alice, bob):
    tid = create(api(alice)).json()["id"]
    r = api(bob).post(f"/api/tournaments/{tid}/withdraw/")
    assert r.status_code == 400 and "not playing" in r.json()["detail"]
    api(alice).post(f"/api/tournaments/{tid}/cancel/")
    r = api(alice).post(f"/api/tournaments/{tid}/withdraw/")
    assert r.status_code == 400 and "cancelled" in r.json()["detail"]


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
    assert r.status_code in (201, 400), r.content
    assert set(r.json()) >= ({"id", "standings"} if r.status_code == 201 else {"error", "detail"})


def test_it_refuses_a_body_it_does_not_read_as_its_schema_says(api, alice):
    r = api(alice).post("/api/tournaments/", "name=Winter duel", content_type="text/plain")
    assert r.status_code == 415 and r.json()["error"] and not Tournament.objects.exists()


def test_it_lets_a_player_leave_and_come_back_while_registration_is_open(api, alice, bob):
    tid = create(api(alice)).json()["id"]
    api(bob).post(f"/api/tournaments/{tid}/join/")
    assert api(bob).post(f"/api/tournaments/{tid}/withdraw/").json()["players"][0]["status"] == "withdrawn"
    back = api(bob).post(f"/api/tournaments/{tid}/join/").json()
    assert back["players"] == [{"name": "bob", "status": "active", "rating": None, "timeouts": 0}]
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
    tid = create(api(alice), clock={"per_move": settings.MAX_PER_MOVE_SECONDS}).json()["id"]
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
