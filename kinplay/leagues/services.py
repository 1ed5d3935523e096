"""Writes to leagues: create, sign up, leave, and the season roll-over that runs by itself.

A season is one tournament per division, all started together through the tournament
services (kinplay.tournaments.services): the league only decides who plays in which division
and, when every division's tournament has finished (their rounds adjudicate themselves when
their time is up), who moves up, down or out. The roll-over runs in the worker (beat sweep).
"""

from __future__ import annotations

import logging
from datetime import timedelta
from typing import TypedDict

from django.contrib.auth import get_user_model
from django.db import transaction
from django.db.models import Exists, OuterRef, Q
from django.utils import timezone

from games import services as games
from games.registry import get, kinds
from kinplay.leagues import emails, stream
from kinplay.leagues.models import Division, League, LeagueEvent, Placement
from kinplay.tournaments import pairing
from kinplay.tournaments import services as tournaments
from kinplay.tournaments import stream as tstream
from kinplay.tournaments.models import Tournament

log = logging.getLogger("kinplay.leagues")

FORMATS = ("round_robin", "swiss")
PLACEMENTS = ("bottom", "rating")
MAX_DIVISION_SIZE = 64
FIRST_SEASON_AFTER_DAYS = 7


class LeagueError(games.BadRequest):
    """Refused settings or a step the league cannot take now, with the reason: the API answers 422 for
    settings (api.organised.Organised.create), 409 for a step (Organised.action)."""


# ---------------------------------------------------------------- the stream


def _locked(lid) -> League:
    return League.objects.select_for_update().get(pk=lid)


def _append(league: League, type_: str, data: dict):
    league.version += 1
    LeagueEvent.objects.create(league=league, seq=league.version, type=type_, data=data)
    league.state = stream.evolve(league.state, type_, data)


def _save(league: League):
    league.save(update_fields=["version", "state", "status", "season", "starts_at"])


# ---------------------------------------------------------------- creating


def _int(v, name, low, high=None):
    return tournaments._int(v, name, low, high)


def config_of(*, kind, options=None, format=None, division_size=6, season_days=28, promote=1, relegate=1,
              rated=True, drop_limit=1, placement="bottom", clock=None, rounds=None, table_size=None,
              points=None) -> tuple[dict, dict]:
    """Check the organiser's settings with the tournament checks (a division is a tournament);
    returns (options with defaults, config)."""
    if kind not in kinds():
        raise LeagueError(f"Unknown kind “{kind}”. Kinds: {', '.join(kinds())}.")
    if format is None:
        duel = tournaments.allowed_sizes(get(kind), games.options_with_defaults(get(kind), options or {})) == [2]
        format = "round_robin" if duel else "swiss"
    if format not in FORMATS:
        raise LeagueError(f"format must be one of {', '.join(FORMATS)} (a division plays a round robin or a Swiss).")
    if not isinstance(season_days, (int, float)) or isinstance(season_days, bool) or not 1 <= season_days <= 365:
        raise LeagueError("season_days must be a number of days from 1 to 365.")
    options, tcfg = tournaments.config_of(kind=kind, options=options, format=format, rounds=rounds, table_size=table_size,
                                          points=points, clock=clock, round_days=1, rated=rated)
    division_size = _int(division_size, "division_size", 2, MAX_DIVISION_SIZE)
    smallest = max(2, min(tcfg["sizes"]))
    if division_size < smallest:
        raise LeagueError(f"division_size {division_size} is too small: {kind} is played at tables of "
                          f"{', '.join(map(str, tcfg['sizes']))}, so a division needs at least {smallest} players.")
    promote, relegate = _int(promote, "promote", 0), _int(relegate, "relegate", 0)
    if promote + relegate > division_size:
        raise LeagueError(f"promote + relegate ({promote} + {relegate}) cannot be more than a division ({division_size} players).")
    biggest = division_size + (division_size + 1) // 2 - 1  # a division with a rest spread over it (stream.division_sizes)
    longest = (biggest if biggest % 2 else biggest - 1) if format == "round_robin" else \
        (rounds or pairing.swiss_rounds(biggest, tcfg["sizes"]))
    if season_days / longest < tournaments.MIN_ROUND_DAYS:
        raise LeagueError(f"season_days {season_days:g} is too short: a division of up to {biggest} players plays {longest} "
                          f"rounds, and a round needs at least an hour.")
    drop_limit = _int(drop_limit, "drop_limit", 0, 100)
    if placement not in PLACEMENTS:
        raise LeagueError("placement must be bottom (new players start in the lowest division) or rating.")
    return options, {
        "format": format, "division_size": division_size, "smallest": smallest, "season_days": season_days,
        "promote": promote, "relegate": relegate, "rated": rated, "drop_limit": drop_limit, "placement": placement,
        "clock": tcfg["clock"], "rounds": rounds, "table_size": tcfg["table_size"], "sizes": tcfg["sizes"],
        "points": points,
    }


def create(*, organiser, name, kind, options=None, starts_at=None, **settings_) -> League:
    if not isinstance(name, str) or not name.strip() or len(name) > 80:
        raise LeagueError("name must be 1 to 80 characters.")
    options, config = config_of(kind=kind, options=options, **settings_)
    if starts_at is None:  # a week to gather sign-ups; the first season takes whoever came
        when = timezone.now() + timedelta(days=FIRST_SEASON_AFTER_DAYS)
    else:
        when = tournaments.future_start(starts_at, LeagueError)
    with transaction.atomic():
        league = League.objects.create(name=name.strip(), kind=kind, organiser=organiser, starts_at=when)
        _append(league, "created", {"name": league.name, "kind": kind, "options": options, "config": config,
                                    "organiser": organiser.pk, "starts_at": when.isoformat()})
        _save(league)
    return league


# ---------------------------------------------------------------- members


def sign_up(lid, user) -> League:
    """For the next season (the first one, if the league has not started)."""
    with transaction.atomic():
        league = _locked(lid)
        if stream.in_league(league.state, user.pk):
            raise LeagueError("You have already signed up for this league.")
        _append(league, "signed_up", {"player": user.pk, "name": user.username, "order": league.version})
        _save(league)
    return league


def leave(lid, user) -> League:
    """Out of the league; in a running season the player withdraws from their division."""
    with transaction.atomic():
        league = _locked(lid)
        if not stream.in_league(league.state, user.pk):
            raise LeagueError("You are not in this league.")
        division = league.state["members"][str(user.pk)]["division"]
        _append(league, "left", {"player": user.pk})
        _save(league)
        if division is not None:
            season = stream.current(league.state)
            assert season is not None  # a member with a division plays in the current season
            tid = season["divisions"][division - 1]["tournament"]
            if Tournament.objects.filter(pk=tid, status__in=[Tournament.OPEN, Tournament.RUNNING]).exists():
                tournaments.withdraw(tid, user, reason="left the league")
    return league


# ---------------------------------------------------------------- seasons


def _ratings(league, players) -> dict:
    users = get_user_model().objects.in_bulk(list(players))
    return tournaments._ratings(list(users.values()), league.kind)


def _finish_season(league, season: dict) -> tuple[list[list[int]], list[dict]]:
    """Each division's final order (players still in it) and who is dropped, in ``season``
    (the current one)."""
    s = league.state
    limit = s["config"]["drop_limit"]
    ids = [d["tournament"] for d in season["divisions"]]
    states = {t.pk: tournaments.load(t) for t in Tournament.objects.filter(pk__in=ids)}
    ranked, out = [], []
    for div in season["divisions"]:
        ts = states[div["tournament"]]
        mine = set(div["players"])
        rows = tstream.standings(ts)  # ordered to the last tiebreak, the visible drawing of lots
        playing = [r["player"] for r in rows if r["player"] in mine
                   and s["members"][str(r["player"])]["status"] == stream.PLAYING]
        dropped = [p for p in playing if ts["players"][str(p)]["status"] != "active"
                   or ts["players"][str(p)]["timeouts"] > limit]
        ranked.append([p for p in playing if p not in dropped])
        out.append({"tournament": div["tournament"], "ranked": ranked[-1], "dropped": dropped,
                    "ranks": {str(r["player"]): r["rank"] for r in rows if r["player"] in mine}})
    return ranked, out


class SeasonDivision(TypedDict):
    """A division as the season_started event records it."""
    tournament: int
    players: list[int]


def _start_season(league, divisions: list[list[int]], now) -> None:
    """One tournament per division, created and started together (their first rounds' games
    in one batch); one email per player, the league's (not the round's as well)."""
    s = league.state
    cfg = s["config"]
    number = len(s["seasons"]) + 1
    users = get_user_model().objects.in_bulk([p for d in divisions for p in d])
    specs = []
    for i, players in enumerate(divisions, start=1):
        # The season's days split over the division's rounds, as the tournament will count them.
        rounds = cfg["rounds"] or pairing.swiss_rounds(len(players), cfg["sizes"])
        if cfg["format"] == "round_robin":
            rounds = len(players) - 1 if len(players) % 2 == 0 else len(players)
        # A tournament needs an organiser: the league's, or (account gone) the division's first player.
        specs.append(dict(
            organiser=league.organiser or users[players[0]], name=f"{league.name[:56]} · S{number} D{i}", kind=league.kind,
            format=cfg["format"], options=s["options"], rounds=cfg["rounds"] if cfg["format"] == "swiss" else None,
            table_size=cfg["table_size"], points=cfg["points"], clock=cfg["clock"],
            round_days=max(tournaments.MIN_ROUND_DAYS, cfg["season_days"] / max(1, rounds)), rated=cfg["rated"], max_timeouts=cfg["drop_limit"] + 1))
    made = tournaments.create_and_start(specs, [[users[p] for p in players] for players in divisions], mail=False)
    out: list[SeasonDivision] = [{"tournament": t.pk, "players": list(players)} for t, players in zip(made, divisions)]
    ends = now + timedelta(days=cfg["season_days"])
    _append(league, "season_started", {"number": number, "starts_at": now.isoformat(), "ends_at": ends.isoformat(),
                                       "divisions": out})
    league.status, league.season = League.RUNNING, number
    _save(league)
    Division.objects.bulk_create([Division(tournament_id=d["tournament"], league=league, season=number, number=i)
                                  for i, d in enumerate(out, start=1)])
    Placement.objects.bulk_create([Placement(league=league, user_id=p, season=number, division=i)
                                   for i, d in enumerate(out, start=1) for p in d["players"]])
    emails.season_started(league, number)


def roll_over(lid, now=None) -> str:
    """Start the first season when its time came, or, when every division of the current
    season has finished, close it (moves up, down and out) and start the next."""
    now = now or timezone.now()
    with transaction.atomic():
        league = _locked(lid)
        s = league.state
        cfg = s["config"]
        season = stream.current(s)
        if season and season["status"] == "running":
            if Tournament.objects.filter(pk__in=[d["tournament"] for d in season["divisions"]],
                                         status__in=[Tournament.OPEN, Tournament.RUNNING]).exists():
                return "playing"
            ranked, finals = _finish_season(league, season)
            newcomers = stream.waiting(s)
            ratings = _ratings(league, [p for r in ranked for p in r] + newcomers) if cfg["placement"] == "rating" else None
            mv, divisions = stream.next_divisions(s, ranked, newcomers, smallest=cfg["smallest"], ratings=ratings)
            _append(league, "season_finished", {"number": season["number"], "ended_at": timezone.now().isoformat(),
                                                "divisions": [dict(f, up=m["up"], down=m["down"]) for f, m in zip(finals, mv)]})
            _placements(league, season["number"])
        else:
            if league.starts_at and league.starts_at > now:
                return "not-yet"
            # The first season, or a league that was too small to go on: everyone still in it.
            members = [m for m in s["members"].values() if m["status"] == stream.PLAYING]
            players = [m["id"] for m in sorted(members, key=lambda m: m["division"] or 0)] + stream.waiting(s)
            divisions = stream.first_divisions(s, players, smallest=cfg["smallest"], ratings=_ratings(league, players))
        if not divisions:  # too few players: the next sweep after enough sign-ups starts it
            league.status = League.OPEN
            _save(league)
            return "too-few"
        _start_season(league, divisions, timezone.now())  # the same clock as its tournaments
    return "started"


def _placements(league, number):
    rows = {(p.user_id): p for p in Placement.objects.filter(league=league, season=number)}
    for row in stream.path_of_season(league.state, number):
        p = rows.get(row["player"])
        if p:
            p.rank, p.move = row["rank"], row["move"]
    Placement.objects.bulk_create(list(rows.values()), update_conflicts=True, unique_fields=["id"],
                                  update_fields=["rank", "move"])


def sweep(now=None) -> int:
    """Beat: leagues whose first season is due, and running leagues none of whose current
    divisions is still playing. One query finds them all."""
    now = now or timezone.now()
    playing = Division.objects.filter(league=OuterRef("pk"), season=OuterRef("season"),
                                      tournament__status__in=[Tournament.OPEN, Tournament.RUNNING])
    due = League.objects.filter(Q(status=League.OPEN, starts_at__lte=now) | Q(status=League.RUNNING, season__gt=0)) \
        .exclude(Q(status=League.RUNNING) & Exists(playing))
    done = 0
    for lid in due.values_list("pk", flat=True)[:100]:
        try:
            if roll_over(lid, now=now) == "started":
                done += 1
        except Exception:  # one broken league must not stop the others
            log.exception("rolling over league %s failed", lid)
    return done
