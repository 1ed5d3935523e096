import pytest

from games import services as games
from games.engine import RESIGN
from games.models import Game
from games.store import game_with_seats
from kinplay.leagues import services
from kinplay.leagues.models import League
from kinplay.tournaments import services as tournaments
from kinplay.tournaments.models import Tournament


@pytest.fixture
def players(make_user):
    """``players(n, start=1)``: users alice, bob, charlie, then p4, p5 ..."""
    def make(n, start=1):
        names = ["alice", "bob", "charlie"] + [f"p{i}" for i in range(4, start + n + 1)]
        return [make_user(name) for name in names[start - 1:start - 1 + n]]

    return make


def division_ids(league) -> list[int]:
    league.refresh_from_db()
    return [d["tournament"] for d in league.state["seasons"][-1]["divisions"]]


def play_round(league, strength: dict, *, skip=()):
    """Scripted results: in every running game of the current round, the weaker player
    (lower ``strength``) resigns, except in games with a player of ``skip``."""
    for tid in division_ids(league):
        s = tournaments.load(Tournament.objects.get(pk=tid))
        if s["status"] != "running":
            continue
        for table in s["rounds"][-1]["tables"]:
            for g in table["games"]:
                game = game_with_seats(g["game"])
                seats = {x.user_id: x.index for x in game.seat_list}
                if game.status != Game.ACTIVE or set(seats) & {u.pk for u in skip}:
                    continue
                weaker = min(seats, key=lambda uid: strength[uid])
                games.act(game.pk, seats[weaker], action=RESIGN)


def play_season(league, strength, max_rounds=20, **kw):
    """Rounds until every division has finished; both sweeps (tournaments, leagues) as the
    beat runs them. Returns the league after its roll-over."""
    number = League.objects.get(pk=league.pk).season
    for _ in range(max_rounds):
        play_round(league, strength, **kw)
        tournaments.sweep()
        services.sweep()
        league.refresh_from_db()
        if league.season != number or league.state["seasons"][-1]["status"] == "finished":
            return league
    raise AssertionError("the season did not end")
