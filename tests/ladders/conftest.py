import pytest
from django.test import TestCase

from games import services as games
from kinplay.ladders import services, stream
from kinplay.ladders.models import Ladder, LadderEvent


@pytest.fixture
def players(make_user):
    """``players(n)``: n users, the personas first (alice, bob, charlie, then p4, p5 ...)."""
    def make(n):
        names = ["alice", "bob", "charlie"] + [f"p{i}" for i in range(4, n + 1)]
        return [make_user(name) for name in names[:n]]

    return make


@pytest.fixture
def ladder(players):
    """``ladder(n, **settings)``: a Karenza ladder alice organises, with n players joined in order
    (alice at the top); returns (ladder, players)."""
    def make(n, **settings):
        ps = players(n)
        lad = services.create(organiser=ps[0], name="Karenza ladder", kind="karenza", **settings)
        for u in ps:
            services.join(lad.pk, u)
        return Ladder.objects.get(pk=lad.pk), ps

    return make


def names(lad) -> list[str]:
    lad.refresh_from_db()
    return [lad.state["players"][str(p)]["name"] for p in lad.state["ranking"]]


def open_game(lad, challenger) -> int:
    lad.refresh_from_db()
    return next(c["game"] for c in lad.state["challenges"].values() if c["challenger"] == challenger.pk)


def closed(lad, gid) -> tuple[str, dict] | None:
    """The event that closed the challenge of game ``gid`` (its type and data); None while open."""
    lad.refresh_from_db()
    if str(gid) in lad.state["challenges"]:
        return None
    e = LadderEvent.objects.get(ladder=lad, type__in=stream.CLOSING, data__game=gid)
    return e.type, e.data


def play(lad, challenger, challenged, *, winner):
    """``challenger`` challenges, ``challenged`` accepts and the other player than ``winner`` resigns."""
    services.challenge(lad.pk, challenger, challenged.username)
    gid = open_game(lad, challenger)
    games.accept_invitation(gid, challenged)
    loser = challenged if winner == challenger else challenger
    with after_commit():
        games.resign(gid, user=loser)
    return gid


def after_commit():
    """Runs what the block leaves for after its commit (the result's task), as a commit would."""
    return TestCase.captureOnCommitCallbacks(execute=True)
