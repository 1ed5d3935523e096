"""Kenta's "each player chooses an identification card" when accepting an invitation (issue 13):
the API, the game page, the lobby and a reply to the invitation email all take a colour, as
joining an open seat does; no choice keeps the seat's colour."""

import pytest

from games import services
from games.models import Game, Seat
from games.store import load_state
from tests.mail.mails import AUTHSERV, reply

pytestmark = pytest.mark.django_db


def kenta(api, alice, seats):
    body = {"kind": "kenta", "options": {}, "seats": seats, "clock": {"per_move": None}}
    r = api(alice).post("/api/games/", body, format="json")
    assert r.status_code == 201, r.json()
    return r.json()["id"]


def colours(game_id, n=3):
    return Game.objects.get(pk=game_id).options.get("colors", ["red", "blue", "green", "yellow", "purple"])[:n]


def still_invited(game_id, index):
    return Seat.objects.get(game_id=game_id, index=index).invited


def test_it_lets_an_invited_player_choose_a_free_colour_by_the_api(api, alice, bob, charlie):
    game = kenta(api, alice, [{"user": "alice"}, {"user": "bob"}, {"user": "charlie"}])
    r = api(bob).post(f"/api/games/{game}/accept/", {"choice": "purple"}, format="json")
    assert r.status_code == 200, r.json()
    assert colours(game) == ["red", "purple", "green"]
    r = api(charlie).post(f"/api/games/{game}/accept/", format="json")  # no choice: the seat's colour
    assert r.status_code == 200 and r.json()["status"] == "active"
    assert load_state(Game.objects.get(pk=game))["colors"] == ["red", "purple", "green"]


@pytest.mark.parametrize("choice, says", [
    ("red", "Another player already has red"),      # the creator's
    ("green", "Another player already has green"),  # charlie's, though he has not answered yet
    ("pink", "Choose a colour among red, blue, green, yellow, purple"),
])
def test_it_refuses_a_colour_taken_or_unknown_and_keeps_the_invitation_open(api, alice, bob, charlie, choice, says):
    game = kenta(api, alice, [{"user": "alice"}, {"user": "bob"}, {"user": "charlie"}])
    r = api(bob).post(f"/api/games/{game}/accept/", {"choice": choice}, format="json")
    assert r.status_code == 409 and r.json()["error"] == "illegal_action" and says in r.json()["detail"]
    assert still_invited(game, 1) and colours(game) == ["red", "blue", "green"]


def test_a_colour_an_open_seat_held_passes_that_seat_the_accepting_players_own(api, alice, bob, charlie):
    game = kenta(api, alice, [{"user": "alice"}, {"user": "bob"}, {}])
    assert api(bob).post(f"/api/games/{game}/accept/", {"choice": "green"}, format="json").status_code == 200
    assert colours(game) == ["red", "green", "blue"]
    assert api(charlie).post(f"/api/games/{game}/join/", format="json").status_code == 200
    assert load_state(Game.objects.get(pk=game))["colors"] == ["red", "green", "blue"]


def test_it_refuses_a_choice_when_accepting_a_game_without_one(api, alice, bob):
    r = api(alice).post("/api/games/", {"kind": "knonsters", "seats": [{"user": "alice"}, {"user": "bob"}]},
                        format="json")
    r = api(bob).post(f"/api/games/{r.json()['id']}/accept/", {"choice": "red"}, format="json")
    assert r.status_code == 409 and "nothing to choose" in r.json()["detail"]


def test_the_accept_forms_offer_only_the_colours_still_free(api, alice, bob, charlie, signed_in):
    game = kenta(api, alice, [{"user": "alice"}, {"user": "bob"}, {"user": "charlie"}, {}])
    for page in (signed_in(bob).get(f"/games/{game}/"), signed_in(bob).get("/")):
        html = page.content.decode()
        form = html[html.index(f'action="/games/{game}/accept/"'):]
        form = form[:form.index("</form>")]
        assert '<select name="choice">' in form
        offered = [c for c in ("red", "blue", "green", "yellow", "purple") if f'<option value="{c}">' in form]
        assert offered == ["blue", "yellow", "purple"]  # red and green are held; the open seat's yellow is free
        assert form.index('value="blue"') < form.index('value="yellow"')  # his own first
    signed_in(bob).post(f"/games/{game}/accept/", {"choice": "yellow"})
    assert not still_invited(game, 1) and colours(game, 4) == ["red", "yellow", "green", "blue"]


def test_the_accept_form_says_why_a_colour_was_refused(api, alice, bob, charlie, signed_in):
    game = kenta(api, alice, [{"user": "alice"}, {"user": "bob"}, {"user": "charlie"}])
    signed_in(charlie).post(f"/games/{game}/accept/", {"choice": "purple"})
    r = signed_in(bob).post(f"/games/{game}/accept/", {"choice": "purple"}, follow=True)
    assert "Another player already has purple" in r.content.decode()
    assert still_invited(game, 1)


@pytest.fixture
def mail_server(settings):
    settings.MAIL_AUTHSERV_ID = [AUTHSERV]
    settings.MAIL_TRUST_UNAUTHENTICATED = False


def invitation_to(inbox, user):
    return next(m for m in inbox() if m.to == [user.email] and "invites you" in m.subject)


def test_the_invitation_email_says_how_to_choose_a_colour(api, alice, bob, inbox):
    kenta(api, alice, [{"user": "alice"}, {"user": "bob"}, {}])
    mail = invitation_to(inbox, bob)
    assert "Your colour: blue, unless you choose another one still free: green, yellow, purple." in mail.body
    assert '"accept" plays blue; "accept purple" plays purple' in mail.body
    assert "<code>accept purple</code> plays purple" in mail.alternatives[0][0]


def test_an_invitation_with_no_colour_left_to_choose_names_the_seats(api, alice, bob, charlie, make_user, inbox):
    make_user("dora")
    erin = make_user("erin")
    kenta(api, alice, [{"user": "alice"}, {"user": "bob"}, {"user": "charlie"}, {"user": "dora"}, {"user": "erin"}])
    mail = invitation_to(inbox, erin)  # every colour is held by a seated player: only erin's own is left
    assert "Your colour: purple." in mail.body and "accept purple" not in mail.body


def test_a_knonsters_invitation_email_offers_no_colour(api, alice, bob, inbox):
    api(alice).post("/api/games/", {"kind": "knonsters", "seats": [{"user": "alice"}, {"user": "bob"}]}, format="json")
    assert "colour" not in invitation_to(inbox, bob).body


@pytest.mark.parametrize("words", ["accept yellow", "Accept, Yellow", "accept as yellow", "accept colour yellow."])
def test_a_reply_accept_with_a_colour_chooses_it(api, alice, bob, inbox, mail_server, words):
    game = kenta(api, alice, [{"user": "alice"}, {"user": "bob"}])
    mail = invitation_to(inbox, bob)
    inbox().clear()
    assert reply(to=mail.reply_to[0], sender="bob@example.com", body=words) == "accepted"
    g = Game.objects.get(pk=game)
    assert g.status == Game.ACTIVE and load_state(g)["colors"] == ["red", "yellow"]
    [answer] = [m for m in inbox() if m.subject.startswith("Invitation accepted")]  # the game started: turn emails too
    assert "you accepted the invitation and play yellow" in answer.body


def test_a_reply_accept_keeps_the_seat_colour(api, alice, bob, inbox, mail_server):
    game = kenta(api, alice, [{"user": "alice"}, {"user": "bob"}])
    assert reply(to=invitation_to(inbox, bob).reply_to[0], sender="bob@example.com", body="accept") == "accepted"
    assert load_state(Game.objects.get(pk=game))["colors"] == ["red", "blue"]


def test_a_reply_with_a_colour_taken_changes_nothing_and_says_why(api, alice, bob, inbox, mail_server):
    game = kenta(api, alice, [{"user": "alice"}, {"user": "bob"}])
    mail = invitation_to(inbox, bob)
    inbox().clear()
    assert reply(to=mail.reply_to[0], sender="bob@example.com", body="accept red") == "refused"
    assert still_invited(game, 1) and colours(game, 2) == ["red", "blue"]
    [answer] = inbox()
    assert "Another player already has red" in answer.body and "Nothing was changed" in answer.body


def test_the_service_takes_the_choice_for_every_channel(alice, bob):
    game = services.create_game(creator=alice, kind="kenta", seats=[{"user": "alice"}, {"user": "bob"}])
    services.accept_invitation(game.pk, bob, choice="green")
    assert load_state(Game.objects.get(pk=game.pk))["colors"] == ["red", "green"]
