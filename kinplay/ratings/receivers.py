"""Ratings follow the games (games.events)."""

from kinplay.ratings.services import record_game_over


def game_finished(sender, *, game, **kwargs) -> None:
    """In the finishing move's transaction: the finish time and, for a rated game, the ratings."""
    record_game_over(game)
