"""Writes to ratings: applying one finished game (live, in its game-over transaction) and
rebuilding every rating from the finished games in finish order.

Both compute through ``rate``, in the same order, so a rebuild gives exactly the live numbers.
"""

from __future__ import annotations

from datetime import timedelta
from functools import cache

from django.db import connection, transaction
from django.utils import timezone
from openskill.models import PlackettLuce

from games.models import Game, Seat
from kinplay import sql
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
    ratings = _locked_ratings([s.user_id for s in seats], game.kind)
    # The time is read once the players' rows are locked, and kept after each player's last
    # rated game (a clock that steps back must not reorder them): two game-overs that share a
    # player are stamped in the order they are applied, the order rebuild_ratings replays.
    latest = max((r.updated_at for r in ratings.values() if r.updated_at), default=None)
    now = timezone.now()
    _stamp(game, now if latest is None or now > latest else latest + timedelta(microseconds=1))
    ranks = game.result["ranks"]
    before = [ratings[s.user_id] for s in seats]
    after = rate([ranks[s.index] for s in seats], [(r.mu, r.sigma) for r in before])
    changes = []
    for seat, r, (mu, sigma) in zip(seats, before, after):
        changes.append(RatingChange(
            game_id=game.pk, seat=seat.index, user_id=seat.user_id, kind=game.kind, rank=ranks[seat.index],
            mu_before=r.mu, sigma_before=r.sigma, mu_after=mu, sigma_after=sigma, games=r.games + 1,
            finished_at=game.finished_at))
        r.set(mu, sigma, game.finished_at)
    _save(ratings.values())  # each player once
    sql.insert(RatingChange, changes, CHANGE_FIELDS)


CHANGE_FIELDS = ("game", "seat", "user", "kind", "rank", "mu_before", "sigma_before", "mu_after", "sigma_after",
                 "games", "finished_at")
RATING_FIELDS = ("user", "kind", "mu", "sigma", "ordinal", "games", "updated_at")

# The game-over path uses plain statements (kinplay.sql): it runs inside every game-over move,
# and building its queries cost the ORM several times what running them cost PostgreSQL.
LOCKED_FIELDS = ("id", *RATING_FIELDS)
SAVE_FIELDS = ("mu", "sigma", "ordinal", "games", "updated_at")


@cache
def _locked_sql(players: int) -> str:
    """The rows of ``players`` players in one kind, locked in id order."""
    lock = " FOR UPDATE" if connection.features.has_select_for_update else ""  # SQLite locks the database
    kind, user, pk = (sql.columns(Rating, [f]) for f in ("kind", "user", "id"))
    return (f"SELECT {sql.columns(Rating, LOCKED_FIELDS)} FROM {connection.ops.quote_name(Rating._meta.db_table)} "
            f"WHERE {kind} = %s AND {user} IN ({', '.join(['%s'] * players)}) ORDER BY {pk}{lock}")


@cache
def _save_conflict() -> str:
    """Every row written exists (it is locked): the INSERT always becomes this UPDATE, one
    statement for all the seats."""
    sets = ", ".join(f"{c} = EXCLUDED.{c}" for c in (sql.columns(Rating, [f]) for f in SAVE_FIELDS))
    return f"({sql.columns(Rating, ['id'])}) DO UPDATE SET {sets}"


def _when(value):
    return connection.ops.adapt_datetimefield_value(value)


def _stamp(game, when):
    game.finished_at = when
    sql.update_if(game, ["finished_at"], {})


def _save(ratings):
    # The statement sql.update_rows makes, without the ORM building it: 0.15 ms of CPU for two
    # players where update_rows took 0.45 ms, in a game-over that should add 2 ms at most.
    sql.insert(Rating, list(ratings), LOCKED_FIELDS, on_conflict=_save_conflict())


def _locked_ratings(user_ids, kind) -> dict[int, Rating]:
    """The players' rows for this kind, locked (in id order, so two game-overs never wait on
    each other in a circle) and created first for new players: concurrent game-overs lose no
    update. One statement when everybody has played the kind before."""
    found = _select_locked(user_ids, kind)
    new = sorted(u for u in user_ids if u not in found)  # inserted in one order by everyone, too
    if new:
        sql.insert(Rating, [Rating(user_id=u, kind=kind) for u in new], RATING_FIELDS, on_conflict="DO NOTHING")
        found.update(_select_locked(new, kind))
    return found


def _select_locked(user_ids, kind) -> dict[int, Rating]:
    with connection.cursor() as cursor:
        cursor.execute(_locked_sql(len(user_ids)), [kind, *user_ids])
        rows = cursor.fetchall()
    return {r.user_id: r for r in (sql.instance(Rating, LOCKED_FIELDS, row) for row in rows)}


def finished_in_order():
    """Every finished game in the order it finished (ties, which live play cannot give two
    games sharing a player, broken by id)."""
    return Game.objects.filter(status=Game.FINISHED, finished_at__isnull=False).order_by("finished_at", "pk")


def rebuild() -> int:
    """Replay every finished game in finish order into fresh ratings; returns the number of
    rated games. One transaction: readers see the old numbers or the new, never half.

    Plain rows rather than model instances: 100,000 games must rebuild within a minute.
    """
    seats: dict[int, list] = {}
    for game_id, _index, user_id, bot in (Seat.objects.filter(game__status=Game.FINISHED)
                                         .order_by("game_id", "index").values_list("game_id", "index", "user_id", "bot")):
        seats.setdefault(game_id, []).append((user_id, bot))
    current: dict[tuple[int, str], list] = {}  # (user, kind) -> [mu, sigma, games, updated_at]
    changes = []
    count = 0
    with transaction.atomic():
        games = finished_in_order().values_list("pk", "kind", "rated", "result", "finished_at")
        for game_id, kind, is_rated_flag, result, finished_at in games.iterator(chunk_size=5000):
            table = seats.get(game_id, [])
            ranks = (result or {}).get("ranks")
            if not rated(Game.FINISHED, is_rated_flag, ranks, table):
                continue
            before = [current.setdefault((user_id, kind), [MU, SIGMA, 0, None]) for user_id, _ in table]
            after = rate(ranks, [(b[0], b[1]) for b in before])
            when = _when(finished_at)
            for index, ((user_id, _), b, (mu, sigma)) in enumerate(zip(table, before, after)):
                changes.append((game_id, index, user_id, kind, ranks[index], b[0], b[1], mu, sigma, b[2] + 1, when))
                b[:] = [mu, sigma, b[2] + 1, when]
            count += 1
        RatingChange.objects.all().delete()
        Rating.objects.all().delete()
        _insert_rows(Rating, RATING_FIELDS, [(u, k, mu, sigma, ordinal(mu, sigma), n, when)
                                             for (u, k), (mu, sigma, n, when) in current.items()])
        _insert_rows(RatingChange, CHANGE_FIELDS, changes)
    return count


def _insert_rows(model, fields, rows, batch=5000):
    cols = sql.columns(model, fields)
    statement = (f"INSERT INTO {connection.ops.quote_name(model._meta.db_table)} ({cols}) "
                 f"VALUES ({', '.join(['%s'] * len(fields))})")
    with connection.cursor() as cursor:
        for i in range(0, len(rows), batch):
            cursor.executemany(statement, rows[i:i + batch])
