"""A duel tournament as a FIDE TRF-16 file (the form bbpPairings and other pairing checkers read).

Pure (no Django): from the folded state. Pairing numbers are the seeds (1 is the strongest), white
is the first seat, and only finished rounds are written (a running round has no results yet).
A pairing-allocated bye is ``0000 - U``; a round a player took no part in (withdrawn) is
``0000 - Z``. ``XXR`` gives the planned rounds and ``XXC white1`` the initial colour; the points
of a win, draw, loss and bye are written (``BBW``/``BBD``/``BBL``/``BBU``) when they are not
1, ½, 0 and 1.
"""

from __future__ import annotations

from fractions import Fraction

from kinplay.tournaments import stream


class NotDuels(ValueError):
    """Only two-player tournaments have a TRF."""


def export(s) -> str:
    if s["config"]["sizes"] != [2]:
        raise NotDuels("A TRF holds two-player games only: this tournament seats more players at a table.")
    seeds = list(s["seeds"] or stream.field(s))  # before the start: who has joined, in order
    pn = {p: i + 1 for i, p in enumerate(seeds)}
    rounds = [r for r in s["rounds"] if r["status"] == "finished"]
    rank = {r["player"]: r["rank"] for r in stream.standings(s)}
    cells: dict[int, list[str]] = {p: [] for p in seeds}
    points = {p: Fraction(0) for p in seeds}
    win, draw, loss = _points(s)
    for rnd in rounds:
        for t in rnd["tables"]:
            got = stream.table_points(s, t) or [Fraction(0)] * len(t["players"])
            for i, p in enumerate(t["players"]):
                points[p] += Fraction(got[i])
                if t["bye"] or len(t["players"]) < 2:
                    cells[p].append("0000 - U")
                    continue
                opp = t["players"][1 - i]
                res = "1" if got[i] == win and got[i] != got[1 - i] else "0" if got[i] == loss and got[i] != got[1 - i] else "="
                cells[p].append(f"{pn[opp]:4d} {'w' if i == 0 else 'b'} {res}")
        for p in seeds:
            if not _in_round(p, rnd):
                cells[p].append("0000 - Z")
    lines = [f"012 {_clean(s['name'])[:80]}", f"062 {len(seeds)}"]
    if s["format"] == "swiss":
        lines.append("092 FIDE_DUTCH_2025")
    if s.get("total_rounds"):
        lines.append(f"XXR {s['total_rounds']}")
    lines.append("XXC white1")
    bye = stream.bye_points(s)
    for code, value, usual in (("BBW", win, 1), ("BBD", draw, Fraction(1, 2)), ("BBL", loss, 0), ("BBU", bye, win)):
        if value != usual or (code == "BBU" and value != 1):
            lines.append(f"{code} {float(value):4.1f}")
    for p in seeds:
        who = s["players"][str(p)]
        rating = who.get("rating")
        head = (f"001 {pn[p]:4d}      {_clean(who['name'])[:33]:<33} {min(9999, max(0, round(rating or 0))):4d}"
                f" {'':3} {'':11} {'':10} {float(points[p]):4.1f} {rank.get(p, pn[p]):4d}")
        lines.append(head + "".join(f"  {c}" for c in cells[p]))
    return "\n".join(lines) + "\n"


def _in_round(p, rnd) -> bool:
    return any(p in t["players"] for t in rnd["tables"])


def _points(s) -> tuple[Fraction, Fraction, Fraction]:
    """Points of a win, a draw and a loss in a duel, as the standings count them."""
    won = stream.rank_points([1, 2], s["config"].get("points"))
    drawn = stream.rank_points([1, 1], s["config"].get("points"))
    return won[0], drawn[0], won[1]


def _clean(text: str) -> str:
    return " ".join(str(text).split())
