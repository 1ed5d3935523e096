"""The ladder API, pages and emails: shapes, who may do what, every refusal a 4xx with a reason
and nothing stored."""

import pytest

from games import services as games
from games.models import Game
from kinplay.ladders.models import Ladder, LadderEvent
from kinplay.notifications.models import Outbox
from kinplay.notifications.services import compose
from kinplay.web.templatetags.kinplay_web import utc
from tests.ladders.conftest import names, open_game, play

# The game's own emails as it is played (turns, its end), beside the challenge's.
PLAY = (Outbox.YOUR_TURN, Outbox.GAME_OVER, Outbox.REMINDER)


def create(client, **over):
    return client.post("/api/ladders/", {"name": "Karenza ladder", "kind": "karenza", **over}, format="json")


def test_it_creates_lists_joins_challenges_and_leaves_through_the_api(api, alice, bob, charlie):
    r = create(api(alice), reach=2, repeat_days=1.5)
    assert r.status_code == 201, r.json()
    lad = r.json()
    assert lad["organiser"] == "alice" and lad["settings"]["reach"] == 2 and lad["settings"]["max_out"] == 1
    lid = lad["id"]
    for u in (alice, bob, charlie):
        assert api(u).post(f"/api/ladders/{lid}/join/").status_code == 200
    shown = api(charlie).get(f"/api/ladders/{lid}/").json()
    assert [(x["place"], x["player"], x["challenge"]) for x in shown["ranking"]] == [(1, "alice", True), (2, "bob", True), (3, "charlie", False)]
    assert shown["place"] == 3 and [h["event"] for h in shown["history"]] == ["joined"] * 3
    r = api(charlie).post(f"/api/ladders/{lid}/challenge/", {"player": "alice"}, format="json")
    assert r.status_code == 200, r.json()
    [c] = r.json()["challenges"]
    assert (c["challenger"], c["challenged"], c["status"], c["places"]) == ("charlie", "alice", "invited", [3, 1])
    assert r.json()["ranking"][1]["refused"].startswith("You already have 1 open challenge")
    assert Game.objects.get(pk=c["game"]).status == Game.WAITING
    assert [x["id"] for x in api().get("/api/ladders/").json()] == [lid]
    assert api(bob).post(f"/api/ladders/{lid}/leave/").json()["ranking"][1]["player"] == "charlie"


@pytest.mark.parametrize("over, code, reason", [
    ({"kind": "chess"}, 400, "Unknown kind"),  # 400: what the schema refuses, its bounds included
    ({"name": ""}, 400, "name"),
    ({"clock": {"on_timeout": "never"}}, 400, "on_timeout"),
    ({"name": " \x1d "}, 422, "name must be 1 to 80 characters"),  # well-formed, refused by the service
    ({"reach": 0}, 400, "reach: Ensure this value is greater than or equal to 1"),
    ({"max_out": 0}, 400, "max_out"),
    ({"max_in": 21}, 400, "max_in"),
    ({"repeat_days": -1}, 400, "repeat_days"),
    ({"answer_days": 30}, 400, "answer_days: Ensure this value is less than or equal to 14"),
    ({"rated": 0}, 400, "rated: Must be a JSON boolean"),  # what the schema says, not what DRF would read
    ({"reach": "3"}, 400, "reach: Must be a JSON integer"),
    ({"repeat_days": False}, 400, "repeat_days: Must be a JSON number"),
    ({"name": 7}, 400, "name: Must be a JSON string"),
    ({"clock": {"per_move": True}}, 400, "per_move: Must be a JSON integer"),
])
def test_it_refuses_bad_ladders_with_the_reason(api, alice, over, code, reason):
    r = create(api(alice), **over)
    assert r.status_code == code, r.json()
    assert reason in str(r.json()), r.json()
    assert not Ladder.objects.exists()


def test_it_refuses_bad_challenges_and_strangers_with_a_4xx_and_stores_nothing(api, ladder, make_user):
    """409: the ladder's state refuses it; 422: it names a player nobody is; 400: malformed."""
    lad, (alice, bob, charlie) = ladder(3)
    dave = make_user("dave")
    before = LadderEvent.objects.filter(ladder=lad).count()
    url = f"/api/ladders/{lad.pk}/challenge/"
    for user, body, code, reason in [
        (dave, {"player": "alice"}, 409, "Join the ladder first"),
        (charlie, {"player": "dave"}, 409, "not on this ladder"),
        (alice, {"player": "charlie"}, 409, "only challenge players above"),
        (charlie, {"player": "charlie"}, 409, "yourself"),
        (charlie, {"player": "nemo"}, 422, "There is no player “nemo”"),
        (charlie, {}, 400, "player"),
    ]:
        r = api(user).post(url, body, format="json")
        assert r.status_code == code and reason in str(r.json()), (body, r.json())
    assert api().post(url, {"player": "alice"}, format="json").status_code in (401, 403)
    assert api().post(f"/api/ladders/{lad.pk}/join/").status_code in (401, 403)
    assert api().post("/api/ladders/", {"name": "x", "kind": "karenza"}, format="json").status_code == 401
    assert api(bob).post("/api/ladders/999999/join/").status_code == 404
    r = api(bob).post(f"/api/ladders/{lad.pk}/join/")
    assert r.status_code == 409 and "already on this ladder" in r.json()["detail"]
    assert api(dave).post(f"/api/ladders/{lad.pk}/leave/").status_code == 409
    assert LadderEvent.objects.filter(ladder=lad).count() == before and not Game.objects.exists()


def test_it_shows_the_ranking_with_challenge_buttons_only_where_allowed(client, ladder):
    lad, (alice, bob, charlie, p4, p5) = ladder(5)
    client.force_login(p5)
    page = client.get(f"/ladders/{lad.pk}/").content.decode()
    assert "You are number 5" in page
    assert page.count(">Challenge</button>") == 3  # bob, charlie, p4: reach 3; not alice
    assert 'name="player" value="alice"' not in page and 'name="player" value="bob"' in page
    r = client.post(f"/ladders/{lad.pk}/challenge/", {"player": "charlie"})
    assert r.status_code == 302 and open_game(lad, p5)
    page = client.get(f"/ladders/{lad.pk}/").content.decode()
    assert page.count(">Challenge</button>") == 0 and "invited · charlie" in page
    r = client.post(f"/ladders/{lad.pk}/challenge/", {"player": "bob"}, follow=True)
    assert "open challenge" in r.content.decode()  # refused, said on the page
    client.logout()
    assert ">Challenge</button>" not in client.get(f"/ladders/{lad.pk}/").content.decode()
    assert "Karenza ladder" in client.get("/ladders/").content.decode()


def test_it_shows_the_history_page(client, ladder):
    lad, (alice, bob, charlie) = ladder(3)
    play(lad, charlie, alice, winner=charlie)
    page = client.get(f"/ladders/{lad.pk}/history/").content.decode()
    assert "charlie beat alice and took their place" in page
    assert "charlie (number 3) challenged alice (number 1)" in page and "alice accepted charlie&#x27;s challenge" in page
    assert names(lad) == ["charlie", "alice", "bob"]


def test_it_joins_leaves_and_organises_through_the_pages(client, alice, bob):
    client.force_login(alice)
    r = client.post("/ladders/new/", {"name": "Page ladder", "kind": "karenza", "reach": "2", "max_out": "1", "max_in": "1",
                                      "repeat_days": "7", "answer_days": "3", "clock-per_move": "86400",
                                      "clock-on_timeout": "forfeit", "rated": "on"})
    assert r.status_code == 302, r.content.decode()[:3000]
    lad = Ladder.objects.get(name="Page ladder")
    assert lad.state["config"]["reach"] == 2
    client.force_login(bob)
    client.post(f"/ladders/{lad.pk}/join/")
    assert names(lad) == ["bob"]
    client.post(f"/ladders/{lad.pk}/leave/")
    assert names(lad) == []


def test_it_emails_the_challenged_player_once_and_both_players_the_result(ladder):
    lad, (alice, bob, charlie) = ladder(3, answer_days=3)
    services_game = play(lad, charlie, bob, winner=charlie)
    # One email for the challenge: the game's invitation, in the ladder's words, answerable by reply.
    [row] = Outbox.objects.filter(user=bob, game_id=services_game).filter(channel=Outbox.EMAIL).exclude(kind="ladder_result").exclude(kind__in=PLAY)
    assert row.kind == Outbox.INVITATION
    msg = compose(row)
    assert "charlie challenges you (place 3 against your place 2)" in msg.subject
    assert "challenge on the ladder Karenza ladder" in msg.body and "they take your place" in msg.body
    answer_by = LadderEvent.objects.get(ladder=lad, type="challenged").data["answer_by"]
    assert "in 7 days" not in msg.body and f"by {utc(answer_by)}" in msg.body
    assert msg.reply_to and "reply to this email" in msg.body
    # An invitation that is not a challenge to this player says nothing of a ladder.
    plain = games.create_game(creator=alice, kind="karenza", seats=[{"user": "alice"}, {"user": "bob"}], invite_only=True)
    [invite] = Outbox.objects.filter(user=bob, game=plain, kind=Outbox.INVITATION, channel=Outbox.EMAIL)
    assert "ladder" not in compose(invite).body and "in 7 days" in compose(invite).body
    results = {r.user.username: compose(r) for r in Outbox.objects.filter(kind="ladder_result")}
    assert set(results) == {"bob", "charlie"}
    assert "you won against bob — you are now number 2" in results["charlie"].subject
    assert "you lost to charlie — you are now number 3" in results["bob"].subject


def test_it_emails_nothing_about_a_result_when_the_challenge_was_declined(ladder):
    lad, (alice, bob) = ladder(2)
    from kinplay.ladders import services
    services.challenge(lad.pk, bob, "alice")
    games.decline_invitation(open_game(lad, bob), alice)
    assert not Outbox.objects.filter(kind="ladder_result").exists()
    assert Outbox.objects.filter(kind="invite_declined", user=bob).exists()  # the game's own email tells the challenger
