"""Ladders follow their challenges' games (games.events), in the transaction of the change."""

from kinplay.ladders import services


def invitation_answered(sender, *, game, outcome, **kwargs) -> None:
    if outcome == "accepted":
        services.challenge_closed(game.pk, "accepted")
    # A decline also withdraws the seat (seat_withdrawn): recorded there, once.


def seat_withdrawn(sender, *, game, expired, left=False, **kwargs) -> None:
    services.challenge_closed(game.pk, "lapsed" if expired else "declined")


def game_called_off(sender, *, game, why, **kwargs) -> None:
    if why == "cancelled":  # the challenger called it off before an answer
        services.challenge_closed(game.pk, "cancelled")


def game_finished(sender, *, game, **kwargs) -> None:
    services.game_finished(game)
