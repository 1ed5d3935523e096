"""Writes to ratings: applying one finished game (live, in its game-over transaction) and
rebuilding every rating from the finished games in finish order.

Both compute through ``rate``, in the same order, so a rebuild gives exactly the live numbers.
"""

from __future__ import annotations

from datetime import timedelta

from django.db import transaction
from django.utils import timezone
from openskill.models import PlackettLuce

from games.models import Game, Seat
from kinplay.ratings.models import MU, SIGMA, Rating, RatingChange, ordinal

MODEL = PlackettLuce(mu=MU, sigma=SIGMA)


def rate(ranks, before: list[tuple[float, float]]) -> list[tuple[float, float]]:
    """OpenSkill Plackett-Luce over finishing ranks (equal ranks are a tie): each seat's
    (mu, sigma) after the game, from each seat's (mu, sigma) before it."""
    teams = [[MODEL.rating(mu=mu, sigma=sigma)] for mu, sigma in before]
    after = MODEL.rate(teams, ranks=[float(r) for r in ranks])
    return [(team[0].mu, team[0].sigma) for team in after]


def rated(status, is_rated_flag, ranks, seats) -> bool:
    """Human-only games the creator did not mark unrated, finished with a rank for every
    seat. ``seats``: (user_id, bot) per seat."""
    return (status == Game.FINISHED and is_rated_flag and len(seats) >= 2 and len(ranks or []) == len(seats)
            and all(user_id and not bot for user_id, bot in seats))


def is_rated(game: Game) -> bool:
    return rated(game.status, game.rated, (game.result or {}).get("ranks"),
                 [(s.user_id, s.bot) for s in game.seat_list])


def record_game_over(game: Game) -> None:
    """The first receiver of games.events.game_finished (kinplay.ratings.receivers), in the transaction
    that finishes ``game``: stamps the finish time and, for a rated game, updates its players'
    ratings. Keyed by the game: a second call changes nothing; a game that is not finished is
    left alone."""
    if game.status != Game.FINISHED or game.finished_at is not None:
        return
    if is_rated(game):
        # The flag as committed now that the move holds the row: a tournament cancelled while
        # the move was decided made the game friendly (kinplay.tournaments.services.cancel).
        # Asked only when it decides: a game that is not rated with the flag as read (a bot's,
        # a friendly one) stays unrated whatever the flag is now (a query less per game over).
        game.rated = Game.objects.filter(pk=game.pk).values_list("rated", flat=True).get()
    if not is_rated(game):
        _stamp(game, timezone.now())
        return
    seats = list(game.seat_list)
    users = [s.user_id for s in seats if s.user_id is not None]
    assert len(users) == len(seats) and game.result is not None  # is_rated: a player and a rank at every seat
    ratings = _locked_ratings(users, game.kind)
    # The time is read once the players' rows are locked, and kept after each player's last
    # rated game (a clock that steps back must not reorder them): two game-overs that share a
    # player are stamped in the order they are applied, the order rebuild_ratings replays.
    latest = max((r.updated_at for r in ratings.values() if r.updated_at), default=None)
    now = timezone.now()
    finished_at = now if latest is None or now > latest else latest + timedelta(microseconds=1)
    _stamp(game, finished_at)
    ranks = game.result["ranks"]
    before = [ratings[u] for u in users]
    after = rate([ranks[s.index] for s in seats], [(r.mu, r.sigma) for r in before])
    changes = []
    for seat, user_id, r, (mu, sigma) in zip(seats, users, before, after):
        changes.append(RatingChange(
            game_id=game.pk, seat=seat.index, user_id=user_id, kind=game.kind, rank=ranks[seat.index],
            mu_before=r.mu, sigma_before=r.sigma, mu_after=mu, sigma_after=sigma, games=r.games + 1,
            finished_at=finished_at))
        r.set(mu, sigma, finished_at)
    _save(ratings.values())  # each player once
    RatingChange.objects.bulk_create(changes)


SAVE_FIELDS = ("mu", "sigma", "ordinal", "games", "updated_at")


def _stamp(game, when):
    game.finished_at = when
    Game.objects.filter(pk=game.pk).update(finished_at=when, updated_at=timezone.now())


def _save(ratings):
    """Every row written exists (it is locked): one statement for all the seats, an INSERT
    that meets each row's key and updates it instead."""
    Rating.objects.bulk_create(list(ratings), update_conflicts=True, unique_fields=["id"], update_fields=SAVE_FIELDS)


def _locked_ratings(user_ids, kind) -> dict[int, Rating]:
    """The players' rows for this kind, locked (in id order, so two game-overs never wait on
    each other in a circle) and created first for new players: concurrent game-overs lose no
    update. One statement when everybody has played the kind before."""
    found = _select_locked(user_ids, kind)
    new = sorted(u for u in user_ids if u not in found)  # inserted in one order by everyone, too
    if new:
        Rating.objects.bulk_create([Rating(user_id=u, kind=kind) for u in new], ignore_conflicts=True)
        found.update(_select_locked(new, kind))
    return found


def _select_locked(user_ids, kind) -> dict[int, Rating]:
    """The rows of these players in one kind, locked in id order (SQLite locks the database)."""
    rows = Rating.objects.select_for_update().filter(kind=kind, user_id__in=user_ids).order_by("pk")
    return {r.user_id: r for r in rows}


def finished_in_order():
    """Every finished game in the order it finished (ties, which live play cannot give two
    games sharing a player, broken by id)."""
    return Game.objects.filter(status=Game.FINISHED, finished_at__isnull=False).order_by("finished_at", "pk")


def rebuild() -> int:
    """Replay every finished game in finish order into fresh ratings; returns the number of
    rated games. One transaction: readers see the old numbers or the new, never half.

    Plain rows while replaying, instances built only to write them: 100,000 games must rebuild within a minute.
    """
    seats: dict[int, list] = {}
    for game_id, _index, user_id, bot in (Seat.objects.filter(game__status=Game.FINISHED)
                                         .order_by("game_id", "index").values_list("game_id", "index", "user_id", "bot")):
        seats.setdefault(game_id, []).append((user_id, bot))
    current: dict[tuple[int, str], list] = {}  # (user, kind) -> [mu, sigma, games, updated_at]
    changes: list[tuple] = []  # RatingChange's fields in order, id first
    count = 0
    with transaction.atomic():
        games = finished_in_order().values_list("pk", "kind", "rated", "result", "finished_at")
        for game_id, kind, is_rated_flag, result, finished_at in games.iterator(chunk_size=5000):
            table = seats.get(game_id, [])
            ranks = (result or {}).get("ranks")
            if ranks is None or not rated(Game.FINISHED, is_rated_flag, ranks, table):
                continue
            before = [current.setdefault((user_id, kind), [MU, SIGMA, 0, None]) for user_id, _ in table]
            after = rate(ranks, [(b[0], b[1]) for b in before])
            when = finished_at
            for index, ((user_id, _), b, (mu, sigma)) in enumerate(zip(table, before, after)):
                changes.append((None, game_id, index, user_id, kind, ranks[index], b[0], b[1], mu, sigma, b[2] + 1,
                                when))
                b[:] = [mu, sigma, b[2] + 1, when]
            count += 1
        RatingChange.objects.all().delete()
        Rating.objects.all().delete()
        Rating.objects.bulk_create(
            [Rating(user_id=u, kind=k, mu=mu, sigma=sigma, ordinal=ordinal(mu, sigma), games=n, updated_at=when)
             for (u, k), (mu, sigma, n, when) in current.items()], batch_size=BATCH)
        RatingChange.objects.bulk_create([RatingChange(*change) for change in changes], batch_size=BATCH)
    return count


BATCH = 5000
