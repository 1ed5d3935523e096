"""The league's email: one per player when a season starts (their division, its players and
their first game). Its own templates (templates/mail/league.*); the "email me" switch of the
settings page is respected (notifications.services.queue)."""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.mail import EmailMultiAlternatives

from games.models import Seat
from kinplay.leagues import selectors
from kinplay.leagues.models import League
from kinplay.notifications.mail import two_part
from kinplay.notifications.models import Outbox
from kinplay.notifications.services import queue
from kinplay.tournaments.models import TournamentGame

SEASON_STARTED = "league_season"
KINDS = (SEASON_STARTED,)


def _first_games(season) -> dict:
    """player -> their first game, from the divisions' round 1 (one read per season)."""
    round1 = TournamentGame.objects.filter(tournament_id__in=[d["tournament"] for d in season["divisions"]], round=1)
    first: dict[int, int] = {}
    for gid, uid in Seat.objects.filter(game_id__in=round1.values("game_id")).order_by("game_id").values_list("game_id", "user_id"):
        first.setdefault(uid, gid)
    return first


def season_started(league, number):
    season = league.state["seasons"][number - 1]
    first = _first_games(season)
    players = [p for d in season["divisions"] for p in d["players"]]
    users = get_user_model().objects.in_bulk(players)
    queue([Outbox(kind=SEASON_STARTED, game_id=first.get(p), user=users[p], version=league.version,
                           detail=f"{league.pk}|{number}") for p in players if p in users], switched=KINDS)


def compose(row: Outbox) -> EmailMultiAlternatives:
    lid, _, number = row.detail.partition("|")
    league = League.objects.get(pk=int(lid))
    s = league.state
    season = s["seasons"][int(number) - 1]
    division = next(i for i, d in enumerate(season["divisions"], start=1) if row.user_id in d["players"])
    path = selectors.path_of(league, row.user_id)
    # Up, down or staying: said only of the season just finished, played to its end (not of a
    # player who left or was dropped and signed up again).
    before = next((r for r in path if r["season"] == int(number) - 1 and r["move"] in ("up", "down", "stay")), None)
    site = settings.SITE_URL.rstrip("/")
    names = {int(k): m["name"] for k, m in s["members"].items()}
    context = {
        "user": row.user, "league": league, "number": number, "division": division,
        "divisions": len(season["divisions"]), "previous": before,
        "players": [names[p] for p in season["divisions"][division - 1]["players"] if p != row.user_id],
        "ends_at": season["ends_at"], "url": f"{site}/leagues/{league.pk}/",
        "game_url": f"{site}/games/{row.game_id}/" if row.game_id else None, "settings_url": f"{site}/settings/",
    }
    subject = f"{league.name}: season {number} starts — you play in division {division}"
    return two_part(subject, "league", context, row.user.email)
