"""Kenta games between people, driven to a STOP window (the window most games have)."""

from games import services
from games.engine import only_default
from games.models import Game
from games.registry import get
from games.store import load_state
from kinplay.clocks.models import Deadline
from tests.play import accepted, step

DAY = 24 * 3600
KENTA = get("kenta").rules


def stop_window(state) -> list[int]:
    """The seats asked to play STOP or let the card resolve, if a STOP window is open."""
    if not state or state.get("vote") is not None or not state.get("react"):
        return []
    return sorted(state["react"]["waiting"])


def open_stop_window(monkeypatch, users, want=lambda state, seats: True, max_steps=400, **clock):
    """A Kenta game of ``users`` (all people), moved on by the heuristic bot's choices until a
    STOP window is open for which ``want`` holds; seeds are fixed so the test repeats."""
    for n in range(40):
        monkeypatch.setattr(services, "new_seed", lambda n=n: f"{n + 1:064x}")
        game = accepted(services.create_game(creator=users[0], kind="kenta", seats=[{"user": u.username} for u in users],
                                    **({"per_move": 2 * DAY} | clock)))
        for _ in range(max_steps):
            game.refresh_from_db()
            if game.status != Game.ACTIVE:
                break
            state = load_state(game)
            seats = stop_window(state)
            if seats and want(state, seats):
                return game, state, seats
            step(game, seat=game.to_act[0])
    raise AssertionError("no such STOP window in 40 games")


def window_deadlines(game, seats) -> dict:
    """When each of ``seats``' move clocks falls due."""
    return {d.seat: d.due_at for d in Deadline.objects.filter(game=game, kind=Deadline.MOVE, done_at__isnull=True, seat__in=seats)}


def one_can_stop_one_cannot(state, seats) -> bool:
    can = [not only_default(KENTA, state, s) for s in seats]
    return any(can) and not all(can)
