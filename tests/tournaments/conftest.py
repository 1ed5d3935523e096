import pytest

from games.models import Game
from kinplay.tournaments import services


@pytest.fixture
def players(make_user):
    """``players(n)``: n users, the personas first (alice, bob, charlie, then p4, p5 ...)."""
    def make(n):
        names = ["alice", "bob", "charlie"] + [f"p{i}" for i in range(4, n + 1)]
        return [make_user(name) for name in names[:n]]

    return make


def play_round(t, *, skip=(), max_steps=3000):
    """Every running game of the tournament played to its end by the heuristic bot for the
    humans (scripted clients), except games where a player of ``skip`` is to act."""
    from tests.play import step

    t.refresh_from_db()
    ids = [g for tb in services.load(t)["rounds"][-1]["tables"] for g in (x["game"] for x in tb["games"])]
    for gid in ids:
        game = Game.objects.get(pk=gid)
        for _ in range(max_steps):
            game.refresh_from_db()
            if game.status != Game.ACTIVE:
                break
            seat = game.to_act[0]
            if game.seats.get(index=seat).user_id in {u.pk for u in skip}:
                break
            step(game, seat)


def run_to_end(t, max_rounds=30, **kw):
    """Play rounds until the tournament ends; rounds advance by the sweep only."""
    for _ in range(max_rounds):
        t.refresh_from_db()
        if t.status != "running":
            return t
        play_round(t, **kw)
        services.sweep()
    t.refresh_from_db()
    return t
