"""Reads of ratings: leaderboards, a player's ratings and history, a game's rating changes,
head-to-head records, and ``rating_of`` for seeding tournaments."""

from __future__ import annotations

import time
from datetime import datetime

from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.db.models import Count, Q

from games.models import Game, Seat
from games.registry import kind_name, kinds
from games.selectors import capped_count, over_games
from kinplay.ratings.models import Rating, RatingChange, shown

RECENT_GAMES = 15


def rating_of(user, kind: str) -> Rating:
    """The player's rating in ``kind``; a new player's (1500, provisional, unsaved) if they
    have no rated game of it yet. Tournaments seed by ``.ordinal`` (then ``.rating``)."""
    found = Rating.objects.filter(user=user, kind=kind).first()
    return found or Rating(user=user, kind=kind)


def ratings_of(users, kind: str) -> dict[int, Rating]:
    """``rating_of`` for many players in one query, by user id."""
    users = list(users)
    found = {r.user_id: r for r in Rating.objects.filter(kind=kind, user__in=users)}
    return {u.pk: found.get(u.pk) or Rating(user=u, kind=kind) for u in users}


def leaderboard(kind: str):
    """Everyone rated in ``kind``, best first (ties: more games first, then the earlier
    account). Exactly the order of the rating_leaderboard index, so a deep page is an index
    walk, not a sort. Without the players' names: joining the users would make PostgreSQL sort
    the whole kind for a deep page; ``ranked_rows`` reads the page's."""
    return Rating.objects.filter(kind=kind).order_by("-ordinal", "-games", "user_id")


def leaderboard_after(kind: str, ordinal: float, games: int, user_id: int):
    """The leaderboard after the row (``ordinal``, ``games``, ``user_id``): a page that starts
    where the last one ended, in the rating_leaderboard index (``ordinal__lte`` bounds the
    index range; the rest skips the ties already shown), whatever its depth."""
    after = Q(ordinal__lt=ordinal) | Q(ordinal=ordinal, games__lt=games) | Q(ordinal=ordinal, games=games, user_id__gt=user_id)
    return leaderboard(kind).filter(after, ordinal__lte=ordinal)


def ranked_rows(page_rows, kind: str, offset: int, before: tuple[float, int] | None = None) -> list[dict]:
    """Leaderboard rows of one page with their rank (equal ratings share a rank, as 1, 2, 2, 4).
    ``offset``: the rows before the page; ``before``: the ordinal and rank of the row just
    before it, when known (a cursor's page), else the first row's rank is counted."""
    page_rows = list(page_rows)
    names = dict(get_user_model().objects.filter(pk__in=[r.user_id for r in page_rows]).values_list("pk", "username"))
    rows, rank, previous = [], None, None
    if before is not None:
        previous, rank = before
    for i, r in enumerate(page_rows):
        if previous is None or r.ordinal != previous:
            rank = (offset + i + 1) if previous is not None else _rank_of(r, kind)
        previous = r.ordinal
        rows.append(row_of(r, rank, names[r.user_id]))
    return rows


def _rank_of(r: Rating, kind: str) -> int:
    return Rating.objects.filter(kind=kind, ordinal__gt=r.ordinal).count() + 1


def row_of(r: Rating, rank: int | None, player: str) -> dict:
    return {"rank": rank, "player": player, "rating": r.rating, "mu": r.mu, "sigma": r.sigma,
            "games": r.games, "provisional": r.provisional}


def standing_of(user, kind: str) -> tuple[int, int] | None:
    """(rank, position in the leaderboard's order) of ``user``; None if unrated. They differ
    when ratings tie: the position says which page the row is on."""
    r = Rating.objects.filter(user=user, kind=kind).first()
    if r is None:
        return None
    # Kept as a profile's ranks are (RANK_SECONDS, by the rating: a new one is counted at once).
    key = f"ratings:standing:{kind}:{r.ordinal!r}:{r.games}:{r.user_id}"
    rank, position = cache.get_or_set(key, lambda: _standing(r, kind), RANK_SECONDS) or _standing(r, kind)
    return rank, position


def _standing(r: Rating, kind: str) -> tuple[int, int]:
    # Both counts in one pass over the players rated at least as high (a range of the index).
    level = Q(ordinal=r.ordinal)
    counts = Rating.objects.filter(kind=kind, ordinal__gte=r.ordinal).aggregate(
        higher=Count("pk", filter=Q(ordinal__gt=r.ordinal)),
        ahead=Count("pk", filter=Q(ordinal__gt=r.ordinal) | level & Q(games__gt=r.games)
                    | level & Q(games=r.games, user_id__lt=r.user_id)))
    return counts["higher"] + 1, counts["ahead"] + 1


def rating_changes(game) -> dict[int, dict]:
    """``{seat: {"before", "after", "delta"}}`` in shown points; empty for an unrated game."""
    return {c.seat: {"before": c.before, "after": c.after, "delta": c.delta}
            for c in RatingChange.objects.filter(game=game)}


def player_named(name: str):
    """The user with this name (case as typed, else any case); None if there is none, or if
    the account is deactivated: its page and profile are gone, and look like they never were."""
    users = get_user_model().objects.filter(is_active=True)
    return users.filter(username=name).first() or users.filter(username__iexact=name).first()


# The deactivated names, kept this long per process (a page links dozens of names): a player
# deactivated in another process may still be linked for that long (this one forgets at once).
DEACTIVATED_SECONDS = 10.0
_deactivated: list = [0.0, frozenset()]  # [good until (monotonic), names]


def deactivated_names() -> frozenset[str]:
    """The usernames of deactivated accounts: their names stay in tables and games, unlinked
    (their page answers 404)."""
    now = time.monotonic()
    if _deactivated[0] <= now:
        names = frozenset(get_user_model().objects.filter(is_active=False).values_list("username", flat=True))
        _deactivated[:] = [now + DEACTIVATED_SECONDS, names]
    return _deactivated[1]


def forget_deactivated(**kwargs) -> None:
    """A user saved (deactivated, reactivated, renamed): this process asks again."""
    _deactivated[0] = 0.0


def ratings_by_kind(user) -> dict[str, dict]:
    """The player's rating in each kind they have played rated, in the registry's order."""
    rows = {r.kind: r for r in Rating.objects.filter(user=user)}
    ranks = _ranks(list(rows.values()))
    out = {}
    for slug in list(kinds()) + sorted(set(rows) - set(kinds())):
        r = rows.get(slug)
        if r is not None:
            out[slug] = {"rating": r.rating, "mu": r.mu, "sigma": r.sigma, "games": r.games,
                         "provisional": r.provisional, "rank": ranks[slug]}
    return out


# How long a rank is kept: it counts everyone rated above (a walk of the leaderboard's index as
# long as the kind's players), which a profile should not pay each view. Kept by rating, so a
# player's new rating is ranked at once; others' new ratings move it within this time.
RANK_SECONDS = 60


def _ranks(ratings: list[Rating]) -> dict[str, int]:
    """Each rating's rank in its kind (``_rank_of``), through the shared cache, by kind."""
    keys = {r.kind: f"ratings:rank:{r.kind}:{r.ordinal!r}" for r in ratings}
    found = cache.get_many(list(keys.values())) if keys else {}
    counted = {keys[r.kind]: _rank_of(r, r.kind) for r in ratings if keys[r.kind] not in found}
    if counted:
        cache.set_many(counted, RANK_SECONDS)
    return {kind: found.get(key) or counted[key] for kind, key in keys.items()}


def history(user, last: int, kinds) -> dict[str, list[dict]]:
    """Per kind of ``kinds`` (those the player is rated in: ``ratings_by_kind``'s), the rating
    after each of the ``last`` latest rated games, oldest first."""
    return {kind: history_page(user, kind, limit=last)[::-1] for kind in kinds}


def history_page(user, kind: str, *, before: tuple[datetime, int] | None = None, limit: int) -> list[dict]:
    """The player's rated games of ``kind``, newest first, after the one keyed ``before``
    ((finished_at, game id) of the last one shown): a walk down the rating_change_history
    index that stops at the page's end. Plain values, not model rows: a chart reads hundreds."""
    rows = RatingChange.objects.filter(user=user, kind=kind)
    if before is not None:
        at, game = before
        rows = rows.filter(Q(finished_at__lt=at) | Q(finished_at=at, game_id__lt=game), finished_at__lte=at)
    fields = ("game_id", "finished_at", "mu_before", "sigma_before", "mu_after", "sigma_after")
    out = []
    for game, at, mu_before, sigma_before, mu_after, sigma_after in rows.order_by("-finished_at", "-game_id").values_list(
            *fields)[:limit]:
        after = shown(mu_after, sigma_after)
        out.append({"game": game, "finished_at": at, "rating": after, "delta": after - shown(mu_before, sigma_before)})
    return out


def history_count(user, kind: str, cap: int) -> int:
    """The player's rated games of ``kind``, counted up to ``cap`` at most."""
    return capped_count(RatingChange.objects.filter(user=user, kind=kind), cap)


def recent_games(user, limit: int = RECENT_GAMES) -> list[dict]:
    """The player's newest finished games (by when they began: the seat_user_game index's
    order, which stops after ``limit``) with their result and rating change."""
    return summaries(over_games(user, statuses=(Game.FINISHED,), limit=limit), user)


def summaries(games, user) -> list[dict]:
    """The ``<game summary>`` of the players API: who played, in which rank, with what change."""
    changes = {(c.game_id, c.seat): c for c in RatingChange.objects.filter(game__in=games)}
    out = []
    for g in games:
        ranks = (g.result or {}).get("ranks") or []
        seats = list(g.seat_list)
        seat = next((s.index for s in seats if s.user_id == user.pk), None)
        mine = changes.get((g.pk, seat)) if seat is not None else None
        out.append({
            "id": g.pk, "kind": g.kind, "kind_name": kind_name(g.kind), "status": g.status,
            "finished_at": g.finished_at or g.updated_at, "rated": any(k[0] == g.pk for k in changes),
            "players": [{"name": s.name, "bot": bool(s.bot), "rank": ranks[s.index] if s.index < len(ranks) else None}
                        for s in seats],
            "rank": ranks[seat] if seat is not None and seat < len(ranks) else None,
            "outcome": _outcome(ranks, seat),
            "rating": {"before": mine.before, "after": mine.after, "delta": mine.delta} if mine else None,
        })
    return out


def _outcome(ranks, seat) -> str | None:
    """"won", "drew" (first with others), or "lost" from the finishing ranks."""
    if seat is None or seat >= len(ranks):
        return None
    if ranks[seat] != 1:
        return "lost"
    return "drew" if sum(1 for r in ranks if r == 1) > 1 else "won"


def head_to_head(user, other, limit: int = 10) -> dict:
    """Finished games both played: how ``user`` finished against ``other`` (ahead, behind,
    level), and the latest of those games."""
    both = (Game.objects.filter(status=Game.FINISHED, seats__user=user)
            .filter(pk__in=Seat.objects.filter(user=other).values("game_id"))
            .order_by("-finished_at", "-pk").with_seats())
    wins = losses = draws = 0
    games = list(both)
    for g in games:
        ranks = (g.result or {}).get("ranks") or []
        seat_of = {s.user_id: s.index for s in g.seat_list if s.user_id}
        a, b = seat_of.get(user.pk), seat_of.get(other.pk)
        if a is None or b is None or max(a, b) >= len(ranks):
            continue
        if ranks[a] < ranks[b]:
            wins += 1
        elif ranks[a] > ranks[b]:
            losses += 1
        else:
            draws += 1
    return {"games": len(games), "wins": wins, "losses": losses, "draws": draws,
            "recent": summaries(games[:limit], user)}


# How long the leaderboards' player counts are kept: counting every rating costs a scan of the
# ratings table, which a page view should not pay; the numbers are a tab's label and the pager's.
KINDS_RATED_SECONDS = 60


def kinds_rated() -> list[dict]:
    """Every kind with how many players are rated in it (the leaderboards' index), counted at
    most once a ``KINDS_RATED_SECONDS`` (in the shared cache)."""
    counts: dict[str, int] = cache.get_or_set("ratings:kinds_rated", _count_by_kind, KINDS_RATED_SECONDS) or {}
    return [{"slug": slug, "name": k.name, "players": counts.get(slug, 0)} for slug, k in kinds().items()]


def _count_by_kind() -> dict[str, int]:
    return dict(Rating.objects.values_list("kind").annotate(n=Count("id")))

