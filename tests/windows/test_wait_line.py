"""A window is not "your turn": page, lobby and email subject say what happened and what to answer."""

import re

import pytest
import time_machine
from django.utils import timezone

from games import selectors, services
from games.registry import get
from tests.play import accepted
from tests.windows.helpers import open_stop_window

pytestmark = pytest.mark.django_db

LINE = re.compile(r"Kenta: (\w+) plays ([^—]+) — your answer: Let the card resolve(, or Play STOP: cancel this card)?"
                  r" \(closes in 2 days\)")


def test_it_says_what_to_answer_in_the_page_the_lobby_and_the_email(monkeypatch, client, inbox, alice, bob, charlie):
    with time_machine.travel(timezone.now(), tick=False):
        game, state, seats = open_stop_window(monkeypatch, [alice, bob, charlie])
        me = game.seat_list[seats[0]].user
        line = selectors.wait_line(game, seats[0])
        assert LINE.fullmatch(line), line
        player = LINE.fullmatch(line).group(1)
        assert player == game.seat_list[state["playing"]["seat"]].name
        mails = [m for m in inbox() if m.to == [me.email]]  # sent as the worker sends it, before he opens the page
        client.force_login(me)
        page = client.get(f"/games/{game.pk}/").content.decode()
        asked = selectors.waiting(game, seats[0], due=False, answers=False)["line"]  # the move bar names the answers
        assert asked == line.split(" — ")[0] + " — choose your answer" and asked in page.replace("&#x27;", "'")
        assert "<title>Answer · Kenta" in page and "Your turn" not in page
        lobby = client.get("/").content.decode()
        assert line in lobby.replace("&#x27;", "'")
        assert mails[-1].subject == line.replace("Kenta:", f"Kenta #{game.pk}:")


def _kinapa_hand():
    from tests.games.kinapa.helpers import act, start

    state, evs = start([["A5", "S5", "A3", "S2"], ["A1", "A2", "S3", "A4"], ["S1", "S4", "A6", "S6"]])
    state, _, _ = act(state, evs, state["emperor"], {"type": "announce", "number": 5})
    return state


def _knonsters_offer():
    from tests.games.knonsters.helpers import play, race

    state = race(pos={"Rithle": 58}, pile=["rank2"] * 6,
                 hands=[["Rithle+5", "rank2", "rank3", "rank4", "rank4"], ["Celya+5", "Celya+7", "rank2", "rank3", "rank4"]])
    return play(state, 0, "Rithle+5")[1]


@pytest.mark.parametrize(("kind", "window", "answer"), [
    ("kinapa", _kinapa_hand, "Raise my hand (“I don't have it”), or Do nothing (“maybe I have it…”)"),
    ("knonsters", _knonsters_offer, "Yes, let the system finish the game for me, or No, I keep playing"),
])
def test_it_words_a_window_s_answers_as_the_move_list_does(kind, window, answer, alice, bob):
    game = accepted(services.create_game(creator=alice, kind=kind, seats=[{"user": "alice"}, {"user": "bob"}]))
    state = window()
    seat = next(s for s, e in get(kind).rules.to_act(state).items() if e["kind"] == "window")
    game.to_act = [seat]  # the read model as it would be in that state
    line = selectors.waiting(game, seat, state=state, due=False)
    assert line["window"] and line["line"].endswith(f"your answer: {answer}"), line


def test_it_names_whom_a_turn_waits_for_without_a_stray_comma(client, alice, bob, charlie):
    game = accepted(services.create_game(creator=alice, kind="knonsters", seats=[{"user": "alice"}, {"user": "bob"}, {"user": "charlie"}]))
    client.force_login(alice)
    services.act(game.pk, 0, notation=next(a["notation"] for a in selectors.game_for(game, alice)["legal_actions"]))
    game.refresh_from_db()
    assert selectors.wait_line(game, 0, due=False) == "Knonsters: waiting for bob and charlie"
    assert selectors.wait_line(game, 1, due=False) == "Your turn in Knonsters"


def test_it_credits_each_log_line_to_no_one_but_the_player_it_names(monkeypatch, client, alice, bob, charlie):
    game, _, seats = open_stop_window(monkeypatch, [alice, bob, charlie])
    client.force_login(alice)
    page = client.get(f"/games/{game.pk}/").content.decode()
    log = page[page.index('<ol class="log"'):page.index("</ol>", page.index('<ol class="log"'))]
    # "bob rolled …" happens inside alice's command (her turn ended): no "· alice" beside it.
    for meta in re.findall(r'<span class="log-meta muted">(.*?)<time', log, re.S):
        assert meta.strip() == ""
    assert "rolled" in log


def test_it_rounds_the_time_left_instead_of_cutting_it(alice, bob):
    from datetime import timedelta

    game = accepted(services.create_game(creator=alice, kind="knonsters", seats=[{"user": "alice"}, {"user": "bob"}],
                                         per_move=2 * 86400))
    game.refresh_from_db()
    now = game.deadline - timedelta(days=2) + timedelta(seconds=5)  # a few seconds after the move
    assert selectors.wait_line(game, 0, now=now) == "Your turn in Knonsters (due in 2 days)"
    assert selectors.wait_line(game, 0, now=game.deadline - timedelta(hours=1, minutes=40)) == "Your turn in Knonsters (due in 2 hours)"


def test_it_finds_a_window_s_cause_once_per_version_seat_and_names(monkeypatch, alice, bob, charlie):
    """The cause is kept in the shared cache (a lobby shows it on every visit): by the game's
    version, the seat and the names it is worded with, so a move, another seat or a renamed
    player finds it anew."""
    game, _, seats = open_stop_window(monkeypatch, [alice, bob, charlie])
    found = []
    real = selectors._find_window_cause
    monkeypatch.setattr(selectors, "_find_window_cause", lambda *a: found.append(a[1:]) or real(*a))
    line = selectors.wait_line(game, seats[0])
    assert selectors.wait_line(game, seats[0]) == line and len(found) == 1  # the second from the cache
    game.version += 1  # the game moved on (still in the window here): looked for again
    assert selectors.wait_line(game, seats[0]) == line and len(found) == 2
    names = selectors.seat_names(game)
    renamed = [n.upper() for n in names]
    monkeypatch.setattr(selectors, "seat_names", lambda g: renamed)
    assert selectors.wait_line(game, seats[0]) != line and len(found) == 3 and found[-1][1] == renamed
