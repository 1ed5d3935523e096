"""What the next step of a tournament is, from its state and its seed: pure, so that
``verify_tournament`` can recompute every draw from the revealed seed and find the same.

Chance comes only from ``Rng(seed, context)`` (games/rng.py): "seeding" for the first draw,
"round:N" for round N.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from games.rng import Rng
from kinplay.tournaments import draw_v1, pairing, stream

# The draw's version, in a tournament's config from creation: 2 seats multiplayer Swiss by
# tables.split and round robins by FIDE's Berger tables; a config without it drew by draw_v1.
DRAW = 2


def seeding(state, seed) -> list[int]:
    """Entrants strongest first: by rating, the unrated (and equal ratings) in drawn order."""
    drawn = Rng(seed, "seeding").shuffled(stream.active(state))
    rating = {p: state["players"][str(p)].get("rating") for p in drawn}
    return sorted(drawn, key=lambda p: -(rating[p] or 0))


def lots(state, seed) -> list[int]:
    """The drawing of lots (the standings' last tiebreak): the entrants in drawn order."""
    return Rng(seed, "lots").shuffled(stream.active(state))


def total_rounds(state, n_players) -> int | None:
    cfg = state["config"]
    if state["format"] == "swiss":
        # Capped where every further round would repeat a pairing (pairing.max_rounds).
        wanted = cfg.get("rounds") or pairing.swiss_rounds(n_players, cfg["sizes"])
        return min(wanted, pairing.max_rounds(n_players, cfg["sizes"]))
    if state["format"] == "round_robin":
        per_cycle = n_players - 1 if n_players % 2 == 0 else n_players
        return per_cycle * (2 if cfg.get("double") else 1)
    return None  # knockout: until one is left


def next_round(state, seed) -> list[dict] | None:
    """The tables of the next round, or None when the tournament is over."""
    number = len(state["rounds"]) + 1
    rng = Rng(seed, f"round:{number}")
    act = stream.active(state)
    fmt, cfg = state["format"], state["config"]
    hist = stream.history(state)
    if fmt == "knockout":
        return _knockout(state, number, rng, hist)
    if state["total_rounds"] is not None and number > state["total_rounds"]:
        return None
    if len(act) < 2:
        return None
    legacy = cfg.get("draw", 1) < DRAW
    if fmt == "round_robin":
        schedule = (draw_v1.round_robin if legacy else pairing.round_robin)(state["seeds"], double=cfg.get("double", False))
        tables = []
        for t in schedule[number - 1]:
            here = [p for p in t["players"] if p in act]
            if here:
                # A withdrawn opponent: the game is not played and counts as a bye.
                tables.append({"players": here, "bye": t["bye"] or len(here) < 2})
        return tables
    rows = [r for r in stream.standings(state) if r["status"] == "active"]
    order = {p: i for i, p in enumerate(state["seeds"])}
    entrants = [{"player": r["player"], "points": r["points"], "seed": order.get(r["player"], 0)} for r in rows]
    options = {"format": "swiss", "round": number, "sizes": cfg["sizes"], "rounds": state["total_rounds"]}
    if legacy:  # drawn before the least-cost tables and the Dutch system: as it was drawn then
        if cfg["sizes"] != [2]:
            return draw_v1.swiss_tables(entrants, hist, rng, options)
        return pairing.swiss_duels(entrants, hist, rng)
    return pairing.pair(entrants, hist, rng, options)


def _knockout(state, number, rng, hist):
    cfg = state["config"]
    duel = cfg["sizes"] == [2]
    seed_of = {p: i for i, p in enumerate(state["seeds"])}
    if number == 1:
        field = [p for p in state["seeds"] if p in set(stream.active(state))]
        tables = pairing.knockout_first_round(field) if duel else pairing.knockout_tables(field, cfg["sizes"], cfg.get("advance", 1))
    else:
        last = state["rounds"][-1]["tables"]
        if not duel and len(last) == 1 and not last[0]["bye"]:
            return None  # the final table has been played
        through = [p for t in last for p in stream.advancers(state, t)]
        through = [p for p in through if state["players"][str(p)]["status"] == "active"]
        if len(through) <= 1:
            return None
        if duel:
            tables = pairing.knockout_next_round(through) if len(through) % 2 == 0 else \
                pairing.knockout_next_round(through[:-1]) + [{"players": [through[-1]], "bye": True}]
        else:
            field = sorted(through, key=lambda p: seed_of.get(p, 0))
            if len(field) <= max(cfg["sizes"]) and len(field) in cfg["sizes"]:
                tables = [{"players": field, "bye": False}]  # the final table
            elif len(field) < min(cfg["sizes"]):
                # Too few left for the organiser's tables: a final at the largest size the kind
                # allows, for the best placed (a bye first: the top seeds), then the best seeds
                # (Kinapa never seats 3: of 2 through and a bye, a final of 2).
                fits = [k for k in cfg.get("kind_sizes", []) if k <= len(field)]
                if not fits:
                    return None
                reached = stream.knockout_reached(state)
                best = sorted(field, key=lambda p: (reached.get(p, (0, 0))[1], seed_of.get(p, 0)))[:max(fits)]
                tables = [{"players": [p for p in field if p in best], "bye": False}]
            else:
                tables = pairing.knockout_tables(field, cfg["sizes"], cfg.get("advance", 1))
    return balance(tables, hist, rng)


def balance(tables, hist, rng) -> list[dict]:
    """First seats to whoever has had the fewest (pairing.seat_order)."""
    firsts, played, last = pairing.first_seats(hist), pairing.games_played(hist), pairing._last_first(hist)
    return [t if t["bye"] else {"players": pairing.seat_order(t["players"], firsts, played, last, rng), "bye": False}
            for t in tables]


def next_match_game(table) -> list[int]:
    """A knockout match's next game: the first seat alternates."""
    first = table["games"][0]["players"]
    return list(first) if len(table["games"]) % 2 == 0 else list(reversed(first))


def winner(state):
    if state["format"] == "knockout":
        last = state["rounds"][-1]["tables"] if state["rounds"] else []
        through = [p for t in last for p in stream.advancers(state, t)]
        through = [p for p in through if state["players"][str(p)]["status"] == "active"]  # as next_round
        seed_of = {p: i for i, p in enumerate(state["seeds"])}
        if len(last) == 1 and not last[0]["bye"] and state["config"]["sizes"] != [2]:
            g = last[0]["games"][-1]  # the final table (of two, too): its winner, a shared first place to the best seed
            return min(zip(g["ranks"], g["players"]), key=lambda rp: (rp[0], seed_of.get(rp[1], 0)))[1] if g["ranks"] else None
        if len(through) > 1:  # no final could be seated: the best seed among the table winners
            return min(through, key=lambda p: seed_of.get(p, 0))
        return through[0] if through else None
    rows = stream.standings(state)
    return rows[0]["player"] if rows else None


WARNING_LEAD = timedelta(hours=24)


def warning_at(starts_at: datetime, ends_at: datetime) -> datetime:
    """When players whose game still runs are warned that the round ends: a day before, or a
    quarter of the round before in rounds shorter than four days (time left to act on it)."""
    return ends_at - min(WARNING_LEAD, (ends_at - starts_at) / 4)
