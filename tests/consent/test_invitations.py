"""Invitations: seating someone else asks them first (issue 10, "Consent")."""

from datetime import timedelta

import pytest
import time_machine
from django.conf import settings
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from games import selectors, services
from games.models import Game
from games.store import game_with_seats
from kinplay.clocks.models import Deadline
from kinplay.clocks.services import sweep

pytestmark = pytest.mark.django_db

KNONSTERS = {"kind": "knonsters", "clock": {"per_move": 3600}}


def create(client, seats, **extra):
    return client.post("/api/games/", {**KNONSTERS, "seats": seats, **extra}, format="json")


def test_it_waits_for_an_invited_player_and_starts_when_they_accept(api, alice, bob, inbox):
    r = create(api(alice), [{"user": "alice"}, {"user": "bob"}])
    game = r.json()
    assert r.status_code == 201 and game["status"] == "waiting"
    assert [s["invited"] for s in game["seats"]] == [False, True]
    invitation = [m for m in inbox() if m.to == ["bob@example.com"]]
    assert len(invitation) == 1 and "alice invites you to play Knonsters" in invitation[0].subject
    assert "accept" in invitation[0].body and invitation[0].reply_to and "play+" in invitation[0].reply_to[0]
    assert not [m for m in inbox() if m.to == ["alice@example.com"]]  # no "your turn" before the game starts

    r = api(bob).post(f"/api/games/{game['id']}/accept/")
    assert r.status_code == 200, r.json()
    body = r.json()
    assert body["status"] == "active" and [s["invited"] for s in body["seats"]] == [False, False]
    assert body["deadline"] is not None
    assert len([m for m in inbox() if "invites you" in m.subject]) == 1  # still the one invitation


def test_it_runs_nobodys_clock_before_every_invitation_is_accepted(api, alice, bob, charlie):
    game = create(api(alice), [{"user": "alice"}, {"user": "bob"}, {"user": "charlie"}]).json()
    api(bob).post(f"/api/games/{game['id']}/accept/")
    row = Game.objects.get(pk=game["id"])
    assert row.status == Game.WAITING and row.version == 0 and row.deadline is None
    assert not Deadline.objects.filter(game=row, kind__in=[Deadline.MOVE, Deadline.REMINDER]).exists()
    with time_machine.travel(timezone.now() + timedelta(days=2)):
        assert sweep() == 0  # nothing is due: no move clock exists yet
    r = api(alice).post(f"/api/games/{game['id']}/actions/", {"notation": "anything"}, format="json")
    assert r.status_code == 409 and "not started" in r.json()["detail"]
    api(charlie).post(f"/api/games/{game['id']}/accept/")
    row.refresh_from_db()
    assert row.status == Game.ACTIVE and row.deadline is not None


def test_it_lists_the_invitations_i_have_to_answer(api, alice, bob, charlie):
    asked = create(api(alice), [{"user": "alice"}, {"user": "bob"}]).json()
    create(api(alice), [{"user": "alice"}, {"user": "charlie"}])
    mine = create(api(bob), [{"user": "bob"}, {"bot": "random"}]).json()
    assert [g["id"] for g in api(bob).get("/api/games/?invited=true").json()] == [asked["id"]]
    assert [g["id"] for g in api(bob).get("/api/games/?invited=false").json()] == [mine["id"]]
    assert [g["id"] for g in api(bob).get("/api/games/").json()][0] == asked["id"]  # invitations first
    api(bob).post(f"/api/games/{asked['id']}/accept/")
    assert api(bob).get("/api/games/?invited=true").json() == []


def test_it_opens_the_seat_when_an_invitation_is_declined_and_tells_the_creator(api, alice, bob, charlie, inbox):
    game = create(api(alice), [{"user": "alice"}, {"user": "bob"}]).json()
    r = api(bob).post(f"/api/games/{game['id']}/decline/")
    assert r.status_code == 200
    body = api(alice).get(f"/api/games/{game['id']}/").json()
    assert body["status"] == "waiting" and body["seats"][1] == {"index": 1, "name": "open seat", "bot": None, "you": False, "invited": False}
    told = [m for m in inbox() if m.to == ["alice@example.com"]]
    assert len(told) == 1 and "bob declined" in told[0].subject and "open" in told[0].body
    assert api(bob).get(f"/api/games/{game['id']}/").json()["you"] is None
    r = api(charlie).post(f"/api/games/{game['id']}/join/")
    assert r.status_code == 200 and r.json()["status"] == "active"  # joining an open seat is consent


def test_it_cancels_an_invite_only_game_when_an_invitation_is_declined(api, alice, bob, charlie, inbox):
    game = create(api(alice), [{"user": "alice"}, {"user": "bob"}, {"user": "charlie"}], invite_only=True).json()
    api(charlie).post(f"/api/games/{game['id']}/accept/")
    api(bob).post(f"/api/games/{game['id']}/decline/")
    assert Game.objects.get(pk=game["id"]).status == Game.ABORTED
    told = sorted(m.to[0] for m in inbox() if "declined" in m.subject)
    assert told == ["alice@example.com", "charlie@example.com"]
    assert "cancelled" in next(m for m in inbox() if "declined" in m.subject).body
    r = api(charlie).post(f"/api/games/{game['id']}/decline/")
    assert r.status_code == 409 and r.json()["detail"] == "This game was cancelled."


def test_it_lets_an_invitation_lapse_after_seven_days(api, alice, bob, inbox):
    with time_machine.travel(timezone.now(), tick=False) as clock:
        game = create(api(alice), [{"user": "alice"}, {"user": "bob"}]).json()
        clock.shift(timedelta(days=7) - timedelta(minutes=1))
        sweep()
        assert Game.objects.get(pk=game["id"]).seats.get(index=1).user_id == bob.pk
        clock.shift(timedelta(minutes=2))
        assert sweep() == 1
    seat = Game.objects.get(pk=game["id"]).seats.get(index=1)
    assert seat.is_open and not seat.invited
    lapsed = [m for m in inbox() if m.to == ["alice@example.com"]]
    assert len(lapsed) == 1 and "bob did not answer" in lapsed[0].subject
    r = api(bob).post(f"/api/games/{game['id']}/accept/")
    assert r.status_code == 403


def test_it_forgets_the_lapse_of_an_answered_invitation(api, alice, bob):
    game = create(api(alice), [{"user": "alice"}, {"user": "bob"}]).json()
    api(bob).post(f"/api/games/{game['id']}/accept/")
    with time_machine.travel(timezone.now() + timedelta(days=8)):
        sweep()
    assert Game.objects.get(pk=game["id"]).seats.get(index=1).user_id == bob.pk
    assert Deadline.objects.get(game_id=game["id"], kind=Deadline.INVITATION).outcome == "accepted"


def test_it_cancels_a_game_nobody_is_left_at(api, alice, bob, charlie):
    game = create(api(alice), [{"user": "bob"}, {"user": "charlie"}]).json()  # alice only organises
    api(bob).post(f"/api/games/{game['id']}/decline/")
    assert Game.objects.get(pk=game["id"]).status == Game.WAITING  # charlie may still come
    api(charlie).post(f"/api/games/{game['id']}/decline/")
    assert Game.objects.get(pk=game["id"]).status == Game.ABORTED


def test_it_needs_no_acceptance_from_bots_or_the_creator(api, alice):
    r = create(api(alice), [{"user": "alice"}, {"bot": "random"}])
    assert r.json()["status"] == "active" and not any(s["invited"] for s in r.json()["seats"])
    r = api(alice).post(f"/api/games/{r.json()['id']}/accept/")
    assert r.status_code == 409 and "needs no invitation" in r.json()["detail"]


def test_it_refuses_answers_from_people_not_invited(api, alice, bob, charlie):
    game = create(api(alice), [{"user": "alice"}, {"user": "bob"}]).json()
    for path in ("accept", "decline"):
        r = api(charlie).post(f"/api/games/{game['id']}/{path}/")
        assert r.status_code == 403 and r.json() == {"error": "forbidden", "detail": "You have no invitation to this game."}
    assert api(charlie).post(f"/api/games/{game['id']}/join/").json()["detail"].startswith("No seat is open")
    assert api(charlie).post("/api/games/99999/accept/").status_code == 404
    api(bob).post(f"/api/games/{game['id']}/accept/")
    r = api(bob).post(f"/api/games/{game['id']}/accept/")
    assert r.status_code == 409 and "already accepted" in r.json()["detail"]


def test_it_answers_an_invitation_from_the_game_page(client, alice, bob, charlie):
    game = services.create_game(creator=alice, kind="knonsters", seats=[{"user": "alice"}, {"user": "bob"}, {"user": "charlie"}])
    client.force_login(bob)
    lobby = client.get(reverse("lobby")).content.decode()
    assert "Invitations" in lobby and reverse("game-accept", args=[game.pk]) in lobby
    assert lobby.index("Invitations") < lobby.index("Open games")
    page = client.get(reverse("game", args=[game.pk])).content.decode()
    assert "alice invites you" in page and reverse("game-decline", args=[game.pk]) in page
    r = client.post(reverse("game-accept", args=[game.pk]))
    assert r.status_code == 302
    assert Game.objects.get(pk=game.pk).seats.get(index=1).invited is False
    client.force_login(charlie)
    client.post(reverse("game-decline", args=[game.pk]))
    seat = Game.objects.get(pk=game.pk).seats.get(index=2)
    assert seat.is_open
    page = client.get(reverse("game", args=[game.pk])).content.decode()
    assert "Join game" in page


def test_it_creates_an_invite_only_game_from_the_form_and_cancels_it_on_a_decline(client, alice, bob, tiny, inbox):
    from tests.web.test_pages import form_data

    client.force_login(alice)
    r = client.post(reverse("new-game"), form_data(**{"seat-2-type": "user", "seat-2-user": "bob", "invite_only": "on"}))
    game = Game.objects.get()
    assert r.status_code == 302 and game.invite_only and game.status == Game.WAITING
    page = client.get(reverse("game", args=[game.pk])).content.decode()
    assert "Waiting for <strong>bob</strong> to accept" in page
    client.force_login(bob)
    r = client.post(reverse("game-decline", args=[game.pk]), follow=True)
    assert "You declined the invitation." in r.content.decode()
    assert Game.objects.get(pk=game.pk).status == Game.ABORTED
    told = [m for m in inbox() if m.to == ["alice@example.com"]]
    assert len(told) == 1 and "The game is cancelled." in told[0].body


def test_it_writes_the_invitation_email_in_text_and_html(alice, bob, inbox):
    game = services.create_game(creator=alice, kind="knonsters", seats=[{"user": "alice"}, {"user": "bob"}], per_move=86400)
    mail = inbox()[0]
    assert mail.to == ["bob@example.com"] and mail.subject == f"alice invites you to play Knonsters #{game.pk}"
    assert "Players: alice, bob." in mail.body and "1 day" in mail.body and f"/games/{game.pk}/" in mail.body
    html = mail.alternatives[0][0]
    assert "Accept or decline" in html and f"/games/{game.pk}/" in html



def test_it_links_the_rules_from_the_invitation_email_for_someone_who_does_not_know_the_game(alice, bob, inbox, client):
    services.create_game(creator=alice, kind="kinapa", seats=[{"user": "alice"}, {"user": "bob"}], per_move=86400)
    mail = inbox()[0]
    line = next(line for line in mail.body.splitlines() if line.startswith("How to play Kinapa: "))
    url = line.removeprefix("How to play Kinapa: ")
    assert f'href="{url}"' in mail.alternatives[0][0]
    page = client.get(url.removeprefix(settings.SITE_URL.rstrip("/")))  # read without signing in
    assert page.status_code == 200 and "Kinapa" in page.content.decode()


# ---------------------------------------------------------------- the creator calls it off


def test_it_lets_the_creator_cancel_a_game_that_has_not_started_and_tells_the_table(api, alice, bob, charlie, inbox):
    game = create(api(alice), [{"user": "alice"}, {"user": "bob"}, {"user": "charlie"}]).json()
    api(charlie).post(f"/api/games/{game['id']}/accept/")
    r = api(alice).post(f"/api/games/{game['id']}/cancel/")
    assert r.status_code == 200 and r.json()["status"] == "aborted"
    told = {m.to[0]: m for m in inbox() if "cancelled" in m.subject}
    assert sorted(told) == ["bob@example.com", "charlie@example.com"]  # invited or seated; not alice herself
    assert "alice cancelled Knonsters" in told["bob@example.com"].subject
    assert "your invitation needs no answer" in told["bob@example.com"].body
    assert "your invitation needs no answer" not in told["charlie@example.com"].body
    assert Deadline.objects.get(game_id=game["id"], seat=1, kind=Deadline.INVITATION).outcome == "cancelled"
    r = api(bob).post(f"/api/games/{game['id']}/accept/")
    assert r.status_code == 409 and r.json()["detail"] == "This game was cancelled."


def test_it_lets_only_the_creator_cancel_and_only_before_the_start(api, alice, bob, charlie, inbox):
    game = create(api(alice), [{"user": "alice"}, {"user": "bob"}]).json()
    for stranger in (bob, charlie):
        r = api(stranger).post(f"/api/games/{game['id']}/cancel/")
        assert r.status_code == 403 and "Only the player who created" in r.json()["detail"]
    api(bob).post(f"/api/games/{game['id']}/accept/")
    r = api(alice).post(f"/api/games/{game['id']}/cancel/")
    assert r.status_code == 409 and "has started" in r.json()["detail"]
    assert Game.objects.get(pk=game["id"]).status == Game.ACTIVE
    assert not [m for m in inbox() if "cancelled" in m.subject]


def test_it_offers_the_creator_a_cancel_button_on_the_page_of_a_waiting_game(client, alice, bob):
    game = services.create_game(creator=alice, kind="knonsters", seats=[{"user": "alice"}, {}])
    client.force_login(bob)
    assert "Cancel this game" not in client.get(reverse("game", args=[game.pk])).content.decode()
    client.force_login(alice)
    assert "Cancel this game" in client.get(reverse("game", args=[game.pk])).content.decode()
    r = client.post(reverse("game-cancel", args=[game.pk]), follow=True)
    assert r.redirect_chain[-1][0] == reverse("lobby") and "You cancelled the game" in r.content.decode()
    game.refresh_from_db()
    assert game.status == Game.ABORTED
    assert "Cancel this game" not in client.get(reverse("game", args=[game.pk])).content.decode()


def test_it_asks_before_a_decline_and_says_when_it_cancels_the_game(client, alice, bob):
    plain = services.create_game(creator=alice, kind="knonsters", seats=[{"user": "alice"}, {"user": "bob"}])
    only = services.create_game(creator=alice, kind="knonsters", seats=[{"user": "alice"}, {"user": "bob"}],
                                invite_only=True)
    client.force_login(bob)
    for page in (client.get(reverse("game", args=[only.pk])), client.get(reverse("lobby"))):
        assert 'data-confirm="Decline this invitation? The game is for invited players only: it will be cancelled."' \
            in page.content.decode()
    assert 'data-confirm="Decline this invitation?"' in client.get(reverse("game", args=[plain.pk])).content.decode()


def test_it_lets_a_player_who_accepted_leave_before_the_start_and_tells_the_creator(api, alice, bob, charlie, inbox):
    game = create(api(alice), [{"user": "alice"}, {"user": "bob"}, {"user": "charlie"}]).json()
    api(bob).post(f"/api/games/{game['id']}/accept/")
    r = api(charlie).post(f"/api/games/{game['id']}/leave/")
    assert r.status_code == 409 and "decline it instead" in r.json()["detail"]  # not accepted yet
    assert api(alice).post(f"/api/games/{game['id']}/leave/").json()["detail"] == "You created this game: cancel it instead."
    r = api(bob).post(f"/api/games/{game['id']}/leave/")
    assert r.status_code == 200 and r.json()["status"] == "waiting" and r.json()["seats"][1]["name"] == "open seat"
    [told] = [m for m in inbox() if "left" in m.subject]
    assert told.to == ["alice@example.com"] and "bob left Knonsters" in told.subject and "open now" in told.body
    api(charlie).post(f"/api/games/{game['id']}/accept/")
    api(bob).post(f"/api/games/{game['id']}/join/")  # the seat is anybody's: bob takes it again
    r = api(bob).post(f"/api/games/{game['id']}/leave/")
    assert r.status_code == 409 and "has started" in r.json()["detail"]


def test_it_offers_leave_on_the_page_to_a_player_who_joined(client, alice, bob):
    game = services.create_game(creator=alice, kind="knonsters", seats=[{"user": "alice"}, {}, {}])
    services.join_game(game.pk, bob)
    client.force_login(bob)
    assert "Leave this game" in client.get(reverse("game", args=[game.pk])).content.decode()
    r = client.post(reverse("game-leave", args=[game.pk]), follow=True)
    assert "You left the game" in r.content.decode()
    game.refresh_from_db()
    assert game.status == Game.WAITING and game.seat_of(bob) is None
    client.force_login(alice)
    assert "Leave this game" not in client.get(reverse("game", args=[game.pk])).content.decode()


def test_it_says_on_the_page_who_cancelled_a_game_before_it_started_and_why(client, alice, bob, charlie):
    """"Cancelled" alone left the table guessing: the creator, a decline, a lapse or a leave."""
    def page_of(game):
        client.force_login(charlie)
        return client.get(reverse("game", args=[game.pk])).content.decode()

    three = [{"user": "alice"}, {"user": "bob"}, {"user": "charlie"}]
    called_off = services.create_game(creator=alice, kind="knonsters", seats=three)
    services.cancel_game(called_off.pk, alice)
    assert "Cancelled by alice before it started." in page_of(called_off)
    assert selectors.wait_line(game_with_seats(called_off.pk), 0) == "Knonsters: cancelled"

    declined = services.create_game(creator=alice, kind="knonsters", seats=three, invite_only=True)
    services.decline_invitation(declined.pk, bob)
    assert "Cancelled: bob declined the invitation." in page_of(declined)
    # the same in the API and on the lobby's card (charlie signed in by page_of)
    assert client.get(f"/api/games/{declined.pk}/").json()["called_off"] == {
        "reason": "declined", "by": "bob", "text": "Cancelled: bob declined the invitation."}
    assert "Cancelled: bob declined the invitation." in client.get(reverse("lobby")).content.decode()

    lapsed = services.create_game(creator=alice, kind="knonsters", seats=three, invite_only=True)
    services.accept_invitation(lapsed.pk, charlie)
    with time_machine.travel(timezone.now() + timedelta(days=8)):
        sweep()
    assert "Cancelled: the invitation to bob expired." in page_of(lapsed)

    left = services.create_game(creator=alice, kind="knonsters", seats=three, invite_only=True)
    services.accept_invitation(left.pk, bob)
    services.leave_game(left.pk, bob)
    assert "Cancelled: bob left before it started." in page_of(left)


def test_it_lists_cancelled_games_without_a_query_for_each(api, alice, bob, charlie, django_assert_max_num_queries):
    """Each cancelled game in a list says who called it off: read with the list, not one by one."""
    three = [{"user": "alice"}, {"user": "bob"}, {"user": "charlie"}]

    def cancelled(n):
        for _ in range(n):
            game = services.create_game(creator=alice, kind="knonsters", seats=three, invite_only=True)
            services.decline_invitation(game.pk, bob)

    client = api(charlie)
    cancelled(1)
    with CaptureQueriesContext(connection) as one:
        assert client.get("/api/games/").status_code == 200
    cancelled(5)
    with django_assert_max_num_queries(len(one)):
        games = client.get("/api/games/").json()
    assert [g["called_off"]["text"] for g in games] == ["Cancelled: bob declined the invitation."] * 6
