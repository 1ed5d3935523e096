"""The ratings API: leaderboards per kind and player profiles (thin views over
kinplay.ratings.selectors). Public, as on OGS and BGA: names and numbers that every player page
shows anyway, never an address; strangers count against the anonymous throttle per address."""

import base64
import binascii
import math
from datetime import UTC, datetime, timedelta

from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers
from rest_framework.decorators import api_view, permission_classes
from rest_framework.exceptions import NotFound
from rest_framework.pagination import PageNumberPagination
from rest_framework.permissions import AllowAny
from rest_framework.response import Response

from api import pages
from api.errors import documented
from api.pages import integer
from games.registry import kinds
from games.services import BadRequest
from kinplay.infra.replica import may_lag
from kinplay.params import MAX_ID, natural
from kinplay.ratings import selectors


class KindRatingOut(serializers.Serializer):
    """A player's rating in one kind: a leaderboard row and a player page say it alike."""

    rank = serializers.IntegerField()
    rating = serializers.IntegerField(help_text="1500 + (200/σ₀)·(μ − 3σ), rounded; a new player has 1500")
    mu = serializers.FloatField()
    sigma = serializers.FloatField()
    games = serializers.IntegerField()
    provisional = serializers.BooleanField(help_text="fewer than 10 rated games of this kind")


class LeaderboardRowOut(KindRatingOut):
    """One row of a kind's leaderboard."""

    player = serializers.CharField()


class HistoryPointOut(serializers.Serializer):
    game = serializers.IntegerField()
    finished_at = serializers.DateTimeField()
    rating = serializers.IntegerField(help_text="the rating after this game")
    delta = serializers.IntegerField()


class RatingChangeOut(serializers.Serializer):
    before = serializers.IntegerField()
    after = serializers.IntegerField()
    delta = serializers.IntegerField()


class SummaryPlayerOut(serializers.Serializer):
    name = serializers.CharField()
    bot = serializers.BooleanField()
    rank = serializers.IntegerField(allow_null=True)


class GameSummaryOut(serializers.Serializer):
    id = serializers.IntegerField()
    kind = serializers.CharField()
    kind_name = serializers.CharField()
    status = serializers.CharField()
    finished_at = serializers.DateTimeField()
    rated = serializers.BooleanField()
    players = SummaryPlayerOut(many=True)
    rank = serializers.IntegerField(allow_null=True, help_text="the player's finishing rank")
    outcome = serializers.ChoiceField(["won", "drew", "lost"], allow_null=True)
    rating = RatingChangeOut(allow_null=True)


class HeadToHeadOut(serializers.Serializer):
    games = serializers.IntegerField()
    wins = serializers.IntegerField(help_text="games the caller finished ahead of this player")
    losses = serializers.IntegerField()
    draws = serializers.IntegerField()
    recent = GameSummaryOut(many=True)


class PlayerOut(serializers.Serializer):
    name = serializers.CharField()
    ratings = serializers.DictField(child=KindRatingOut(), help_text="by kind")
    history = serializers.DictField(child=HistoryPointOut(many=True),
                                    help_text="by kind, oldest first: the latest 200 rated games of each kind "
                                              "(GET /api/players/{name}/history/{kind}/ has them all)")
    recent = GameSummaryOut(many=True)
    head_to_head = HeadToHeadOut(allow_null=True, help_text="the caller against this player; null on one's own "
                                                            "profile and for a caller not signed in")


class LeaderboardPagination(PageNumberPagination):
    """DRF's pages, but input that is no page number is a 400 that says so (DRF: 404 "Invalid
    page."), as the API's other lists answer a bad ``limit`` (api.pages); a page past the end
    is still a 404, saying how many there are."""

    page_size = 50
    page_size_query_param = "page_size"
    max_page_size = 200
    invalid_page_message = "There is no page {page_number}: {message}."

    def get_page_number(self, request, paginator):
        raw = request.query_params.get(self.page_query_param, "1")
        if raw in self.last_page_strings:
            return paginator.num_pages
        if not natural(raw):
            raise BadRequest("page must be a whole number from 1 (or last).")
        return raw

    def get_page_size(self, request):
        raw = request.query_params.get(self.page_size_query_param)
        if raw is None:
            return self.page_size
        size = natural(raw, maximum=self.max_page_size)
        if not size:
            raise BadRequest(f"page_size must be a whole number from 1 to {self.max_page_size}.")
        return size


class LeaderboardPageOut(serializers.Serializer):
    count = serializers.IntegerField(allow_null=True, help_text="the players rated in this kind; null on a cursor's page")
    next = serializers.URLField(allow_null=True)
    previous = serializers.URLField(allow_null=True)
    results = LeaderboardRowOut(many=True)


def _known_kind(kind):
    if kind not in kinds():
        raise NotFound(f"Unknown kind “{kind}”. Kinds: {', '.join(kinds())}.")


def _cursor(row: dict, rating, position: int) -> str:
    """Where the next page starts: the last row's place in the order, its rank and position."""
    raw = f"{rating.ordinal!r}|{rating.games}|{rating.user_id}|{row['rank']}|{position}"
    return base64.urlsafe_b64encode(raw.encode()).decode().rstrip("=")


def _after(raw: str) -> tuple[float, int, int, int, int]:
    """A cursor's (ordinal, games, user id, rank, position); a 400 for one no page gave."""
    try:
        parts = base64.urlsafe_b64decode(raw + "=" * (-len(raw) % 4)).decode().split("|")
        ordinal, (games, user_id, rank, position) = float(parts[0]), (int(x) for x in parts[1:])
    except (ValueError, UnicodeDecodeError, binascii.Error):
        raise NotFound('No page has this cursor: take it from "next".') from None
    if not math.isfinite(ordinal) or min(games, user_id, rank, position) < 0 or max(games, user_id, rank, position) > MAX_ID:
        raise NotFound('No page has this cursor: take it from "next".')
    return ordinal, games, user_id, rank, position


def _page_after(request, kind, size: int) -> tuple[list[dict], list, bool, int]:
    """The rows after the ``cursor`` with their ranks, their Ratings, whether more follow, and
    how many rows come before them."""
    ordinal, games, user_id, rank, position = _after(request.query_params["cursor"])
    page = list(selectors.leaderboard_after(kind, ordinal, games, user_id)[:size + 1])
    rows = selectors.ranked_rows(page[:size], kind, position, before=(ordinal, rank))
    return rows, page[:size], len(page) > size, position


@extend_schema(responses={200: LeaderboardPageOut, **documented(400, 404)}, auth=[],
               parameters=[OpenApiParameter("page", integer(1, MAX_ID), description="a page number (an offset: for the first "
                                                                                 "pages; follow next for the deep ones)"),
                           OpenApiParameter("page_size", integer(1, LeaderboardPagination.max_page_size)),
                           OpenApiParameter("cursor", {"type": "string", "pattern": "^[A-Za-z0-9_-]+$"},
                                            description="where the page starts: take it from next (a cursor no page "
                                                        "gave is a 404, as a page past the end)")])
@api_view(["GET"])
@permission_classes([AllowAny])
@may_lag
def leaderboard(request, kind):
    """A kind's leaderboard a page at a time. ``next`` carries a cursor (the last row's place in
    the rating_leaderboard index), so any page costs what the first does; ``page=N`` still
    answers, as an offset."""
    _known_kind(kind)
    pager = LeaderboardPagination()
    if "cursor" in request.query_params:
        rows, ratings, more, offset = _page_after(request, kind, pager.get_page_size(request))
        count, previous = None, None  # counting every row of the kind is what a cursor's page spares
    else:
        ratings = list(pager.paginate_queryset(selectors.leaderboard(kind), request) or [])
        offset = (pager.page.number - 1) * pager.page.paginator.per_page
        rows, more = selectors.ranked_rows(ratings, kind, offset), pager.page.has_next()
        count, previous = pager.page.paginator.count, pager.get_previous_link()
    query = request.query_params.copy()
    query.pop("page", None)
    if more:
        query["cursor"] = _cursor(rows[-1], ratings[-1], offset + len(rows))
    nxt = f"{request.build_absolute_uri(request.path)}?{query.urlencode()}" if more else None
    return Response({"count": count, "next": nxt, "previous": previous, "results": rows})


# The rated games per kind a profile carries (what the player page's chart draws): a profile is
# read often and whole, so its cost stays that of a page; the history list pages through the rest.
HISTORY_SHOWN = 200


@extend_schema(responses={200: PlayerOut, **documented(404)})
@api_view(["GET"])
@permission_classes([AllowAny])
@may_lag
def player(request, name):
    user = selectors.player_named(name)
    if user is None:
        raise NotFound(f"There is no player “{name}”.")
    h2h = None
    if request.user.is_authenticated and request.user.pk != user.pk:
        h2h = selectors.head_to_head(request.user, user)
    ratings = selectors.ratings_by_kind(user)
    return Response({
        "name": user.username,
        "ratings": ratings,
        "history": selectors.history(user, HISTORY_SHOWN, ratings),
        "recent": selectors.recent_games(user),
        "head_to_head": h2h,
    })


EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
MICROSECOND = timedelta(microseconds=1)


@extend_schema(responses={200: HistoryPointOut(many=True), **documented(400, 404)}, auth=[],
               parameters=pages.parameters(2))
@api_view(["GET"])
@permission_classes([AllowAny])
@may_lag
def player_history(request, name, kind):
    """A player's rated games of one kind, newest first, with the rating after each: a page at
    a time (``?limit=``, and ``Link: rel="next"`` while older games follow). The cursor is the
    last game's (finish time in microseconds, id): its place in the history's index."""
    _known_kind(kind)
    user = selectors.player_named(name)
    if user is None:
        raise NotFound(f"There is no player “{name}”.")
    limit, after = pages.limit_of(request), pages.cursor_of(request, 2)
    before = None if after is None else (EPOCH + after[0] * MICROSECOND, after[1])
    points = selectors.history_page(user, kind, before=before, limit=limit + 1)
    total = selectors.history_count(user, kind, pages.COUNTED + 1)
    return pages.respond(request, points, dict, limit=limit, total=total if total <= pages.COUNTED else None,
                         key=lambda p: ((p["finished_at"] - EPOCH) // MICROSECOND, p["game"]))
