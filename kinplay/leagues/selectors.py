"""Reads of leagues: the league table (current divisions with standings and zones), each
season's divisions with their moves, a player's path; the API's <league> and <season>."""

from __future__ import annotations

from kinplay.leagues import stream
from kinplay.leagues.models import League, LeagueEvent, Placement
from kinplay.tournaments import selectors as tselectors
from kinplay.tournaments import stream as tstream
from kinplay.tournaments.models import Tournament
from kinplay.tournaments.selectors import load


def leagues():
    return League.objects.select_related("organiser").order_by("-created_at")


def _names(s) -> dict:
    return {int(k): m["name"] for k, m in s["members"].items()}


def _zone(s, season, division, count, rank_index) -> str | None:
    """The promotion zone (top of every division but the first) and relegation zone (bottom
    of every division but the last), as the next roll-over will apply them."""
    cfg = s["config"]
    if division > 1 and rank_index < cfg["promote"]:
        return "up"
    if division < len(season["divisions"]) and rank_index >= count - cfg["relegate"]:
        return "down"
    return None


def table(league: League) -> list[dict]:
    """The current season's divisions with their standings and zones (live)."""
    s = league.state
    season = stream.current(s)
    if not season:
        return []
    ts = {t.pk: t for t in Tournament.objects.filter(pk__in=[d["tournament"] for d in season["divisions"]])}
    out = []
    for i, div in enumerate(season["divisions"], start=1):
        t = ts[div["tournament"]]
        rows = tstream.standings(load(t)) if div["players"] else []
        ranked = [r for r in rows if r["status"] == "active"]
        standings = []
        for r in rows:
            idx = ranked.index(r) if r in ranked else None
            zone = _zone(s, season, i, len(ranked), idx) if idx is not None and season["status"] == "running" else None
            standings.append({"rank": r["rank"], "player": r["name"], "status": r["status"],
                              "out": tselectors.out_text(r["why_out"]), "points": r["points"],
                              "played": r["played"], "zone": zone})
        out.append({"number": i, "tournament": t.pk, "status": t.status, "standings": standings})
    return out


def ended_at(league: League) -> dict[int, str]:
    """When each finished season actually ended (its roll-over), by number: its event says
    so; a stream older than that says it by the event's time (one query, only then)."""
    seasons = [x for x in league.state.get("seasons", []) if x["status"] == "finished"]
    out = {x["number"]: x["ended_at"] for x in seasons if x.get("ended_at")}
    if len(out) < len(seasons):
        for data, at in LeagueEvent.objects.filter(league=league, type="season_finished").values_list("data", "at"):
            out.setdefault(data["number"], at.isoformat())
    return out


def season_for(league: League, number: int, ended: dict | None = None) -> dict | None:
    """<season>: its divisions, players and (once finished) final order, moves and end
    (``ended``: ``ended_at``, when the caller has it)."""
    if not 1 <= number <= len(league.state.get("seasons", [])):
        return None
    return _season(league, number, ended_at(league) if ended is None else ended)


def _season(league: League, number: int, ended: dict) -> dict:
    """The <season> of a season the league has had."""
    s = league.state
    season = s["seasons"][number - 1]
    names = _names(s)
    rows = stream.path_of_season(s, number)
    divisions = []
    for i, div in enumerate(season["divisions"], start=1):
        mine = sorted((r for r in rows if r["division"] == i), key=lambda r: (r["rank"] is None, r["rank"] or 0))
        divisions.append({"number": i, "tournament": div["tournament"],
                          "players": [{"player": names[r["player"]], "rank": r["rank"], "move": r["move"]} for r in mine]})
    return {"number": number, "status": season["status"], "starts_at": season["starts_at"], "ends_at": season["ends_at"],
            "ended_at": ended.get(number), "divisions": divisions}


def history(league: League) -> list[dict]:
    """Division history: every season, newest first."""
    ended = ended_at(league)
    return [_season(league, n, ended) for n in range(len(league.state.get("seasons", [])), 0, -1)]


def path_of(league: League, player_id: int) -> list[dict]:
    return stream.path_of(league.state, player_id)


def summary(league: League, user=None) -> dict:
    s = league.state
    season = stream.current(s)
    members = [m for m in s["members"].values() if m["status"] in (stream.WAITING, stream.PLAYING)]
    return {
        "id": league.pk, "name": league.name, "kind": league.kind, "status": league.status, "season": league.season,
        "players": len(members), "divisions": len(season["divisions"]) if season else 0,
        "signed_up": bool(user is not None and user.is_authenticated and stream.in_league(s, user.pk)),
    }


def league_for(league: League, user=None) -> dict:
    """The API's <league>."""
    s = league.state
    names = _names(s)
    ended = ended_at(league)
    cfg = {k: v for k, v in s["config"].items() if k not in ("smallest", "sizes")}
    return {
        **summary(league, user), "options": s["options"], "settings": cfg,
        "organiser": league.organiser.username if league.organiser else None,
        "starts_at": league.starts_at.isoformat() if league.starts_at else None,
        "next_season": [names[p] for p in stream.waiting(s)],
        "table": table(league),
        "seasons": [{"number": x["number"], "status": x["status"], "starts_at": x["starts_at"], "ends_at": x["ends_at"],
                     "ended_at": ended.get(x["number"]), "divisions": len(x["divisions"])} for x in s["seasons"]],
    }


def leagues_of(user) -> list[dict]:
    """A player's league history for their player page: per league, each season's division,
    rank and move (one indexed read)."""
    out: dict[int, dict] = {}
    for p in Placement.objects.filter(user=user).select_related("league").order_by("league_id", "season"):
        entry = out.setdefault(p.league_id, {"league": p.league, "seasons": []})
        entry["seasons"].append({"season": p.season, "division": p.division, "rank": p.rank, "move": p.move})
    return list(out.values())
