"""games.services.create_games: a tournament round's (or a league's) games written together must
be exactly the games create_game writes one at a time, in a few statements whatever their number."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from games import services
from games.models import Event, Game
from games.verify import first_mismatch
from kinplay.clocks.models import Deadline
from kinplay.notifications.models import Outbox

pytestmark = pytest.mark.django_db


def specs(alice, bob, charlie):
    return [
        # a tournament's table: seated by the platform, started at once
        {"creator": None, "kind": "karenza", "seats": [{"user": "alice"}, {"user": "bob"}], "accepted": True},
        # against a bot, which answers inside the creation
        {"creator": charlie, "kind": "knonsters", "seats": [{"bot": "heuristic"}, {"user": "charlie"}]},
        # an invitation: waits for bob's answer, with its email and its 7-day deadline
        {"creator": alice, "kind": "karenza", "seats": [{"user": "alice"}, {"user": "bob"}], "per_move": 600},
        # all bots: more moves than a request plays, the rest owed to the worker
        {"creator": alice, "kind": "karenza", "seats": [{"bot": "random"}, {"bot": "random"}], "per_move": None},
    ]


def written(game):
    """Everything a new game wrote, without ids and clock readings."""
    game = Game.objects.get(pk=game.pk)
    return {
        "game": (game.kind, game.status, game.version, game.to_act, game.result, game.deadline is not None,
                 game.per_move, game.rated, game.created_by_id),
        "seats": list(game.seats.values_list("index", "user_id", "bot", "invited")),
        "events": list(Event.objects.filter(game=game).values_list("seq", "type", "data", "seat", "command")),
        "deadlines": sorted(Deadline.objects.filter(game=game).values_list("kind", "seat", "version", "done_at")),
        "outbox": sorted(Outbox.objects.filter(game=game).values_list("kind", "user_id", "version")),
    }


def test_it_writes_a_batch_of_games_exactly_as_one_at_a_time(alice, bob, charlie, monkeypatch, settings):
    settings.INLINE_BOT_STEPS = 5
    monkeypatch.setattr(services, "new_seed", lambda: "7" * 64)  # the same deal and dice on both paths
    one_by_one = [written(services.create_game(**spec)) for spec in specs(alice, bob, charlie)]
    together = [written(game) for game in services.create_games(specs(alice, bob, charlie))]
    assert together == one_by_one
    assert [g["game"][1] for g in together] == ["active", "active", "waiting", "active"]
    assert [c["by"] for *_, c in together[3]["events"] if c and "by" in c] == ["bot"] * 5  # then the worker's turn
    assert ("bots", None, together[3]["game"][2], None) in together[3]["deadlines"]  # the worker's safety net
    assert ("invitation", bob.pk, 0) in together[2]["outbox"]
    for game in Game.objects.filter(status="active"):
        assert first_mismatch(game) is None  # the rows agree with a replay of each stream


def test_it_creates_thirty_games_in_as_many_statements_as_three(make_user):
    players = [make_user(f"p{i}") for i in range(60)]

    def round_of(n, start):
        return [{"creator": None, "kind": "karenza", "accepted": True,
                 "seats": [{"user": players[start + 2 * i].username}, {"user": players[start + 2 * i + 1].username}]}
                for i in range(n)]

    with CaptureQueriesContext(connection) as three:
        services.create_games(round_of(3, 0))
    with CaptureQueriesContext(connection) as thirty:
        created = services.create_games(round_of(30, 0))
    assert len(created) == 30 and len({g.pk for g in created}) == 30
    assert len(thirty) == len(three)
    assert Outbox.objects.filter(kind="your_turn").count() == 33  # one per game: the player to move


def test_it_creates_none_of_the_batch_when_one_game_is_refused(alice, bob, charlie):
    batch = specs(alice, bob, charlie)
    batch.append({"creator": alice, "kind": "karenza", "seats": [{"user": "alice"}, {"user": "nobody"}]})
    with pytest.raises(services.BadRequest, match="seat 2: there is no user “nobody”"):
        services.create_games(batch)
    assert not Game.objects.exists() and not Outbox.objects.exists()
