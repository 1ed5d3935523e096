"""After the game: a rematch (same players, options and clock; seats rotated so someone else
starts; the other people are invited again, as for any new game) or the same game against bots."""

from __future__ import annotations

from django.db import transaction

from games import selectors, services
from games.models import Game


class RematchRefused(ValueError):
    """Why there can be no rematch, in words a player understands."""


@transaction.atomic
def rematch(game_id: int, user, *, with_bots: bool = False) -> tuple[Game, bool]:
    """The rematch of a finished game, asked by one of its players: ``(game, created)``.

    Everyone asking for the rematch gets the same one (the first ask creates it, the others are
    taken to it). ``with_bots``: a new game of the same kind and options where every other seat is
    a heuristic bot; each asking player gets their own."""
    game = Game.objects.select_for_update().filter(pk=game_id).first()  # two asks at once: one rematch
    if game is None:
        raise RematchRefused("No such game.")
    if game.status != Game.FINISHED:
        raise RematchRefused("A rematch can start once this game is over.")
    seats = list(game.seats.order_by("index").select_related("user"))
    if not any(s.user_id == user.pk for s in seats):
        raise RematchRefused("Only the players of this game can ask for its rematch.")
    if with_bots:
        specs = [{"user": user.username}] + [{"bot": "heuristic"}] * (len(seats) - 1)
    else:
        earlier = game.rematches.order_by("pk").first()
        if earlier is not None:
            if selectors.invited_to(earlier, user):  # asking for the rematch is saying yes to it
                earlier = services.accept_invitation(earlier.pk, user, looking=True)  # taken to it, as below
            return earlier, False
        # Rotated: the second seat becomes the first, ..., the first the last.
        turn = seats[1:] + seats[:1]
        specs = [{"user": s.user.username} if s.user is not None else {"bot": s.bot} if s.bot else {} for s in turn]
    new = services.create_game(
        creator=user, kind=game.kind, options=dict(game.options), seats=specs, per_move=game.per_move,
        on_timeout=game.on_timeout, window=game.window, invite_only=game.invite_only,
        rated=game.rated and not with_bots, looking=True)  # asked on the game's page, taken to the new one
    if not with_bots:
        Game.objects.filter(pk=new.pk).update(rematch_of=game)
        new.rematch_of = game
    return new, True
