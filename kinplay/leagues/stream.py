"""A league's history folded into its state, and the next season's divisions planned from it.

Pure (no Django): the live read model, ``rebuild_projections`` and the tests use the same fold.
Players are user ids (JSON keys: their text). Division 1 is the top division.
"""

from __future__ import annotations

WAITING, PLAYING, LEFT, DROPPED = "waiting", "playing", "left", "dropped"


def fold(events) -> dict:
    state: dict = {}
    for e in events:
        state = evolve(state, e["type"], e["data"])
    return state


def evolve(state: dict, type_: str, d: dict) -> dict:
    if type_ == "created":
        return {"name": d["name"], "kind": d["kind"], "options": d["options"], "config": d["config"],
                "organiser": d["organiser"], "members": {}, "seasons": []}
    s = state
    if type_ == "signed_up":
        s["members"][str(d["player"])] = {"id": d["player"], "name": d["name"], "status": WAITING,
                                          "division": None, "since": d.get("order", len(s["members"]))}
    elif type_ == "left":
        m = s["members"][str(d["player"])]
        m["status"], m["division"] = LEFT, None
    elif type_ == "season_started":
        s["seasons"].append({"number": d["number"], "starts_at": d["starts_at"], "ends_at": d["ends_at"],
                             "status": "running", "divisions": [dict(x, players=list(x["players"])) for x in d["divisions"]],
                             "moves": None})
        for i, div in enumerate(d["divisions"], start=1):
            for p in div["players"]:
                m = s["members"][str(p)]
                m["status"], m["division"] = PLAYING, i
    elif type_ == "season_finished":
        season = s["seasons"][d["number"] - 1]
        season["status"], season["moves"] = "finished", d["divisions"]
        season["ended_at"] = d.get("ended_at")  # older streams: the event's time (selectors.ended_at)
        for i, div in enumerate(d["divisions"], start=1):
            for p in div["dropped"]:
                m = s["members"][str(p)]
                m["status"], m["division"] = DROPPED, None
    return s


def current(s) -> dict | None:
    return s["seasons"][-1] if s.get("seasons") else None


def waiting(s) -> list[int]:
    """Sign-ups for the next season, in the order they signed up."""
    ms = [m for m in s["members"].values() if m["status"] == WAITING]
    return [m["id"] for m in sorted(ms, key=lambda m: m["since"])]


def in_league(s, player) -> bool:
    m = s["members"].get(str(player))
    return bool(m) and m["status"] in (WAITING, PLAYING)


# ---------------------------------------------------------------- the next season


def division_sizes(n: int, size: int, smallest: int) -> list[int]:
    """Divisions of ``size`` from the top; a rest of at least half a division (and at least
    ``smallest``) is the bottom division, a smaller rest is spread one each over the lowest
    divisions (14 players in sixes: 7 and 7, never 6, 6 and 2)."""
    k, r = divmod(n, size)
    if k == 0:
        return [n] if n >= smallest else []
    sizes = [size] * k
    if r >= max(smallest, (size + 1) // 2):
        return sizes + [r]
    for j in range(r):
        sizes[k - 1 - (j % k)] += 1
    return sizes


def moves(ranked: list[list[int]], promote: int, relegate: int) -> list[dict]:
    """Per division (top first, each ranked best first without dropped players): who goes up
    and who goes down. The top division promotes nobody, the bottom relegates nobody."""
    out = []
    last = len(ranked) - 1
    for i, players in enumerate(ranked):
        up = players[:promote] if i > 0 else []
        rest = [p for p in players if p not in up]
        down = rest[len(rest) - relegate:] if i < last and relegate else []
        out.append({"up": up, "down": down, "stay": [p for p in rest if p not in down]})
    return out


def plan_divisions(tiers: list[dict], sizes: list[int]) -> list[list[int]]:
    """Cut the tiers (each ``{"stay": [...], "arrivals": [...]}``, top first) into divisions of
    ``sizes``. A tier short of its size takes the best stayer of the next tier down (a stayer,
    not a player who just moved, so promotions and relegations hold); a tier over its size sends
    its lowest stayer down. Whatever is left below the last division joins it."""
    tiers = [{"stay": list(t["stay"]), "arrivals": list(t["arrivals"])} for t in tiers]
    while len(tiers) < len(sizes):
        tiers.append({"stay": [], "arrivals": []})
    out = []
    for i, want in enumerate(sizes):
        t = tiers[i]
        if i == len(sizes) - 1:
            for below in tiers[i + 1:]:
                t["stay"] += below["stay"]
                t["arrivals"] += below["arrivals"]
        while len(t["stay"]) + len(t["arrivals"]) < want:
            src = next((b for b in tiers[i + 1:] if b["stay"] or b["arrivals"]), None)
            if src is None:
                break
            t["stay"].append(src["stay"].pop(0) if src["stay"] else src["arrivals"].pop(0))
        while len(t["stay"]) + len(t["arrivals"]) > want:
            p = t["stay"].pop() if t["stay"] else t["arrivals"].pop()
            tiers[i + 1]["stay"].insert(0, p)
        out.append(t["stay"] + t["arrivals"])
    return out


def next_divisions(s, ranked: list[list[int]], newcomers: list[int], *, smallest: int,
                   ratings: dict | None = None) -> tuple[list[dict], list[list[int]]]:
    """The moves of the season just played and the next season's divisions.

    ``ranked``: each division's final order (dropped and departed players removed);
    ``newcomers``: the sign-ups in order; ``ratings``: when the league places by rating, each
    player's rating (None: unrated, placed at the bottom)."""
    cfg = s["config"]
    mv = moves(ranked, cfg["promote"], cfg["relegate"])
    tiers = []
    for i in range(len(ranked)):
        arrivals = (mv[i - 1]["down"] if i > 0 else []) + (mv[i + 1]["up"] if i + 1 < len(ranked) else [])
        tiers.append({"stay": list(mv[i]["stay"]), "arrivals": arrivals})
    bottom = list(newcomers)
    if ratings is not None and cfg.get("placement") == "rating" and tiers:
        # A rated newcomer joins the highest division whose players' average rating they reach.
        avg = []
        for t in tiers:
            rs = [ratings[p] for p in t["stay"] + t["arrivals"] if ratings.get(p) is not None]
            avg.append(sum(rs) / len(rs) if rs else None)
        bottom = []
        for p in sorted(newcomers, key=lambda p: -(ratings.get(p) or float("-inf"))):
            r = ratings.get(p)
            reached = next((i for i, a in enumerate(avg) if r is not None and a is not None and r >= a), None)
            (tiers[reached]["arrivals"] if reached is not None else bottom).append(p)
    tiers.append({"stay": bottom, "arrivals": []})
    n = sum(len(t["stay"]) + len(t["arrivals"]) for t in tiers)
    return mv, plan_divisions(tiers, division_sizes(n, cfg["division_size"], smallest))


def first_divisions(s, players: list[int], *, smallest: int, ratings: dict | None = None) -> list[list[int]]:
    """Season 1: strongest first by rating (the unrated in sign-up order, below the rated)."""
    known = ratings or {}

    def strength(p: int) -> float:
        r = known.get(p)
        return float("-inf") if r is None else r

    order = sorted(players, key=lambda p: -strength(p))
    return plan_divisions([{"stay": order, "arrivals": []}], division_sizes(len(order), s["config"]["division_size"], smallest))


def path_of_season(s, number) -> list[dict]:
    """Every player of a finished season with their final rank and move."""
    season = s["seasons"][number - 1]
    out = []
    for i, div in enumerate(season["divisions"], start=1):
        m = season["moves"][i - 1] if season["moves"] else None
        for p in div["players"]:
            row = {"player": p, "division": i, "rank": None, "move": None}
            if m:
                if "ranks" in m:  # the division's tournament's rank, as its standings show it
                    row["rank"] = m["ranks"].get(str(p)) if p in m["ranked"] else None
                else:
                    row["rank"] = m["ranked"].index(p) + 1 if p in m["ranked"] else None
                row["move"] = ("up" if p in m["up"] else "down" if p in m["down"]
                               else "dropped" if p in m["dropped"] else "stay" if p in m["ranked"] else "left")
            out.append(row)
    return out


def path_of(s, player) -> list[dict]:
    """A player's path through the divisions: season, division, final rank and move."""
    return [dict(r, season=season["number"]) for season in s.get("seasons", [])
            for r in path_of_season(s, season["number"]) if r["player"] == player]
