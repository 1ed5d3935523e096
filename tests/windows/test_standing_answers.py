"""Standing answers: "always" and "unable" answer windows in the move that opens them; "ask" waits."""

import pytest

from games import selectors, services
from games.engine import only_default
from games.models import Event, Game, Seat
from games.store import load_state
from games.verify import first_mismatch
from kinplay.clocks.models import Deadline
from tests.play import accepted, step
from tests.windows.helpers import KENTA, one_can_stop_one_cannot, open_stop_window, stop_window

pytestmark = pytest.mark.django_db


def standing_answers(game):
    return [e for e in Event.objects.filter(game=game, command__isnull=False).order_by("seq") if e.command.get("by") == "standing"]


def test_it_makes_a_seat_with_stop_and_one_without_wait_the_same_when_both_ask(monkeypatch, alice, bob, charlie):
    game, state, seats = open_stop_window(monkeypatch, [alice, bob, charlie], want=one_can_stop_one_cannot)
    holder = next(s for s in seats if not only_default(KENTA, state, s))
    empty = next(s for s in seats if only_default(KENTA, state, s))
    assert {holder, empty} <= set(game.to_act)
    due = {d.seat: d.due_at for d in Deadline.objects.filter(game=game, kind=Deadline.MOVE, done_at__isnull=True)}
    assert due[holder] == due[empty]
    assert not standing_answers(game)
    # What the card's player sees does not depend on who holds STOP.
    player = next(s for s in range(3) if s not in seats)
    seen = selectors.game_for(game, game.seat_list[player].user)
    assert sorted(seen["to_act"]) == seats


def test_it_passes_for_unable_only_when_the_player_cannot_react(monkeypatch, alice, bob, charlie):
    game, state, seats = open_stop_window(monkeypatch, [alice, bob, charlie], want=one_can_stop_one_cannot)
    holder = next(s for s in seats if not only_default(KENTA, state, s))
    empty = next(s for s in seats if only_default(KENTA, state, s))
    users = {s.index: s.user for s in game.seat_list}
    assert services.set_standing_answer(game.pk, users[holder], Seat.UNABLE) is None  # can STOP: still asked
    outcome = services.set_standing_answer(game.pk, users[empty], Seat.UNABLE)
    assert outcome is not None and outcome.events[0].command == {"seat": empty, "action": {"type": "pass"}, "by": "standing", "rules": 2}  # Kenta's rules version
    game.refresh_from_db()
    assert stop_window(load_state(game)) == [holder] and game.to_act == [holder]


def test_it_applies_standing_answers_inside_the_move_that_opens_the_window(monkeypatch, alice, bob, charlie):
    monkeypatch.setattr(services, "new_seed", lambda: "7" * 64)
    game = accepted(services.create_game(creator=alice, kind="kenta", seats=[{"user": "alice"}, {"user": "bob"}, {"user": "charlie"}]))
    for user in (alice, bob, charlie):
        services.set_standing_answer(game.pk, user, Seat.UNABLE)
    for _ in range(300):
        game.refresh_from_db()
        if game.status != Game.ACTIVE or len(standing_answers(game)) >= 3:
            break
        state = load_state(game)
        # A window at rest never waits for a player who can do nothing but pass.
        assert not [s for s in stop_window(state) if only_default(KENTA, state, s)]
        step(game, seat=game.to_act[0])
    answers = standing_answers(game)
    assert len(answers) >= 3
    for e in answers:  # each answered for a player who really could not react, right when it opened
        before = load_state(game, e.seq - 1)
        assert only_default(KENTA, before, e.seat) and e.seat in stop_window(before)
    assert first_mismatch(game) is None


def test_it_lets_always_answer_an_open_window_at_once_through_the_api(monkeypatch, api, alice, bob, charlie):
    game, _, seats = open_stop_window(monkeypatch, [alice, bob, charlie])
    me = game.seat_list[seats[0]].user
    r = api(me).post(f"/api/games/{game.pk}/standing/", {"answer": "always"}, format="json")
    assert r.status_code == 200
    body = r.json()
    assert seats[0] not in body["to_act"]
    assert [s.get("standing") for s in body["seats"]] == ["always" if s == seats[0] else None for s in range(3)]
    assert standing_answers(game)[-1].seat == seats[0]


def test_it_refuses_a_standing_answer_it_does_not_know_and_a_stranger(api, alice, bob, charlie):
    game = accepted(services.create_game(creator=alice, kind="kenta", seats=[{"user": "alice"}, {"user": "bob"}]))
    r = api(alice).post(f"/api/games/{game.pk}/standing/", {"answer": "sometimes"}, format="json")
    assert r.status_code == 400 and set(r.json()) == {"error", "detail"}
    r = api(charlie).post(f"/api/games/{game.pk}/standing/", {"answer": "always"}, format="json")
    assert r.status_code == 403 and r.json()["error"] == "forbidden"
    r = api(alice).post("/api/games/99999/standing/", {"answer": "always"}, format="json")
    assert r.status_code == 404
    assert Seat.objects.get(game=game, index=0).standing == Seat.ASK


def test_it_offers_the_standing_answer_on_the_game_page_with_its_trade_off(client, alice, bob):
    game = accepted(services.create_game(creator=alice, kind="kenta", seats=[{"user": "alice"}, {"user": "bob"}]))
    client.force_login(alice)
    page = client.get(f"/games/{game.pk}/").content.decode()
    assert f'action="/games/{game.pk}/standing/"' in page and "never tells the others what you hold" in page
    r = client.post(f"/games/{game.pk}/standing/", {"answer": "always"})
    assert r.status_code == 302 and Seat.objects.get(game=game, index=0).standing == Seat.ALWAYS
    assert 'value="always" selected' in client.get(f"/games/{game.pk}/").content.decode()


def test_it_never_plays_a_kenta_vote_by_standing_answer():
    # issue 13: every voter hides a black or a white marker; "no marker" is only what the clock does
    from games.kenta import rules as kenta
    from tests.games.kenta.helpers import Script, act, at_cards, game, rolled

    s = at_cards(rolled(game(3, disc="black"), 3, 1))
    s, _ = act(s, 0, {"type": "end"}, Script(dice=[2, 2]))
    entry = kenta.to_act(s)[2]
    assert entry["kind"] == "window"
    assert not Seat(index=2, user_id=1, standing=Seat.ALWAYS).stands_for(kenta, s, entry)
