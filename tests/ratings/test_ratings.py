"""Ratings as a projection of finished games: which games count, the numbers (checked against
the openskill package itself), applied once, and rebuilt to exactly the live numbers."""

import io
import random
from datetime import timedelta

import pytest
import time_machine
from django.core.management import call_command
from openskill.models import PlackettLuce

from games import services
from games.models import Game
from games.store import game_with_seats
from kinplay.ratings import selectors
from kinplay.ratings.models import Rating, RatingChange, shown
from kinplay.ratings.services import record_game_over
from tests.play import accepted, finish

pytestmark = pytest.mark.django_db

OPENSKILL = PlackettLuce()  # the package's own defaults: what the issue asks us to match


def game_of(*users, kind="tiny", bots=0, **kw):
    seats = [{"user": u.username} for u in users] + [{"bot": "random"}] * bots
    return accepted(services.create_game(creator=users[0], kind=kind, options=kw.pop("options", {"cards": 1}),
                                         seats=seats, per_move=kw.pop("per_move", None), **kw))


def won_by(winner_seat, game):
    """Everybody but ``winner_seat`` resigns: the winner ranks 1, the others share rank 2."""
    for seat in range(len(game.seat_list)):
        game.refresh_from_db()
        if seat != winner_seat and game.status == Game.ACTIVE:
            services.resign(game.pk, seat)
    game.refresh_from_db()
    assert game.status == Game.FINISHED
    return game


def numbers(user, kind="tiny"):
    r = Rating.objects.get(user=user, kind=kind)
    return r.mu, r.sigma, r.games


def test_it_rates_a_two_player_game_as_openskill_does(alice, bob, tiny):
    game = won_by(1, game_of(alice, bob))  # bob wins, alice resigned

    [[a], [b]] = OPENSKILL.rate([[OPENSKILL.rating()], [OPENSKILL.rating()]], ranks=[2, 1])
    assert numbers(alice) == (a.mu, a.sigma, 1)
    assert numbers(bob) == (b.mu, b.sigma, 1)
    assert selectors.rating_of(bob, "tiny").rating > 1500 > selectors.rating_of(alice, "tiny").rating
    changes = selectors.rating_changes(game)
    assert changes[1]["before"] == changes[0]["before"] == 1500
    assert changes[1]["delta"] == changes[1]["after"] - 1500 > 0 > changes[0]["delta"]
    assert game.finished_at is not None


def test_it_rates_a_four_player_game_from_its_finishing_ranks(alice, bob, charlie, make_user, tiny):
    dora = make_user("dora")
    won_by(0, game_of(alice, bob, kind="tiny4"))  # ratings that differ before the 4-player game
    game = finish(game_of(alice, bob, charlie, dora, kind="tiny4", options={"cards": 2}))
    ranks = game.result["ranks"]

    before = [OPENSKILL.rate([[OPENSKILL.rating()], [OPENSKILL.rating()]], ranks=[1, 2])[i][0] for i in (0, 1)]
    before += [OPENSKILL.rating(), OPENSKILL.rating()]
    after = OPENSKILL.rate([[r] for r in before], ranks=ranks)
    for user, (expected,) in zip([alice, bob, charlie, dora], after):
        mu, sigma, _ = numbers(user, "tiny4")
        assert (mu, sigma) == (expected.mu, expected.sigma)
    assert [numbers(u, "tiny4")[2] for u in (alice, bob, charlie, dora)] == [2, 2, 1, 1]


def test_it_treats_a_shared_rank_as_a_tie(alice, bob, charlie, tiny):
    won_by(2, game_of(alice, bob, charlie))  # alice and bob resign: both rank 2
    assert numbers(alice) == numbers(bob)
    [[a], _, [c]] = OPENSKILL.rate([[OPENSKILL.rating()] for _ in range(3)], ranks=[2, 2, 1])
    assert numbers(charlie)[:2] == (c.mu, c.sigma) and numbers(alice)[:2] == (a.mu, a.sigma)


def test_it_moves_nobody_on_a_two_player_draw(alice, bob, tiny):
    game = game_of(alice, bob)
    Game.objects.filter(pk=game.pk).update(status=Game.FINISHED, result={"ranks": [1, 1], "winners": [0, 1]})
    record_game_over(game_with_seats(game.pk))
    (a_mu, a_sigma, _), (b_mu, b_sigma, _) = numbers(alice), numbers(bob)
    assert a_mu == b_mu == 25.0 and a_sigma == b_sigma < 25 / 3


def test_it_does_not_rate_games_with_a_bot_unrated_games_or_aborted_games(alice, bob, tiny):
    with_bot = finish(game_of(alice, bots=1))
    friendly = won_by(0, game_of(alice, bob, rated=False))
    aborted = game_of(alice, bob)
    Game.objects.filter(pk=aborted.pk).update(status=Game.ABORTED)
    record_game_over(game_with_seats(aborted.pk))

    assert not Rating.objects.exists() and not RatingChange.objects.exists()
    assert selectors.rating_changes(with_bot) == selectors.rating_changes(friendly) == {}
    assert with_bot.finished_at and friendly.finished_at  # finish order is kept for every game
    fresh = selectors.rating_of(alice, "tiny")
    assert (fresh.rating, fresh.games, fresh.provisional) == (1500, 0, True)


def test_it_counts_a_timeout_forfeit_as_the_rank_the_result_gives(alice, bob, tiny):
    game = game_of(alice, bob, per_move=60, on_timeout="forfeit")
    assert services.timeout(game.pk, 0) == "timeout-forfeit"
    game.refresh_from_db()
    assert game.status == Game.FINISHED
    assert selectors.rating_changes(game)[0]["delta"] < 0 < selectors.rating_changes(game)[1]["delta"]


def test_it_applies_a_game_once_whatever_replays_verifies_or_rebuilds_it(alice, bob, tiny):
    game = game_of(alice, bob)
    last_move = {"game_id": game.pk, "seat": 0, "action": {"type": "resign"}, "idempotency_key": "k"}
    services.act(**last_move)
    game.refresh_from_db()
    before = list(Rating.objects.order_by("pk").values())
    finished_at = game.finished_at
    assert finished_at and len(before) == 2

    assert services.act(**last_move).replayed  # the same request again
    record_game_over(game_with_seats(game.pk))
    call_command("rebuild_projections", stdout=io.StringIO())
    call_command("verify_game", str(game.pk), stdout=io.StringIO())

    assert list(Rating.objects.order_by("pk").values()) == before
    assert RatingChange.objects.filter(game=game).count() == 2
    game.refresh_from_db()
    assert game.finished_at == finished_at and game.status == Game.FINISHED


@pytest.mark.parametrize("games", [14, pytest.param(500, marks=pytest.mark.slow)])
def test_it_rebuilds_exactly_the_live_numbers(alice, bob, charlie, make_user, tiny, games):
    people = [alice, bob, charlie] + [make_user(f"p{i}") for i in range(5)]
    rng = random.Random(games)
    for _i in range(games):
        kind = rng.choice(["tiny", "tiny4"])
        table = rng.sample(people, rng.randint(2, 3 if kind == "tiny" else 4))
        finish(game_of(*table, kind=kind, options={"cards": rng.randint(1, 2)}))
    finish(game_of(alice, bots=2))  # not rated, in between
    won_by(1, game_of(bob, charlie, rated=False))

    def everything():
        ratings = sorted((r.user_id, r.kind, r.mu, r.sigma, r.ordinal, r.games, r.updated_at) for r in Rating.objects.all())
        changes = sorted(
            (c.game_id, c.seat, c.user_id, c.kind, c.rank, c.mu_before, c.sigma_before, c.mu_after, c.sigma_after,
             c.games, c.finished_at) for c in RatingChange.objects.all())
        return ratings, changes

    live = everything()
    assert len(live[1]) == sum(len(g.seat_list) for g in Game.objects.filter(rated=True, seats__bot="").distinct()
                               if not any(s.bot for s in g.seat_list))
    assert {r[1] for r in live[0]} == {"tiny", "tiny4"}
    Rating.objects.update(mu=1.0, games=99)  # a damaged projection
    call_command("rebuild_ratings", stdout=io.StringIO())
    assert everything() == live


def test_it_shows_a_rating_centred_on_1500():
    assert shown(25.0, 25 / 3) == 1500
    assert shown(25.0, 1.0) == 1500 + round(200 / (25 / 3) * 22)


def test_it_is_provisional_until_ten_games(alice, bob, tiny):
    for _ in range(9):
        won_by(0, game_of(alice, bob))
    assert selectors.rating_of(alice, "tiny").provisional
    won_by(0, game_of(alice, bob))
    r = selectors.rating_of(alice, "tiny")
    assert r.games == 10 and not r.provisional


def test_it_keeps_the_finish_order_when_the_clock_steps_back(alice, bob, tiny):
    first = won_by(0, game_of(alice, bob))
    with time_machine.travel(first.finished_at - timedelta(hours=1), tick=False):
        second = won_by(1, game_of(alice, bob))
    assert second.finished_at > first.finished_at  # replayed after the first, as it was applied
    live = sorted(Rating.objects.values_list("user_id", "mu", "sigma"))
    call_command("rebuild_ratings", stdout=io.StringIO())
    assert sorted(Rating.objects.values_list("user_id", "mu", "sigma")) == live


def test_it_gives_tournaments_a_rating_to_seed_by(alice, bob, charlie, tiny, django_assert_num_queries):
    won_by(0, game_of(alice, bob))
    with django_assert_num_queries(1):
        seeds = selectors.ratings_of([alice, bob, charlie], "tiny")
    assert seeds[alice.pk].ordinal > seeds[charlie.pk].ordinal > seeds[bob.pk].ordinal  # a newcomer is in between
    assert (seeds[charlie.pk].rating, seeds[charlie.pk].games) == (1500, 0)
    assert selectors.rating_of(alice, "tiny").rating == seeds[alice.pk].rating
