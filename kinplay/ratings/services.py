"""Writes to ratings: applying one finished game (live, in its game-over transaction) and
rebuilding every rating from the finished games in finish order.

Both go through ``_apply``, so a rebuild gives exactly the live numbers.
"""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone
from openskill.models import PlackettLuce

from games.models import Game
from kinplay.ratings.models import MU, SIGMA, Rating, RatingChange

MODEL = PlackettLuce(mu=MU, sigma=SIGMA)


def is_rated(game: Game) -> bool:
    """Human-only games the creator did not mark unrated, finished with a rank for every seat."""
    if game.status != Game.FINISHED or not game.rated:
        return False
    seats = list(game.seats.all())
    ranks = (game.result or {}).get("ranks") or []
    return len(seats) >= 2 and all(s.user_id and not s.bot for s in seats) and len(ranks) == len(seats)


def record_game_over(game: Game) -> None:
    """Called by games.services in the transaction that finishes ``game``: stamps the finish
    time and, for a rated game, updates its players' ratings. Keyed by the game: a second call
    changes nothing; a game that is not finished is left alone."""
    if game.status != Game.FINISHED or game.finished_at is not None:
        return
    if not is_rated(game):
        _stamp(game, timezone.now())
        return
    seats = list(game.seats.all())
    ratings = _locked_ratings([s.user_id for s in seats], game.kind)
    if RatingChange.objects.filter(game=game).exists():
        return
    # The time is read once the players' rows are locked: two game-overs that share a player
    # are stamped in the order they are applied, the order rebuild_ratings replays.
    _stamp(game, timezone.now())
    changes = _apply(game, seats, ratings)
    Rating.objects.bulk_update(ratings.values(), ["mu", "sigma", "ordinal", "games", "updated_at"])
    RatingChange.objects.bulk_create(changes)


def _stamp(game, when):
    game.finished_at = when
    Game.objects.filter(pk=game.pk).update(finished_at=when)


def _locked_ratings(user_ids, kind) -> dict[int, Rating]:
    """The players' rows for this kind, created if new and locked (in id order, so two
    game-overs never wait on each other in a circle): concurrent game-overs lose no update."""
    Rating.objects.bulk_create([Rating(user_id=u, kind=kind) for u in user_ids], ignore_conflicts=True)
    rows = Rating.objects.select_for_update().filter(kind=kind, user_id__in=user_ids).order_by("id")
    return {r.user_id: r for r in rows}


def _apply(game, seats, ratings: dict[int, Rating]) -> list[RatingChange]:
    """OpenSkill over the finishing ranks (ties share a rank); updates ``ratings`` in memory
    and returns the game's RatingChange rows."""
    ranks = game.result["ranks"]
    before = [ratings[s.user_id] for s in seats]
    teams = [[MODEL.rating(mu=r.mu, sigma=r.sigma)] for r in before]
    after = MODEL.rate(teams, ranks=[float(ranks[s.index]) for s in seats])
    changes = []
    for seat, rating, (new,) in zip(seats, before, after):
        change = RatingChange(
            game=game, seat=seat.index, user_id=seat.user_id, kind=game.kind, rank=ranks[seat.index],
            mu_before=rating.mu, sigma_before=rating.sigma, mu_after=new.mu, sigma_after=new.sigma,
            games=rating.games + 1, finished_at=game.finished_at,
        )
        rating.set(new.mu, new.sigma, game.finished_at)
        changes.append(change)
    return changes


def finished_in_order():
    """Every finished game in the order it finished (ties, which live play cannot give two
    games sharing a player, broken by id)."""
    return Game.objects.filter(status=Game.FINISHED).order_by("finished_at", "pk")


def rebuild(batch: int = 2000) -> int:
    """Replay every finished game in finish order into fresh ratings; returns the number of
    rated games. One transaction: readers see the old numbers or the new, never half."""
    ratings: dict[tuple[int, str], Rating] = {}
    changes: list[RatingChange] = []
    rated = 0
    with transaction.atomic():
        games = finished_in_order().prefetch_related("seats")
        for game in games.iterator(chunk_size=batch):
            if game.finished_at is None or not is_rated(game):
                continue
            seats = list(game.seats.all())
            mine = {}
            for s in seats:
                mine[s.user_id] = ratings.setdefault((s.user_id, game.kind), Rating(user_id=s.user_id, kind=game.kind))
            changes.extend(_apply(game, seats, mine))
            rated += 1
        RatingChange.objects.all().delete()
        Rating.objects.all().delete()
        Rating.objects.bulk_create(ratings.values(), batch_size=batch)
        RatingChange.objects.bulk_create(changes, batch_size=batch)
    return rated
