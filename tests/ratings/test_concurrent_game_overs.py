"""Game-overs that share a player, committed at the same moment, lose no rating update and
are applied in the order rebuild_ratings replays (PostgreSQL in CI; SQLite queues writers)."""

import io
import itertools

import pytest
from django.core.management import call_command

from games import services
from kinplay.ratings.models import Rating, RatingChange
from tests.play import bot_action
from tests.ratings.test_ratings import game_of
from tests.threads import run_together, unexpected

PLAYERS = 6


def test_it_loses_no_update_when_games_sharing_a_player_end_together(purgeable_events, alice, make_user, tiny):
    rivals = [make_user(f"rival{i}") for i in range(PLAYERS)]
    games = [game_of(alice, r) for r in rivals]  # one card each: alice plays, then the rival ends it
    for g in games:
        services.act(g.pk, 0, action=bot_action(g, 0))
    last_moves = [bot_action(g, 1) for g in games]

    results = run_together(PLAYERS, lambda i: services.act(games[i].pk, 1, action=last_moves[i]))

    assert not unexpected(results)
    r = Rating.objects.get(user=alice, kind="tiny")
    assert r.games == PLAYERS and RatingChange.objects.filter(user=alice).count() == PLAYERS
    # Each of alice's games started from the rating the previous one left: a chain, no fork.
    chain = list(RatingChange.objects.filter(user=alice).order_by("finished_at", "game_id"))
    for earlier, later in itertools.pairwise(chain):
        assert (later.mu_before, later.sigma_before) == (earlier.mu_after, earlier.sigma_after)
    assert (chain[-1].mu_after, chain[-1].sigma_after) == (r.mu, r.sigma)

    live = sorted(Rating.objects.values_list("user_id", "mu", "sigma", "games"))
    call_command("rebuild_ratings", stdout=io.StringIO())
    assert sorted(Rating.objects.values_list("user_id", "mu", "sigma", "games")) == live


pytestmark = pytest.mark.django_db(transaction=True)
