"""Reads of tournaments: the API's <tournament>, lists, and what the pages show."""

from __future__ import annotations

from datetime import datetime

from games.models import Game
from kinplay.tournaments import plan, stream, trf
from kinplay.tournaments.models import Tournament, TournamentEvent, TournamentGame

# Why a player is out (a "withdrawn" event's reason), as the standings say it.
OUT = {"asked": "withdrew", "timeouts": "out: ran out of time too often", "left the league": "left the league"}


def out_text(why: str | None) -> str | None:
    return None if why is None else OUT.get(why, "withdrew")


def load(t: Tournament) -> dict:
    """The state with every event folded in (the row may lag a game-over or two)."""
    state = t.state
    if t.state_version < t.version:
        for type_, data in TournamentEvent.objects.filter(tournament=t, seq__gt=t.state_version).order_by("seq").values_list("type", "data"):
            state = stream.evolve(state, type_, data)
        t.state, t.state_version = state, t.version
    return state


def state_of(t: Tournament) -> dict:
    return load(t)


def standings(s) -> list[dict]:
    return stream.standings(s) if s.get("order") else []


def tournaments(status=None):
    qs = Tournament.objects.order_by("-created_at")
    if status:
        qs = qs.filter(status=status)
    return qs


def summary(t: Tournament, user=None) -> dict:
    s = t.state
    mine = user is not None and user.is_authenticated and str(user.pk) in s.get("players", {}) \
        and s["players"][str(user.pk)]["status"] == "active"
    return {
        "id": t.pk, "name": t.name, "kind": t.kind, "format": t.format, "status": t.status,
        "players": len(stream.field(s)) if s else 0, "max_players": s.get("config", {}).get("max_players"),
        "round": len(s.get("rounds", [])), "rounds": s.get("total_rounds"), "joined": mine,
        "starts_at": t.starts_at.isoformat() if t.starts_at else None,
    }


def _warns_at(t: Tournament, r: dict) -> str | None:
    """When the running round's players whose game still runs are (or were) emailed that it ends
    (kinplay.tournaments.plan.warning_at); None for any other round, or one without a time limit."""
    if r["status"] != "running" or t.status != Tournament.RUNNING or not r["ends_at"]:
        return None
    return plan.warning_at(datetime.fromisoformat(r["starts_at"]), datetime.fromisoformat(r["ends_at"])).isoformat()


def tournament_for(t: Tournament, user=None) -> dict:
    """The API's <tournament> (docs/api.md#tournaments-and-leagues)."""
    s = state_of(t)
    name = lambda p: s["players"][str(p)]["name"]  # noqa: E731
    results = _results(s)
    rounds = []
    for r in s["rounds"]:
        tables = []
        for tb in r["tables"]:
            games = tb["games"]
            tables.append({
                "game": games[-1]["game"] if games else None,
                "games": [g["game"] for g in games],
                "players": [name(p) for p in tb["players"]],
                "bye": tb["bye"],
                "result": results.get(id(tb)),
            })
        rounds.append({"number": r["number"], "status": r["status"], "starts_at": r["starts_at"], "ends_at": r["ends_at"],
                       "warns_at": _warns_at(t, r), "tables": tables})
    rows = standings(s)
    seed = {p: i + 1 for i, p in enumerate(s.get("seeds") or [])}  # pairing numbers, once started
    out = {
        "id": t.pk, "name": t.name, "kind": t.kind, "options": s["options"], "format": t.format, "status": t.status,
        "organiser": t.organiser.username if t.organiser is not None else None,
        "settings": {k: v for k, v in s["config"].items() if k != "sizes"},
        "starts_at": t.starts_at.isoformat() if t.starts_at else None,
        "total_rounds": s["total_rounds"],
        "players": [{"name": p["name"], "status": p["status"], "rating": p.get("rating"), "timeouts": p["timeouts"],
                     "seed": seed.get(p["id"])} for p in (s["players"][str(i)] for i in s["order"])],
        "rounds": rounds,
        "standings": [{"rank": r["rank"], "player": r["name"], "status": r["status"], "out": out_text(r["why_out"]),
                       "points": r["points"], "played": r["played"], "byes": r["byes"], "tiebreaks": r["tiebreaks"],
                       "seed": seed.get(r["player"])} for r in rows],
        "winner": name(s["winner"]) if s.get("winner") is not None else None,
        "reason": s.get("reason", ""),
        "fairness": {"seed_sha256": t.seed_sha256, "seed": s.get("seed")},
        "corrections": [dict(c, players=[name(p) for p in s["rounds"][c["round"] - 1]["tables"][c["table"]]["players"]])
                        for c in s.get("corrections", [])],
        "pairing_corrections": [dict(c, players=[name(p) for p in c["players"]]) for c in s.get("pairing_corrections", [])],
    }
    if t.format == "knockout":
        out["bracket"] = [[{"players": [name(p) for p in m["players"]], "bye": m["bye"], "games": m["games"],
                            "through": [name(p) for p in m["through"]]} for m in rnd] for rnd in stream.bracket(s)]
    if t.format == "round_robin":
        cells = stream.crosstable(s)
        order = [r["player"] for r in rows]
        out["crosstable"] = [{"player": name(a), "results": {name(b): cells.get((a, b), []) for b in order if b != a}}
                             for a in order]
    return out


def _results(s) -> dict:
    """Each table's result as text: "alice won", "draw", "bob 1, alice 2" — or the match score."""
    out = {}
    for r in s["rounds"]:
        for tb in r["tables"]:
            if tb["bye"]:
                out[id(tb)] = "bye"
                continue
            done = [g for g in tb["games"] if g["ranks"] is not None]
            if not done:
                if any(g.get("friendly") for g in tb["games"]):
                    out[id(tb)] = "not counted: goes on as a friendly game"
                continue
            name = lambda p: s["players"][str(p)]["name"]  # noqa: E731
            if s["format"] == "knockout" and len(tb["players"]) == 2:
                w = stream.match_winner(s, tb)
                if w is not None:
                    out[id(tb)] = f"{name(w)} goes through"
                    if any(g.get("adjudicated") for g in done):
                        out[id(tb)] += " (adjudicated)"
                continue
            g = done[-1]
            if g.get("double_forfeit"):
                out[id(tb)] = "double forfeit: nobody moved before the round's time ran out"
            elif len(g["players"]) == 2:
                a, b = g["ranks"]
                out[id(tb)] = "draw" if a == b else f"{name(g['players'][0 if a < b else 1])} won"
            else:
                placed = sorted(zip(g["ranks"], g["players"]))
                out[id(tb)] = ", ".join(f"{rk}. {name(p)}" for rk, p in placed)
            if g.get("adjudicated") and not g.get("double_forfeit"):
                out[id(tb)] += " (adjudicated)"
            if g.get("corrected"):
                out[id(tb)] += f" (corrected by the organiser: {g['corrected']['reason']})"
    return out


def names_of_games(game_ids) -> dict[int, dict]:
    """For the lobby: game id -> its tournament's id, name and whether it was cancelled (its
    games then go on as friendly games: kinplay.tournaments.services.cancel)."""
    rows = TournamentGame.objects.filter(game_id__in=list(game_ids)).values_list(
        "game_id", "tournament_id", "tournament__name", "tournament__status")
    return {g: {"id": t, "name": n, "cancelled": status == Tournament.CANCELLED} for g, t, n, status in rows}


def next_game_of(s, user) -> int | None:
    if not s.get("rounds") or user is None or not user.is_authenticated:
        return None
    for tb in s["rounds"][-1]["tables"]:
        if user.pk in tb["players"] and tb["games"]:
            gid = tb["games"][-1]["game"]
            if tb["games"][-1]["ranks"] is None and Game.objects.filter(pk=gid, status=Game.ACTIVE).exists():
                return gid
    return None


def tournaments_of(user, last=20) -> list[dict]:
    """A player's tournaments for their player page, newest first: each one's status and, once
    it is over, the player's place among those who took part (stream.field). League divisions
    are on the league's page (kinplay.leagues.selectors.leagues_of)."""
    rows = (Tournament.objects.filter(games__game__seats__user=user, division__isnull=True).distinct()
            .order_by("-created_at")[:last])
    out = []
    for t in rows:
        s = state_of(t)
        place = None
        if t.status == Tournament.FINISHED:
            place = next((r["rank"] for r in standings(s) if r["player"] == user.pk), None)
        me = s["players"].get(str(user.pk)) or {}
        out.append({"t": t, "status": t.status, "place": place, "of": len(stream.field(s)),
                    "out": out_text(stream.why_out(me)) if me else None, "winner": s.get("winner") == user.pk})
    return out


def trf_of(t: Tournament) -> str:
    """The tournament as a FIDE TRF-16 file (duels only: ``trf.NotDuels`` otherwise)."""
    return trf.export(state_of(t))
