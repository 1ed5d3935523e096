"""A timeout is a fact in the stream and says so in the log: nobody is credited with a choice they did not make."""

from datetime import timedelta

import pytest
import time_machine
from django.utils import timezone

from games import selectors, services
from games.models import Event, Game
from games.projections import rebuild
from games.registry import get
from games.store import load_state
from games.verify import first_mismatch
from kinplay.clocks.services import sweep
from tests.play import accepted, finish
from tests.windows.helpers import open_stop_window

pytestmark = pytest.mark.django_db


def test_it_stores_a_window_timeout_and_logs_that_the_player_did_not_answer(monkeypatch, api, alice, bob, charlie):
    with time_machine.travel(timezone.now(), tick=False) as clock:
        game, _, seats = open_stop_window(monkeypatch, [alice, bob, charlie])
        version = game.version
        clock.shift(timedelta(days=2, seconds=1))
        sweep()
    late = game.seat_list[seats[0]]
    events = api(alice).get(f"/api/games/{game.pk}/events/?after={version}").json()
    timed_out = [e for e in events if e["type"] == "timed_out" and e["data"]["seat"] == seats[0]]
    assert timed_out and timed_out[0]["data"] == {"seat": seats[0], "policy": "default", "window": True, "answer": "resolve"}
    answer = next(e for e in events if e["seq"] == timed_out[0]["seq"] + 1)
    assert answer["type"] == "pass" and answer["data"]["seat"] == seats[0]  # the rules' event comes right after
    lines = [line["text"] for line in selectors.log_lines(Game.objects.get(pk=game.pk), 0, after=version)]
    assert f"{late.name} did not answer in time: resolve." in lines


def test_it_says_a_bot_played_when_a_turn_times_out_and_the_game_still_verifies(alice, bob):
    game = accepted(services.create_game(creator=alice, kind="knonsters", seats=[{"user": "alice"}, {"user": "bob"}], per_move=60))
    with time_machine.travel(timezone.now() + timedelta(seconds=61), tick=False):
        sweep()
    game.refresh_from_db()
    texts = [line["text"] for line in selectors.log_lines(game, None)]
    for who in ("alice", "bob"):  # the move made for them follows in the same line, as the spectator sees it
        assert f"{who}'s time ran out: a bot played for them — {who} has chosen their favourites." in texts
    rows = list(Event.objects.filter(game=game, type="timed_out"))
    assert [r.command for r in rows] == [{"platform": "timed_out", "rules": 1}] * 2
    assert first_mismatch(game) is None
    finish(game)  # the seed is revealed: every command is decided again, the timeouts skipped
    game.refresh_from_db()
    assert game.status == Game.FINISHED and first_mismatch(game) is None
    state = load_state(game, cached=False)
    rebuild(game)
    game.refresh_from_db()
    assert game.version == Event.objects.filter(game=game).count() and load_state(game, cached=False) == state


def test_it_shows_the_timeout_line_on_the_game_page(client, alice, bob):
    game = accepted(services.create_game(creator=alice, kind="knonsters", seats=[{"user": "alice"}, {"user": "bob"}], per_move=60))
    with time_machine.travel(timezone.now() + timedelta(seconds=61), tick=False):
        sweep()
    client.force_login(bob)
    page = client.get(f"/games/{game.pk}/").content.decode()
    assert "alice&#x27;s time ran out: a bot played for them — alice has chosen their favourites." in page


def test_it_says_the_player_forfeits_when_that_is_the_policy(alice, bob, api):
    game = accepted(services.create_game(creator=alice, kind="karenza", seats=[{"user": "alice"}, {"user": "bob"}],
                                         per_move=60, on_timeout="forfeit"))
    late = game.seat_list[game.to_act[0]].name
    with time_machine.travel(timezone.now() + timedelta(seconds=61), tick=False):
        sweep()
    game.refresh_from_db()
    assert game.status == Game.FINISHED
    events = api(alice).get(f"/api/games/{game.pk}/events/").json()
    assert [e["data"]["policy"] for e in events if e["type"] == "timed_out"] == ["forfeit"]
    lines = [line["text"] for line in selectors.log_lines(game, 0)]
    assert f"{late}'s time ran out: they forfeit the game." in lines and f"{late} resigned." not in lines
    assert late not in game.result["summary"] and late in selectors.game_for(game, alice)["result"]["summary"]


def test_it_says_on_the_board_that_a_forfeit_was_no_resignation_and_replays_the_game(client, alice, bob):
    game = accepted(services.create_game(creator=alice, kind="karenza", seats=[{"user": "alice"}, {"user": "bob"}],
                                         per_move=60, on_timeout="forfeit"))
    late = game.seat_list[game.to_act[0]].name
    with time_machine.travel(timezone.now() + timedelta(seconds=61), tick=False):
        sweep()
    game.refresh_from_db()
    data = selectors.game_for(game, bob)
    said = f"{late}'s time ran out: they forfeit the game."
    assert data["view"]["result"]["summary"] == data["result"]["summary"] and said in data["result"]["summary"]
    text = get("karenza").render_text(data["view"], 1, selectors.seat_names(game))
    assert said in text and "resigned" not in text
    client.force_login(bob)
    page = client.get(f"/games/{game.pk}/").content.decode()
    board = page[page.index('id="board"'):page.index('id="board"') + 3000]
    assert said.replace("'", "&#x27;") in board and "resigned" not in board
    assert client.get(f"/games/{game.pk}/?at={game.version - 2}").status_code == 200  # an older point still replays


@pytest.mark.parametrize("kind", ["kenta", "knonsters", "kinapa"])
def test_it_marks_a_seat_out_of_time_not_resigned_on_the_board(client, make_user, alice, bob, charlie, kind):
    make_user("dave")  # Kinapa is for 2 or 4 to 8
    seats = [{"user": "alice"}, {"user": "bob"}, {"user": "charlie"}] + ([{"user": "dave"}] if kind == "kinapa" else [])
    game = accepted(services.create_game(creator=alice, kind=kind, per_move=60, on_timeout="forfeit", seats=seats))
    before = game.version
    with time_machine.travel(timezone.now(), tick=False) as clock:
        for _ in range(5):  # a window (Kenta's doubles) times out to its default answer first
            if Event.objects.filter(game=game, type="timed_out", data__policy="forfeit").exists():
                break
            clock.shift(timedelta(seconds=61))
            sweep()
    game.refresh_from_db()
    names = selectors.seat_names(game)
    data = selectors.game_for(game, None)
    gone = selectors.out_of_time(game)
    late = [e.data["seat"] for e in Event.objects.filter(game=game, type="timed_out", data__policy="forfeit")]
    assert gone and gone == sorted(late) and "_out_of_time" not in data["view"]
    text = get(kind).render_text(selectors.board_view(game, data["view"]), None, names)
    assert "out of time" in text and "resigned" not in text
    client.force_login(charlie)
    page = client.get(f"/games/{game.pk}/").content.decode()
    board = page[page.index('id="board"'):page.index('</section>', page.index('id="board"'))]
    assert "out of time" in board and "resigned" not in board and "left the game" not in board
    assert "out of time" not in client.get(f"/games/{game.pk}/?at={before}").content.decode()  # not yet then


def test_the_platform_refuses_the_clocks_mark_from_a_player(api, alice, bob, charlie):
    """A default only the clock may play ("timeout": true, Kenta's "no marker") is refused from a
    player, through the API as through the service: a voter cannot abstain on purpose."""
    from games.engine import IllegalAction
    from tests.play import accepted

    game = accepted(services.create_game(creator=alice, kind="kenta", per_move=None,
                                         seats=[{"user": "alice"}, {"user": "bob"}, {"user": "charlie"}]))
    seat = next(iter(game.to_act))
    clocks_own = {"type": "vote", "marker": "none", "timeout": True}
    with pytest.raises(IllegalAction, match="Only the clock"):
        services.act(game.pk, seat, action=clocks_own)
    player = [alice, bob, charlie][seat]
    answer = api(player).post(f"/api/games/{game.pk}/actions/", {"action": clocks_own}, format="json")
    assert answer.status_code == 409 and answer.json()["error"] == "illegal_action"
