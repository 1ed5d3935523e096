"""Tournaments follow the games (games.events)."""

from kinplay.tournaments import services


def game_finished(sender, *, game, **kwargs) -> None:
    """In the finishing move's transaction, after the ratings' receiver: the result goes in
    the tournament's stream."""
    services.game_finished(game)
