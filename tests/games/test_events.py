"""What happens to games reaches the apps that follow them (games.events), in the order they rely on."""

import pytest
from django.contrib.auth import get_user_model

from games import events, services
from games.models import Game
from kinplay.notifications.models import Outbox

pytestmark = pytest.mark.django_db


def receivers(signal) -> list[str]:
    return [entry[1]().__module__ for entry in signal.receivers]  # (key, weak reference, ...) in connection order


def test_it_sets_the_deadline_before_the_emails_are_composed():
    assert receivers(events.game_changing) == ["kinplay.clocks.receivers", "kinplay.notifications.receivers"]
    assert receivers(events.games_created) == ["kinplay.clocks.receivers", "kinplay.notifications.receivers"]


def test_it_stamps_the_ratings_before_the_tournament_reads_the_result():
    assert receivers(events.game_finished) == ["kinplay.ratings.receivers", "kinplay.tournaments.receivers",
                                                "kinplay.ladders.receivers"]


def test_it_tells_every_follower_once_when_a_move_finishes_a_game():
    alice = get_user_model().objects.create_user("alice", "alice@example.com", "pw")
    game = services.create_game(creator=alice, kind="knonsters", seats=[{"user": "alice"}, {"bot": "random"}])
    finished = []

    def seen(sender, *, game, **kwargs):
        finished.append((game.pk, game.status, game.finished_at is not None))

    events.game_finished.connect(seen)  # after ratings': it sees the finish time they stamp
    try:
        services.resign(game.pk, user=alice)
    finally:
        events.game_finished.disconnect(seen)
    assert finished == [(game.pk, Game.FINISHED, True)]
    assert Outbox.objects.filter(game_id=game.pk, kind=Outbox.GAME_OVER, user=alice).count() == 1
