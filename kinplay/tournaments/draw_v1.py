"""The first draws, kept so that ``verify_tournament`` can redraw tournaments created before
the current ones (their config has no ``draw``; plan.DRAW is the current version): multiplayer
Swiss tables by hill-climbing swaps, and round robin by the circle method. Nothing new uses them.
"""

from __future__ import annotations

import itertools

from kinplay.tournaments.pairing import REMATCH, _score, met, seated_tables, table_byes, table_sizes


def swiss_tables(standings, history, rng, options) -> list[dict]:
    """Multiplayer Swiss: leaders together, table sizes as equal as the kind and the organiser
    allow, then swaps between neighbouring tables that cut repeated table-mates without
    mixing score groups more than needed. Byes (only when no split seats everybody) go to the
    lowest players who have had the fewest."""
    players = [s["player"] for s in standings]
    score = {s["player"]: _score(s) for s in standings}
    sizes, n_byes = table_sizes(len(players), options["sizes"])
    bye_players = table_byes(players, n_byes, history)
    seated = [p for p in players if p not in bye_players]
    seen = met(history)
    tables, i = [], 0
    for size in sizes:
        tables.append(seated[i:i + size])
        i += size

    def table_cost(t):
        repeats = sum(seen[frozenset(pair_)] for pair_ in itertools.combinations(t, 2))
        spread = max(score[p] for p in t) - min(score[p] for p in t) if t else 0
        return REMATCH * repeats + spread * spread

    # Hill-climb on neighbouring tables (and the one after): bounded, so 1,000 players stay fast.
    for _ in range(3):
        improved = False
        for k in range(len(tables)):
            for d in (1, 2):
                if k + d >= len(tables):
                    continue
                a, b = tables[k], tables[k + d]
                base = table_cost(a) + table_cost(b)
                if base < REMATCH:
                    continue  # no repeat to remove here
                best = None
                for x in range(len(a)):
                    for y in range(len(b)):
                        na, nb = a[:x] + [b[y]] + a[x + 1:], b[:y] + [a[x]] + b[y + 1:]
                        c = table_cost(na) + table_cost(nb)
                        if c < base and (best is None or c < best[0]):
                            best = (c, na, nb)
                if best:
                    tables[k], tables[k + d] = best[1], best[2]
                    improved = True
        if not improved:
            break
    return seated_tables(tables, bye_players, history, rng)


def round_robin(players: list, *, double=False) -> list[list[dict]]:
    """Berger tables by the circle method: everybody meets everybody once (twice with seats
    swapped when ``double``); the seat alternates, so each player's first seats differ from
    their second seats by at most one per cycle. An odd field: the one paired with the empty
    place has a bye."""
    ps = list(players)
    if len(ps) % 2:
        ps.append(None)
    n = len(ps)
    rounds = []
    fixed, rot = ps[-1], ps[:-1]
    for r in range(n - 1):
        tables = []
        order = rot[r:] + rot[:r]
        # The fixed player alternates sides; the others alternate because the rotation moves
        # each of them from one side of the circle to the other every round.
        a, b = order[0], fixed
        tables.append((a, b) if r % 2 == 0 else (b, a))
        for i in range(1, n // 2):
            x, y = order[i], order[n - 1 - i]
            tables.append((x, y) if i % 2 == 0 else (y, x))
        rounds.append(tables)
    if double:
        rounds += [[(b, a) for a, b in t] for t in rounds]
    out = []
    for tables in rounds:
        rnd = [{"players": [a, b], "bye": False} for a, b in tables if a is not None and b is not None]
        rnd += [{"players": [a if b is None else b], "bye": True} for a, b in tables if a is None or b is None]
        out.append(rnd)
    return out
