"""Reaction windows wait for people: as long as the move clock, shorter only if the organiser says."""

from datetime import timedelta

import pytest
import time_machine
from django.utils import timezone

from games import services
from games.engine import IllegalAction, find_legal
from games.kenta import rules as KENTA
from games.kinapa import rules as KINAPA
from games.models import Event
from games.store import load_state
from kinplay.clocks.models import Deadline
from kinplay.clocks.services import sweep
from tests.games.kenta.helpers import Script, at_cards, rolled
from tests.games.kenta.helpers import act as kenta_act
from tests.games.kenta.helpers import game as kenta_game
from tests.windows.helpers import DAY, open_stop_window, stop_window, window_deadlines

pytestmark = pytest.mark.django_db


@pytest.fixture
def clock():
    with time_machine.travel(timezone.now(), tick=False) as traveller:
        yield traveller


def test_it_keeps_a_stop_window_open_for_people_as_long_as_the_move_clock(monkeypatch, clock, alice, bob, charlie):
    game, _, seats = open_stop_window(monkeypatch, [alice, bob, charlie])
    due = window_deadlines(game, seats)
    assert set(due) == set(seats) and all(d == timezone.now() + timedelta(days=2) for d in due.values())
    version = game.version
    clock.shift(timedelta(days=1, hours=23))
    sweep()
    game.refresh_from_db()
    assert game.version == version and stop_window(load_state(game)) == seats  # nobody auto-played before the clock
    clock.shift(timedelta(hours=1, seconds=1))
    sweep()
    game.refresh_from_db()
    assert not stop_window(load_state(game))
    assert sorted(e.data["seat"] for e in Event.objects.filter(game=game, type="timed_out")) == seats


def test_it_lets_the_organiser_set_a_shorter_window(monkeypatch, clock, alice, bob, charlie):
    game, _, seats = open_stop_window(monkeypatch, [alice, bob, charlie], window=3600)
    assert all(d == timezone.now() + timedelta(hours=1) for d in window_deadlines(game, seats).values())
    turns = Deadline.objects.filter(game=game, kind=Deadline.MOVE).exclude(seat__in=seats)  # the clock stood still
    assert turns and all(t.due_at == timezone.now() + timedelta(days=2) for t in turns)  # turns keep the move clock


def test_it_refuses_a_window_longer_than_the_move_clock(api, alice):
    r = api(alice).post("/api/games/", {"kind": "kenta", "seats": [{"user": "alice"}, {"bot": "random"}],
                                        "clock": {"per_move": 3600, "window": 7200}}, format="json")
    assert r.status_code == 422 and r.json()["error"] == "unprocessable" and "window" in r.json()["detail"]
    r = api(alice).post("/api/games/", {"kind": "kenta", "seats": [{"user": "alice"}, {"bot": "random"}],
                                        "clock": {"per_move": 3600, "window": 600}}, format="json")
    assert r.status_code == 201 and r.json()["clock"]["window"] == 600


def test_it_no_longer_lets_an_engine_default_force_a_short_window():
    assert KENTA.OPTIONS_SCHEMA["properties"]["reaction_seconds"]["default"] is None
    assert KENTA.OPTIONS_SCHEMA["properties"]["vote_seconds"]["default"] is None
    assert KINAPA.OPTIONS_SCHEMA["properties"]["window_seconds"]["default"] is None


def test_it_closes_the_window_the_moment_everyone_answered(monkeypatch, alice, bob, charlie):
    game, _, seats = open_stop_window(monkeypatch, [alice, bob, charlie])
    for seat in seats:
        services.act(game.pk, seat, notation="resolve")
    game.refresh_from_db()
    assert not stop_window(load_state(game))
    assert not window_deadlines(game, [s for s in seats if s not in game.to_act])


def test_it_takes_the_plain_words_of_the_issue_as_window_answers():
    s = at_cards(rolled(kenta_game(3, disc="black"), 3, 1))
    s, _ = kenta_act(s, 0, {"type": "end"}, Script(dice=[2, 2]))  # doubles: a secret vote for everyone
    # issue 13: a voter hides a black or a white marker; no marker is only what a timeout does
    for word in ("nothing", "Abstain"):
        with pytest.raises(IllegalAction):
            find_legal(KENTA, s, 2, notation=word)
    assert find_legal(KENTA, s, 2, notation="vote white") == {"type": "vote", "marker": "white"}


def test_it_takes_stop_resolve_and_pass_in_a_stop_window(monkeypatch, alice, bob, charlie):
    game, state, seats = open_stop_window(monkeypatch, [alice, bob, charlie])
    for word in ("resolve", "Resolve", "pass"):
        assert find_legal(KENTA, state, seats[0], notation=word) == {"type": "pass"}
    notations = [a["notation"] for a in KENTA.legal_actions(state, seats[0])]
    assert notations[0] == "resolve" and set(notations) <= {"resolve", "stop"}


def test_it_takes_raise_and_nothing_in_kinapa():
    from tests.games.kinapa.helpers import act, start

    state, evs = start([["A5", "S5", "A3", "S2"], ["A1", "A2", "S3", "A4"], ["S1", "S4", "A6", "S6"], ["A7", "S7", "A8", "S8"]])
    emp = state["emperor"]
    state, evs, _ = act(state, evs, emp, {"type": "announce", "number": 5})
    other = next(p for p, e in KINAPA.to_act(state).items() if e["kind"] == "window")
    assert find_legal(KINAPA, state, other, notation="raise") == {"type": "answer", "raise": True}
    assert find_legal(KINAPA, state, other, notation="nothing") == {"type": "answer", "raise": False}


def test_it_takes_a_window_answer_by_email_reply(monkeypatch, inbox, alice, bob, charlie, settings):
    from tests.mail.mails import AUTHSERV
    from tests.mail.mails import reply as receive_reply

    settings.MAIL_AUTHSERV_ID = [AUTHSERV]  # our receiving server vouches for the sender (tests/mail/mails.py)

    game, _, seats = open_stop_window(monkeypatch, [alice, bob, charlie])
    me = game.seat_list[seats[0]].user
    mail = [m for m in inbox() if m.to == [me.email]][-1]
    assert "your answer: Let the card resolve" in mail.subject and "Your turn" not in mail.subject
    html = mail.alternatives[0][0]
    assert "It is your turn" not in mail.body and "It is your turn" not in html  # the body says what the subject says
    assert mail.subject in mail.body and mail.subject in html
    assert "Your answer is due" in mail.body and "Your move is" not in mail.body and "Your move is" not in html
    reply = "Resolve\n\nOn Tuesday, kinplay wrote:\n> answer\n"
    assert receive_reply(to=mail.reply_to[0], sender=me.email, body=reply) == "accepted"
    answer = Event.objects.filter(game=game, seat=seats[0], command__by="email").get()
    assert answer.command["action"] == {"type": "pass"}


def test_it_names_a_window_an_answer_in_a_digest_too(monkeypatch, alice, bob, charlie):
    from kinplay.notifications.models import Outbox
    from kinplay.notifications.services import compose

    game, _, seats = open_stop_window(monkeypatch, [alice, bob, charlie])
    me = game.seat_list[seats[0]].user
    digest = Outbox(kind=Outbox.DIGEST, user=me, games={str(game.pk): game.version})
    msg = compose(digest)
    html = msg.alternatives[0][0]
    for body in (msg.body, html):
        assert "your answer: Let the card resolve" in body and "Your answer is due" in body and "Your move is" not in body


def test_it_asks_for_the_answer_on_the_page_in_a_line_short_enough_for_a_phone(monkeypatch, client, alice, bob, charlie):
    # the move bar lists the answers by their labels; the banner above the board only says what
    # is asked (with them it wrapped and pushed the board under the bar on a 360 px phone)
    game, _, seats = open_stop_window(monkeypatch, [alice, bob, charlie])
    client.force_login(game.seat_list[seats[0]].user)
    page = client.get(f"/games/{game.pk}/").content.decode()
    banner = page[page.index('id="turn-banner"'):page.index("</div>", page.index('id="turn-banner"'))]
    assert "choose your answer" in banner and "Let the card resolve" not in banner
    assert "Let the card resolve" in page[page.index('id="moves"'):]


def test_it_reminds_a_player_before_a_window_closes(monkeypatch, clock, inbox, alice, bob, charlie):
    game, _, seats = open_stop_window(monkeypatch, [alice, bob, charlie])
    me = game.seat_list[seats[0]].user
    clock.shift(timedelta(days=1, hours=12, seconds=1))  # a quarter of the window is left
    sweep()
    [reminder] = [m for m in inbox() if m.to == [me.email] and m.subject.startswith("Reminder:")]
    assert "your answer: Let the card resolve" in reminder.subject and "(closes in 12 hours)" in reminder.subject


def test_it_waits_days_for_a_kinapa_hand_and_takes_the_answer_by_email(monkeypatch, clock, inbox, alice, bob, settings):
    from tests.mail.mails import AUTHSERV
    from tests.mail.mails import reply as receive_reply
    from tests.play import accepted, step

    settings.MAIL_AUTHSERV_ID = [AUTHSERV]

    game = accepted(services.create_game(creator=alice, kind="kinapa", seats=[{"user": "alice"}, {"user": "bob"}],
                                         per_move=2 * DAY))
    for _ in range(50):
        game.refresh_from_db()
        entries = KINAPA.to_act(load_state(game))
        window = [s for s, e in entries.items() if e["kind"] == "window"]
        if window:
            break
        step(game, seat=game.to_act[0])
    seat = window[0]
    version = game.version
    clock.shift(timedelta(days=1, hours=23))
    sweep()
    game.refresh_from_db()
    assert game.version == version and seat in game.to_act  # a day later the hand still waits for her
    me = game.seat_list[seat].user
    mail = [m for m in inbox() if m.to == [me.email] and "your answer: Raise my hand" in m.subject][-1]
    assert receive_reply(to=mail.reply_to[0], sender=me.email, body="nothing\n") == "accepted"
    game.refresh_from_db()
    assert seat not in game.to_act or KINAPA.to_act(load_state(game))[seat]["kind"] != "window"
    assert not Event.objects.filter(game=game, type="timed_out").exists()


def test_it_tells_on_the_game_page_how_long_windows_last(client, alice):
    game = services.create_game(creator=alice, kind="kenta", seats=[{"user": "alice"}, {"bot": "random"}],
                                per_move=DAY, window=3600)
    client.force_login(alice)
    page = client.get(f"/games/{game.pk}/").content.decode()
    assert "Answers out of turn (STOP, raising a hand, votes): <strong>1 hour</strong>" in page
