"""Helpers for platform tests: move a game along with the bots' choices."""

from games import services
from games.engine import clone
from games.models import Game
from games.registry import get
from games.rng import Rng
from games.store import game_with_seats, load_state


def bot_action(game, seat):
    game.refresh_from_db()
    state = load_state(game)
    return get(game.kind).bots.heuristic_bot(clone(state), seat, Rng("test", game.version))


def step(game, seat=None):
    """One move for ``seat`` (default: the first seat to act), chosen by the heuristic bot."""
    game.refresh_from_db()
    seat = game.to_act[0] if seat is None else seat
    return services.act(game.pk, seat, action=bot_action(game, seat))


def finish(game, max_steps=2000):
    for _ in range(max_steps):
        game.refresh_from_db()
        if game.status != Game.ACTIVE:
            return game
        step(game)
    raise AssertionError("the game did not end")


def accepted(game):
    """Every invitation of a new game accepted on the invited players' behalf, so that it
    starts (seating another user is an invitation: games.services.accept_invitation)."""
    for seat in game.seats.filter(invited=True).select_related("user"):
        services.accept_invitation(game.pk, seat.user)
    return game_with_seats(game.pk)


def alices_turn(alice, kind="knonsters"):
    """A two-player game of alice's and bob's where it is alice's turn."""
    game = accepted(services.create_game(creator=alice, kind=kind, seats=[{"user": "alice"}, {"user": "bob"}],
                                         per_move=None))
    for _ in range(50):
        game.refresh_from_db()
        if game.to_act == [0]:
            return game
        step(game, seat=game.to_act[0])
    raise AssertionError("never alice's turn")


def alice_moves(game):
    """alice moves (as her page posts it; a roll and a move in Project_Kin) and the turn is bob's.
    A move that asks both (a Kenta vote, 1 deal in 20) has alice answer too."""
    for _ in range(8):
        step(game, seat=0)
        game.refresh_from_db()
        if 0 not in game.to_act:
            break
    assert game.to_act == [1], game.to_act
