"""A tournament's history folded into its state, and the standings and bracket derived from it.

Pure (no Django): the same fold serves the live projection, ``rebuild_projections`` and
``verify_tournament``, so they cannot disagree. Players are user ids (JSON keys: their text).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from fractions import Fraction
from typing import TypedDict

from kinplay.tournaments import pairing

OPEN, RUNNING, FINISHED, CANCELLED = "open", "running", "finished", "cancelled"


def fold(events) -> dict:
    state: dict = {}
    for e in events:
        state = evolve(state, e["type"], e["data"])
    return state


def evolve(state: dict, type_: str, d: dict) -> dict:
    if type_ == "created":
        return {
            "name": d["name"], "kind": d["kind"], "options": d["options"], "format": d["format"],
            "config": d["config"], "organiser": d["organiser"], "seed_sha256": d["seed_sha256"],
            "seed": None, "status": OPEN, "players": {}, "order": [], "seeds": [], "rounds": [],
            "total_rounds": None, "winner": None, "reason": "",
        }
    s = state
    if type_ == "joined":
        back = str(d["player"]) in s["players"]  # left while registration was open, and came back
        s["players"][str(d["player"])] = {"id": d["player"], "name": d["name"], "rating": d.get("rating"),
                                          "status": "active", "timeouts": 0, "withdrawn": None}
        if not back:
            s["order"].append(d["player"])
        if "round" in d:  # joined a running Swiss: plays from that round, with these points
            s["players"][str(d["player"])]["late"] = {"round": d["round"], "points": d.get("points", 0)}
    elif type_ == "withdrawn":
        p = s["players"][str(d["player"])]
        p["status"], p["withdrawn"] = "withdrawn", {"round": len(s["rounds"]), "reason": d.get("reason", "")}
    elif type_ == "started":
        s["status"], s["seeds"], s["total_rounds"] = RUNNING, list(d["seeds"]), d.get("rounds")
        if "lots" in d:  # the drawing of lots, the last tiebreak (streams before it: the seeding)
            s["lots"] = list(d["lots"])
    elif type_ == "round_started":
        s["rounds"].append({
            "number": d["number"], "status": "running", "starts_at": d.get("starts_at"), "ends_at": d.get("ends_at"),
            "tables": [{"players": list(t["players"]), "bye": t["bye"],
                        "games": [dict(g, ranks=None, adjudicated=False) for g in t.get("games", [])]}
                       for t in d["tables"]],
        })
    elif type_ == "game_added":
        s["rounds"][d["round"] - 1]["tables"][d["table"]]["games"].append(
            {"game": d["game"], "players": list(d["players"]), "ranks": None, "adjudicated": False})
    elif type_ in ("game_finished", "game_adjudicated"):
        g = _game(s, d)
        if type_ == "game_finished":
            if not g.get("double_forfeit"):  # a double forfeit's result is the tournament's, not the game's
                g["ranks"] = list(d["ranks"])
            for p in d.get("timeouts", []):
                s["players"][str(p)]["timeouts"] += 1
        else:
            g["adjudicated"] = True
            g["forfeited"] = list(d.get("forfeited", []))
            for p in d.get("timed_out", []):  # who held the turn: a timeout (streams before it: none)
                s["players"][str(p)]["timeouts"] += 1
            if d.get("double_forfeit"):  # nobody moved: everybody at the table loses
                g["double_forfeit"] = True
                g["ranks"] = [len(g["players"])] * len(g["players"])
    elif type_ == "result_corrected":  # the organiser's correction: the game's result as counted
        g = _game(s, d)
        g["ranks"], g["corrected"] = list(d["ranks"]), {"reason": d["reason"], "before": d["before"]}
        g.pop("double_forfeit", None)
        s.setdefault("corrections", []).append(
            {k: d[k] for k in ("round", "table", "game", "ranks", "before", "reason", "by")})
    elif type_ == "pairing_corrected":  # the organiser swapped two players before their games began
        tables = s["rounds"][d["round"] - 1]["tables"]
        for x in d["tables"]:
            tb = tables[x["table"]]
            tb["players"] = list(x["players"])
            tb["games"] = [] if x["game"] is None else [
                {"game": x["game"], "players": list(x["players"]), "ranks": None, "adjudicated": False}]
        s.setdefault("pairing_corrections", []).append(
            {"round": d["round"], "players": list(d["players"]), "tables": [x["table"] for x in d["tables"]],
             "reason": d["reason"], "by": d["by"]})
    elif type_ == "round_finished":
        s["rounds"][d["number"] - 1]["status"] = "finished"
    elif type_ == "finished":
        s["status"], s["seed"], s["winner"] = FINISHED, d.get("seed"), d.get("winner")
    elif type_ == "cancelled":
        s["status"], s["reason"] = CANCELLED, d.get("reason", "")
        if d.get("seed"):
            s["seed"] = d["seed"]
        friendly = set(d.get("friendly", ()))  # games that went on unrated (services.cancel)
        for r in s["rounds"]:
            if r["status"] == "running":
                r["status"] = CANCELLED
            for t in r["tables"]:
                for g in t["games"]:
                    if g["game"] in friendly:
                        g["friendly"] = True
    return s


def _game(s, d):
    table = s["rounds"][d["round"] - 1]["tables"][d["table"]]
    return next(g for g in table["games"] if g["game"] == d["game"])


# ---------------------------------------------------------------- reading the state


def active(s) -> list[int]:
    return [p for p in s["order"] if s["players"][str(p)]["status"] == "active"]


def field(s) -> list[int]:
    """The players who take part: those in it now and those who withdrew once it had started.
    Who left while registration was open never played: in no standings, counted nowhere."""
    return [p for p in s["order"] if s["players"][str(p)]["status"] == "active"
            or (s["players"][str(p)]["withdrawn"] or {}).get("round", 0) > 0]


def history(s) -> list[list[dict]]:
    """The rounds as pairing sees them (tables and byes), with the points each player scored
    at the table (None while its game runs): the Dutch system's floats need them."""
    return [[{"players": t["players"], "bye": t["bye"], "points": table_points(s, t)} for t in r["tables"]]
            for r in s["rounds"]]


def table_points(s, table) -> list | None:
    """The points each player of a table scored, as the standings count them."""
    if table["bye"]:
        return [bye_points(s)] * len(table["players"])
    game = table["games"][-1] if table["games"] else None
    if game is None or game["ranks"] is None:
        return None
    return rank_points(game["ranks"], s["config"].get("points"))


def table_done(s, table) -> bool:
    """A bye, a finished game, or (knockout) a decided match."""
    if table["bye"]:
        return True
    if s["format"] == "knockout" and len(table["players"]) == 2:
        if all(s["players"][str(p)]["status"] != "active" for p in table["players"]):
            return all(g["ranks"] is not None for g in table["games"])  # both withdrew: nobody goes through
        return match_winner(s, table) is not None
    return bool(table["games"]) and all(g["ranks"] is not None for g in table["games"])


def round_done(s, rnd) -> bool:
    return all(table_done(s, t) for t in rnd["tables"])


def match_winner(s, table):
    """The knockout match's winner; a player who withdrew loses a match not yet decided."""
    win = pairing.match_winner(table["games"], s["config"].get("best_of", 1))
    if win is not None:
        return win
    gone = [p for p in table["players"] if s["players"][str(p)]["status"] != "active"]
    if len(gone) == 1 and all(g["ranks"] is not None for g in table["games"]):
        return next(p for p in table["players"] if p not in gone)
    return None


def advancers(s, table) -> list[int]:
    """Who goes through from a knockout table."""
    if table["bye"]:
        return list(table["players"])
    if len(table["players"]) == 2 and s["config"]["sizes"] == [2]:
        w = match_winner(s, table)
        return [] if w is None else [w]
    g = table["games"][-1]
    seed = {p: i for i, p in enumerate(s["seeds"])}
    placed = sorted(zip(g["ranks"], g["players"]), key=lambda rp: (rp[0], seed.get(rp[1], 0)))
    alive = [p for _, p in placed if s["players"][str(p)]["status"] == "active"]
    return alive[:s["config"].get("advance", 1)]


# ---------------------------------------------------------------- points and standings


def rank_points(ranks: list[int], table_points: list | None) -> list[Fraction]:
    """Points per seat from finishing ranks (1 is best); tied seats share the points of the
    places they cover. ``table_points`` is the organiser's list (best place first); without
    one, a table of k gives k-1 … 0 (a duel: 1, ½, 0)."""
    k = len(ranks)
    vec = list(table_points or range(k - 1, -1, -1))[:k]
    vec += [0] * (k - len(vec))
    order = sorted(range(k), key=lambda i: ranks[i])
    out = [Fraction(0)] * k
    i = 0
    while i < k:
        j = i
        while j + 1 < k and ranks[order[j + 1]] == ranks[order[i]]:
            j += 1
        share = Fraction(sum(vec[i:j + 1]), j - i + 1)
        for m in range(i, j + 1):
            out[order[m]] = share
        i = j + 1
    return out


def bye_points(s) -> Fraction:
    """The organiser's ``bye_points``; by default a duel's bye is worth a win (FIDE), a
    multiplayer bye the average of a full table's places."""
    if s["config"].get("bye_points") is not None:
        return Fraction(s["config"]["bye_points"])
    if s["config"]["sizes"] == [2]:
        return Fraction(max(s["config"].get("points") or [1]))
    k = max(s["config"]["sizes"])
    pts = rank_points(list(range(1, k + 1)), s["config"].get("points"))
    return sum(pts, Fraction(0)) / k


def lots(s) -> dict[int, int]:
    """Each player's number in the drawing of lots (1 wins it): drawn at the start, shown as the
    last tiebreak. Streams from before the drawing: the seeding, which ordered them then."""
    drawn = s.get("lots") or s["seeds"] or s["order"]
    out = {p: i for i, p in enumerate(drawn, start=1)}
    for p in s["order"]:
        out.setdefault(p, len(out) + 1)
    return out


def unplayed_rounds(s) -> Counter[int]:
    """Per player, the finished rounds in which they had no game with a result (a bye, a round
    after withdrawing): FIDE's virtual opponent stands in for each in Buchholz."""
    out: Counter[int] = Counter()
    ids = field(s)
    for rnd in s["rounds"]:
        if rnd["status"] != "finished":
            continue
        played = {p for t in rnd["tables"] if not t["bye"] for g in t["games"]
                  if g["ranks"] is not None and not g.get("double_forfeit") for p in g["players"]}
        for p in ids:
            if p not in played:
                out[p] += 1
    return out


def _num(x):
    x = Fraction(x)
    return int(x) if x.denominator == 1 else round(float(x), 3)


class _Row(TypedDict):
    """A player's line while the standings are worked out (exact points, before rounding)."""

    player: int
    points: Fraction
    played: int
    byes: int
    tiebreaks: dict[str, Fraction | int]


def standings(s) -> list[dict]:
    """Every player who takes part (``field``), best first, with points, games, byes and tiebreak values."""
    ids = field(s)
    if not ids:
        return []
    duel = s["config"]["sizes"] == [2]
    points = {p: Fraction((s["players"][str(p)].get("late") or {}).get("points", 0)) for p in ids}
    played: Counter[int] = Counter()
    byes_: Counter[int] = Counter()
    wins: Counter[int] = Counter()
    rank_sum: Counter[int] = Counter()
    # per player: [(opponents, my game points)] for the tiebreaks
    games_of = defaultdict(list)
    bye_pts = bye_points(s)
    for rnd in s["rounds"]:
        for t in rnd["tables"]:
            if t["bye"]:
                for p in t["players"]:
                    points[p] += bye_pts
                    byes_[p] += 1
                continue
            for g in t["games"]:
                if g["ranks"] is None or g.get("double_forfeit"):  # a double forfeit: no points, not played
                    continue
                pts = rank_points(g["ranks"], s["config"].get("points"))
                best = min(g["ranks"])
                for i, p in enumerate(g["players"]):
                    points[p] += pts[i]
                    played[p] += 1
                    rank_sum[p] += g["ranks"][i]
                    if g["ranks"][i] == best and g["ranks"].count(best) == 1:
                        wins[p] += 1
                    games_of[p].append(([q for q in g["players"] if q != p], pts[i], len(g["players"])))
    rows: list[_Row] = []
    lot = lots(s)
    unplayed = unplayed_rounds(s) if duel else Counter()
    for p in ids:
        tb: dict[str, Fraction | int] = {}
        if duel:
            # FIDE C.07: each unplayed round counts a virtual opponent with the player's own points.
            opp = [points[o[0]] for o, _, _ in games_of[p]] + [points[p]] * unplayed[p]
            bh = sum(opp, Fraction(0))
            tb["buchholz"] = bh
            tb["median_buchholz"] = bh - max(opp) - min(opp) if len(opp) >= 3 else bh
            tb["sonneborn_berger"] = sum((points[o[0]] * mine for o, mine, _ in games_of[p]), Fraction(0))
            tb["wins"] = wins[p]
        else:
            tb["opponents_points"] = sum((sum((points[q] for q in o), Fraction(0)) for o, _, _ in games_of[p]), Fraction(0))
            tb["average_rank"] = Fraction(rank_sum[p], played[p]) if played[p] else Fraction(0)
            tb["wins"] = wins[p]
        tb["lot"] = lot[p]
        rows.append({"player": p, "points": points[p], "played": played[p], "byes": byes_[p], "tiebreaks": tb})
    keys: tuple[str, ...]
    if s["format"] == "round_robin":
        keys = ("direct", "sonneborn_berger", "wins", "lot")
    elif duel:
        keys = ("buchholz", "median_buchholz", "sonneborn_berger", "direct", "wins", "lot")
    else:
        keys = ("opponents_points", "average_rank", "wins", "lot")
    if duel:
        # Direct encounter (FIDE): the games among the players still level when it is reached, on
        # points and on every tiebreak before it; not among everyone level on points alone.
        before = keys[:keys.index("direct")]
        level = defaultdict(list)
        for r in rows:
            level[(r["points"], *(r["tiebreaks"][k] for k in before))].append(r)
        for group in level.values():
            members = {r["player"] for r in group}
            for r in group:
                r["tiebreaks"]["direct"] = sum((mine for o, mine, _ in games_of[r["player"]] if o[0] in members), Fraction(0))
    sign = {"average_rank": 1, "lot": 1}

    def key(r):
        return (-r["points"],) + tuple(sign.get(k, -1) * r["tiebreaks"][k] for k in keys)

    if s["format"] == "knockout":
        reached = knockout_reached(s)
        far = {p: (-rd, place) for p, (rd, place) in reached.items()}
        rows.sort(key=lambda r: (far.get(r["player"], (0, 0)), key(r)))
        sort_key = lambda r: far.get(r["player"], (0, 0))  # noqa: E731
        for r in rows:
            rd, place = reached.get(r["player"], (0, 0))
            r["tiebreaks"].update(round_reached=rd, place_there=place)
        shown = ("round_reached", "place_there", *keys)
    else:
        rows.sort(key=key)
        sort_key, shown = key, keys
    out, prev, rank = [], None, 0
    for i, r in enumerate(rows, start=1):
        k = sort_key(r)
        if k != prev:
            rank, prev = i, k
        out.append({
            "rank": rank, "player": r["player"], "name": s["players"][str(r["player"])]["name"],
            "status": s["players"][str(r["player"])]["status"], "points": _num(r["points"]),
            "why_out": why_out(s["players"][str(r["player"])]),
            "played": r["played"], "byes": r["byes"],
            "tiebreaks": {k: _num(r["tiebreaks"][k]) for k in shown},  # the ones used, in order of use
        })
    return out


def why_out(p) -> str | None:
    """A withdrawn player's reason ("asked", "timeouts", "left the league"); None while they play."""
    return None if p["status"] == "active" else (p["withdrawn"] or {}).get("reason") or "asked"


def knockout_reached(s) -> dict:
    """How far each player got: the last round they played (the winner one more), and their
    finishing place in that round's last game (to order players out in the same round)."""
    reached = {}
    for rnd in s["rounds"]:
        for t in rnd["tables"]:
            last = t["games"][-1] if t["games"] else None
            for i, p in enumerate(t["players"]):
                place = 0
                if last and last["ranks"] is not None and p in last["players"]:
                    place = last["ranks"][last["players"].index(p)]
                reached[p] = (rnd["number"], place)
    if s.get("winner") is not None:
        reached[s["winner"]] = (len(s["rounds"]) + 1, 0)
    return reached


def crosstable(s) -> dict:
    """Round robin: for each pair, the points the row player scored against the column (the
    organiser's ``points`` too, as the standings count them)."""
    cells = defaultdict(list)
    for rnd in s["rounds"]:
        for t in rnd["tables"]:
            for g in t["games"]:
                if g["ranks"] is None or len(g["players"]) != 2 or g.get("double_forfeit"):
                    continue
                pts = rank_points(g["ranks"], s["config"].get("points"))
                a, b = g["players"]
                cells[(a, b)].append(_num(pts[0]))
                cells[(b, a)].append(_num(pts[1]))
    return cells


def bracket(s) -> list[list[dict]]:
    """Knockout: each round's matches with their players, games and who went through."""
    out = []
    for rnd in s["rounds"]:
        out.append([{
            "players": list(t["players"]), "bye": t["bye"], "games": [g["game"] for g in t["games"]],
            "through": advancers(s, t) if table_done(s, t) else [],
        } for t in rnd["tables"]])
    return out
