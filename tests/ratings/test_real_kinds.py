"""A real game played to the end by people (the heuristic bot choosing their moves) is rated
from the ranks its rules give."""

import pytest

from games.models import Game
from kinplay.ratings import selectors
from kinplay.ratings.models import RatingChange
from tests.play import finish
from tests.ratings.test_ratings import game_of

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("kind", ["karenza", "knonsters"])
def test_it_rates_a_real_game_played_to_the_end(alice, bob, kind):
    game = finish(game_of(alice, bob, kind=kind, options={}))
    assert game.status == Game.FINISHED
    changes = {c.seat: c for c in RatingChange.objects.filter(game=game)}
    assert [changes[s].rank for s in (0, 1)] == game.result["ranks"]
    assert selectors.rating_of(alice, kind).games == selectors.rating_of(bob, kind).games == 1
