"""The ratings pages: leaderboards per kind and player pages (thin views over selectors).
Public, as on OGS and BGA: a stranger sees what a player sees, without "you" and head-to-head."""

from __future__ import annotations

from django.core.paginator import Paginator
from django.http import Http404
from django.shortcuts import redirect, render
from django.utils.safestring import mark_safe

from games.registry import kinds
from kinplay.infra.replica import may_lag
from kinplay.leagues import selectors as league_selectors
from kinplay.ratings import chart, selectors
from kinplay.ratings.models import PROVISIONAL_GAMES
from kinplay.tournaments import selectors as tournament_selectors
from kinplay.web.limits import over_stranger_budget

PER_PAGE = 50
CHART_GAMES = 100  # per kind: five lines of 200 would put points 0.6 px apart, a solid band


def leaderboards(request):
    """/ratings/: straight to the first kind's leaderboard."""
    first = next(iter(kinds()), None)
    if first is None:
        raise Http404("No games are installed.")
    return redirect("leaderboard", kind=first)


@may_lag
def leaderboard(request, kind):
    refused = over_stranger_budget(request)
    if refused:
        return refused
    k = kinds().get(kind)
    if k is None:
        raise Http404("No such kind of game.")
    tabs = selectors.kinds_rated()
    paginator = Paginator(selectors.leaderboard(kind), PER_PAGE)
    paginator.count = next(t["players"] for t in tabs if t["slug"] == kind)  # a cached property: the tabs' count spares its COUNT
    page = paginator.get_page(request.GET.get("page"))
    offset = (page.number - 1) * PER_PAGE
    rows = selectors.ranked_rows(page.object_list, kind, offset)
    for row in rows:
        row["you"] = row["player"] == request.user.username
    mine = selectors.standing_of(request.user, kind) if request.user.is_authenticated else None
    return render(request, "ratings/leaderboard.html", {
        "kind": k, "kinds": tabs, "rows": rows, "page": page,
        "my_rank": mine and mine[0], "my_page": mine and (mine[1] - 1) // PER_PAGE + 1,
        "provisional_games": PROVISIONAL_GAMES,
    })


@may_lag
def player(request, name):
    refused = over_stranger_budget(request)
    if refused:
        return refused
    user = selectors.player_named(name)
    if user is None:
        raise Http404("No such player.")
    if user.username != name:
        return redirect("player", name=user.username)
    names = {slug: k.name for slug, k in kinds().items()}
    rated = selectors.ratings_by_kind(user)
    ratings = [{"kind": slug, "name": names.get(slug, slug), **r} for slug, r in rated.items()]
    history = selectors.history(user, CHART_GAMES, rated)
    me = request.user.pk == user.pk
    return render(request, "ratings/player.html", {
        "player": user, "me": me, "ratings": ratings,
        "chart": mark_safe(chart.rating_chart(history, names)),  # built from numbers and escaped names
        "legend": chart.legend(history, names),
        "recent": selectors.recent_games(user),
        "h2h": None if me or not request.user.is_authenticated else selectors.head_to_head(request.user, user),
        "provisional_games": PROVISIONAL_GAMES,
        "leagues": league_selectors.leagues_of(user),
        "tournaments": tournament_selectors.tournaments_of(user),
    })
