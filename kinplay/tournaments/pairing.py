"""Pairing: pure functions, no Django, no clock, no ``random`` (chance comes from ``rng``).

``pair(standings, history, rng, options) -> tables``

- ``standings``: the active players, best first: ``[{"player": id, "points": number, "seed": int}]``
  (``seed`` is the entry order by rating: 1 is the strongest).
- ``history``: the rounds played so far, each a list of tables ``{"players": [ids in seat order],
  "bye": bool}``.
- ``rng``: a ``games.rng.Rng`` (anything with ``randbelow`` and ``shuffled``).
- ``options``: ``{"format", "round" (1-based), "rounds" (planned, Swiss), "sizes" (the table sizes the kind allows, a sorted
  list), "table_size": {"min", "max"}, "double"}``.

Returns ``[{"players": [ids in seat order], "bye": bool}]``: every player of ``standings`` at
exactly one table, byes last. Round robin and knockout have their own schedule helpers below.
"""

from __future__ import annotations

import itertools
import math
from collections import Counter

import networkx as nx

from kinplay.tournaments import dutch
from kinplay.tournaments.tables import split as split_tables

REMATCH = 10**24  # a rematch (or a second bye) costs more than any spread of scores can
SPARSE_FROM = 64  # larger fields are matched block by block (swiss_duels)
BLOCK = 40


class PairingError(ValueError):
    """The field cannot be seated under these options (the service turns it into a 400)."""


# ---------------------------------------------------------------- helpers on history


def first_seats(history) -> Counter[int]:
    """How many times each player sat first (at a table of two or more)."""
    c: Counter[int] = Counter()
    for rnd in history:
        for t in rnd:
            if not t.get("bye") and len(t["players"]) > 1:
                c[t["players"][0]] += 1
    return c


def games_played(history) -> Counter[int]:
    c: Counter[int] = Counter()
    for rnd in history:
        for t in rnd:
            if not t.get("bye"):
                for p in t["players"]:
                    c[p] += 1
    return c


def met(history) -> Counter[frozenset[int]]:
    """How often each (unordered) pair of players shared a table."""
    c: Counter[frozenset[int]] = Counter()
    for rnd in history:
        for t in rnd:
            if not t.get("bye"):
                for a, b in itertools.combinations(sorted(t["players"], key=repr), 2):
                    c[frozenset((a, b))] += 1
    return c


def byes(history) -> Counter[int]:
    c: Counter[int] = Counter()
    for rnd in history:
        for t in rnd:
            if t.get("bye"):
                for p in t["players"]:
                    c[p] += 1
    return c


def seat_order(players, firsts: Counter, played: Counter, last_first: set, rng) -> list:
    """Who sits first: the one whose share of first seats is lowest so far; then the one who
    did not sit first last round; then the draw. The others keep a drawn order."""
    drawn = rng.shuffled(players)
    rank = {p: i for i, p in enumerate(drawn)}
    return sorted(drawn, key=lambda p: (firsts[p] - played[p] / len(players), p in last_first, rank[p]))


def _last_first(history) -> set:
    if not history:
        return set()
    return {t["players"][0] for t in history[-1] if not t.get("bye") and len(t["players"]) > 1}


# ---------------------------------------------------------------- table sizes


def table_sizes(n: int, sizes: list[int]) -> tuple[list[int], int]:
    """Split ``n`` players into tables whose sizes are in ``sizes``, as equal as possible, the
    fewest byes first: returns (table sizes, largest first; number of byes)."""
    sizes = sorted(set(sizes))
    if not sizes:
        raise PairingError("No table size is allowed.")
    for byes_ in range(0, n + 1):
        m = n - byes_
        if m == 0:
            return [], n
        best = None
        for t in range((m + sizes[-1] - 1) // sizes[-1], m // sizes[0] + 1):
            split = _even_split(m, t, sizes)
            if split and (best is None or (max(split) - min(split), -t) < (max(best) - min(best), -len(best))):
                best = split
        if best:
            return sorted(best, reverse=True), byes_
    return [], n


def _even_split(m, t, sizes):
    """``t`` tables seating ``m`` from ``sizes``, spread as little as possible (None if none)."""
    base, extra = divmod(m, t)
    if base in sizes and (extra == 0 or base + 1 in sizes):
        return [base + 1] * extra + [base] * (t - extra)
    # A size the kind cannot play in the middle (Kinapa never 3): the nearest allowed mix.
    best = None
    for combo in itertools.combinations_with_replacement(sizes, t):
        if sum(combo) == m and (best is None or max(combo) - min(combo) < max(best) - min(best)):
            best = list(combo)
    return best


# ---------------------------------------------------------------- Swiss


def pair(standings, history, rng, options) -> list[dict]:
    fmt = options.get("format", "swiss")
    if fmt == "swiss":
        if options.get("sizes") == [2]:
            return dutch_duels(standings, history, rng, options)
        return swiss_tables(standings, history, rng, options)
    if fmt == "round_robin":
        players = [s["player"] for s in standings]
        rounds = round_robin(players, double=options.get("double", False))
        return rounds[(options["round"] - 1) % len(rounds)]
    raise PairingError(f"Unknown format {fmt!r}.")


def _score(s) -> int:
    return round(float(s["points"]) * 2)  # halves: integer weights for the matching


def dutch_duels(standings, history, rng, options) -> list[dict]:
    """Two-player Swiss by the FIDE Dutch system (``dutch``): white is the first seat. When its
    absolute criteria leave no pairing at all (a small field late in a long event), the
    matching below pairs the round with the fewest rematches instead."""
    try:
        pairs, bye = dutch.pair(standings, history, total_rounds=options.get("rounds"))
    except dutch.NoPairing:
        return swiss_duels(standings, history, rng)
    out = [{"players": list(p), "bye": False} for p in pairs]
    return out + ([{"players": [bye], "bye": True}] if bye is not None else [])


def swiss_duels(standings, history, rng) -> list[dict]:
    """Two-player Swiss as a maximum-weight perfect matching: every pair costs the square of its
    score gap, a rematch more than any score gap can, the bye goes to the lowest score that has
    not had one. Not greedy: the whole round is optimised at once."""
    players = [s["player"] for s in standings]
    if not players:
        return []
    if len(players) == 1:
        return [{"players": players, "bye": True}]
    score = {s["player"]: _score(s) for s in standings}
    pos = {p: i for i, p in enumerate(players)}
    seen, had_bye = met(history), byes(history)
    BYE = ("bye",)
    nodes = list(players)
    if len(nodes) % 2:
        nodes.append(BYE)
    low = min(score.values()) - 2  # the bye sits just under the lowest score
    n = len(nodes)
    group = Counter(score.values())
    first_in_group: dict[int, int] = {}
    for i, p in enumerate(players):
        first_in_group.setdefault(score[p], i)
    fine = n * n + 1  # a unit of score gap outweighs every within-group preference together

    def cost(a, b):
        if b is BYE or a is BYE:
            p = b if a is BYE else a
            # A second bye weighs more than every rematch together: it is avoided first.
            return REMATCH * n * had_bye[p] + fine * (score[p] - low) ** 2 + (n - pos[p])
        # Within a score group the top half meets the bottom half (1 v 5, 2 v 6 ...), as the
        # Dutch system does: the matching's tie-break, worth less than any score gap.
        half = group[score[a]] // 2 if score[a] == score[b] else 0
        dutch = abs(abs(pos[a] - pos[b]) - half) if half else 0
        return REMATCH * seen[frozenset((a, b))] + fine * (score[a] - score[b]) ** 2 + dutch

    big = REMATCH * n * (len(history) + 2)

    def match(idx):
        """Maximum-weight perfect matching of these positions (-1 is the bye), complete graph."""
        g = nx.Graph()
        for a, b in itertools.combinations(idx, 2):
            pa, pb = (BYE if a == -1 else players[a]), (BYE if b == -1 else players[b])
            g.add_edge(a, b, weight=big - cost(pa, pb))
        return list(nx.max_weight_matching(g, maxcardinality=True))

    idx = list(range(len(players))) + ([-1] if BYE in nodes else [])
    if len(idx) <= SPARSE_FROM:
        pairs = match(idx)
    else:
        # A large field is matched in consecutive blocks of the standings (score groups stay
        # together; each block is small enough for the exact algorithm). A block whose best
        # matching still holds a rematch is merged with the next one and matched again.
        pairs, start = [], 0
        carry: list[int] = []
        body = list(range(len(players)))
        while start < len(body) or carry:
            block = carry + body[start:start + BLOCK]
            start += BLOCK
            if start >= len(body) and BYE in nodes:
                block.append(-1)
            if len(block) % 2 and start < len(body):
                block, extra = block + [body[start]], 1
                start += extra
            got = match(block)
            clash = [(a, b) for a, b in got if cost(BYE if a == -1 else players[a], BYE if b == -1 else players[b]) >= REMATCH]
            if clash and start < len(body):
                carry = block  # try again with the next block's players available
                continue
            pairs += got
            carry = []
    firsts, played, last = first_seats(history), games_played(history), _last_first(history)
    tables, bye = [], None
    for a, b in pairs:
        if -1 in (a, b):
            bye = players[a if b == -1 else b]
            continue
        tables.append((min(a, b), seat_order([players[a], players[b]], firsts, played, last, rng)))
    tables.sort(key=lambda t: t[0])
    out = [{"players": t, "bye": False} for _, t in tables]
    if bye is not None:
        out.append({"players": [bye], "bye": True})
    return out


def swiss_tables(standings, history, rng, options) -> list[dict]:
    """Multiplayer Swiss: table sizes as equal as the kind and the organiser allow, players split
    over them at the least cost (repeated table-mates first, then the squared score spread of
    each table: ``tables.split``). Byes (only when no split seats everybody) go to the lowest
    players who have had the fewest."""
    players = [s["player"] for s in standings]
    score = {s["player"]: _score(s) for s in standings}
    sizes, n_byes = table_sizes(len(players), options["sizes"])
    bye_players = table_byes(players, n_byes, history)
    seated = [p for p in players if p not in bye_players]
    return seated_tables(split_tables(seated, sizes, score, met(history)), bye_players, history, rng)


def table_byes(players, n_byes, history) -> list:
    """The ``n_byes`` players a multiplayer Swiss round leaves out: those with the fewest byes,
    the lowest first."""
    had_bye = byes(history)
    return sorted(reversed(players), key=lambda p: had_bye[p])[:n_byes]


def seated_tables(tables, bye_players, history, rng) -> list[dict]:
    """A multiplayer round's tables, each in its seat order, and its byes."""
    firsts, played, last = first_seats(history), games_played(history), _last_first(history)
    out = [{"players": seat_order(t, firsts, played, last, rng), "bye": False} for t in tables]
    out += [{"players": [p], "bye": True} for p in bye_players]
    return out


def swiss_rounds(n_players: int, sizes: list[int]) -> int:
    """Default number of Swiss rounds: ceil(log2(field)) for duels; for tables, enough rounds
    for the leaders to meet: ceil(log_k(field)) with k the largest table, at least 3."""
    if n_players < 2:
        return 1
    if sizes == [2]:
        return max(1, math.ceil(math.log2(n_players)))
    k = max(sizes)
    return max(3, math.ceil(math.log(n_players, k)))


def max_rounds(n_players: int, sizes: list[int]) -> int:
    """The most Swiss rounds ``n_players`` can play with nobody meeting anyone twice, as far as
    counting shows: a duel field meets everyone once in n - 1 rounds (n with a bye a round); at
    tables whose smallest seats k, each round brings k - 1 new table-mates out of n - 1. More
    rounds certainly repeat; this many may still need a repeat at tables (plan.total_rounds caps
    at it, services.start refuses an organiser's rounds above it)."""
    if n_players < 2:
        return 1
    if sizes == [2]:
        return n_players if n_players % 2 else n_players - 1
    seated, _ = table_sizes(n_players, sizes)
    if not seated:
        return 1
    return max(1, (n_players - 1) // (min(seated) - 1))


# ---------------------------------------------------------------- round robin


def round_robin(players: list, *, double=False) -> list[list[dict]]:
    """FIDE's Berger tables (C.05 Annex 1): ``players`` take the numbers 1, 2, … in order; an odd
    field adds an empty highest number, and who meets it has the bye. With n numbers, i and j
    (both below n) meet in round (i + j - 2) mod (n - 1) + 1, the lower number first when i + j
    is odd; i meets n in round (2i - 2) mod (n - 1) + 1, n first in even rounds. ``double``: a
    second cycle, the same rounds with the seats swapped."""
    ps = list(players)
    if len(ps) % 2:
        ps.append(None)
    n = len(ps)
    rounds: list[list[tuple]] = [[] for _ in range(n - 1)]
    for i in range(1, n):
        r = (2 * i - 2) % (n - 1) + 1
        rounds[r - 1].insert(0, (ps[n - 1], ps[i - 1]) if r % 2 == 0 else (ps[i - 1], ps[n - 1]))
        for j in range(i + 1, n):
            r = (i + j - 2) % (n - 1) + 1
            rounds[r - 1].append((ps[i - 1], ps[j - 1]) if (i + j) % 2 else (ps[j - 1], ps[i - 1]))
    if double:
        rounds += [[(b, a) for a, b in t] for t in rounds]
    out = []
    for tables in rounds:
        rnd = [{"players": [a, b], "bye": False} for a, b in tables if a is not None and b is not None]
        rnd += [{"players": [a if b is None else b], "bye": True} for a, b in tables if a is None or b is None]
        out.append(rnd)
    return out


# ---------------------------------------------------------------- knockout


def bracket_positions(size: int) -> list[int]:
    """Seed numbers (1-based) in bracket order: 1 meets ``size``, 2 meets ``size-1``, and the
    top two can only meet in the final."""
    order = [1]
    while len(order) < size:
        m = len(order) * 2 + 1
        order = [x for s in order for x in (s, m - s)]
    return order


def knockout_first_round(seeded: list) -> list[dict]:
    """Seeded duels; when the field is not a power of two the top seeds get the byes."""
    n = len(seeded)
    size = 1
    while size < n:
        size *= 2
    pos = bracket_positions(size)
    out = []
    for i in range(0, size, 2):
        a, b = pos[i], pos[i + 1]
        pa = seeded[a - 1] if a <= n else None
        pb = seeded[b - 1] if b <= n else None
        if pa is not None and pb is not None:
            out.append({"players": [pa, pb], "bye": False})
        elif pa is not None or pb is not None:
            out.append({"players": [pa if pa is not None else pb], "bye": True})
    return out


def knockout_next_round(winners: list) -> list[dict]:
    """Winners in bracket order meet their neighbour; no byes after the first round."""
    return [{"players": [winners[i], winners[i + 1]], "bye": False} for i in range(0, len(winners) - 1, 2)]


def knockout_tables(seeded: list, sizes: list[int], advance: int) -> list[dict]:
    """Multiplayer knockout: the field snaked over tables (seed 1, 2, … then back), so every
    table has the same spread of strength; players left over when no split seats everybody
    go through on a bye (the top seeds)."""
    table_sz, n_byes = table_sizes(len(seeded), sizes)
    through, rest = seeded[:n_byes], seeded[n_byes:]
    tables: list[list[int]] = [[] for _ in table_sz]
    snake = list(range(len(tables))) + list(reversed(range(len(tables))))
    j = 0
    for p in rest:
        while len(tables[snake[j % len(snake)]]) >= table_sz[snake[j % len(snake)]]:
            j += 1
        tables[snake[j % len(snake)]].append(p)
        j += 1
    return [{"players": t, "bye": False} for t in tables if t] + [{"players": [p], "bye": True} for p in through]


def match_winner(games: list[dict], best_of: int):
    """A knockout match of duels: ``games`` are ``{"players": [a, b], "ranks": [..] | None}``.
    Returns the winner, or None while another game is needed. The first to a majority of
    ``best_of`` wins; a drawn deciding game is replayed."""
    wins: Counter[int] = Counter()
    players = games[0]["players"] if games else []
    for g in games:
        if g.get("ranks") is None:
            return None
        r = g["ranks"]
        if r[0] < r[1]:
            wins[g["players"][0]] += 1
        elif r[1] < r[0]:
            wins[g["players"][1]] += 1
    need = best_of // 2 + 1
    for p in players:
        if wins[p] >= need:
            return p
    if len(games) >= best_of and len(players) == 2 and wins[players[0]] != wins[players[1]]:
        return max(players, key=lambda p: wins[p])
    return None
