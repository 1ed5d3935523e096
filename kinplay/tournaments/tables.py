"""Multiplayer Swiss: splitting a round's players into tables of given sizes at the least cost.

Pure (no Django, no chance). A table costs ``REMATCH`` per pair of table-mates who met before
plus the square of its score spread; a split costs the sum of its tables. ``split`` returns a
split of least cost for up to ``EXACT_UP_TO`` players (a search over subsets, exact). Beyond,
it starts from ``spread_bound``'s optimum (consecutive blocks of the standings), exchanges
repeats away, then runs an iterated local search (``_local_search``): exchanges of two players
and moves of one to a table a seat smaller, each step's change in cost found in constant time,
then kicks from a seed fixed by the field's size, so the same field always gives the same split.

Why no solver in the product: the spread alone is minimised exactly by consecutive blocks of the
standings (two tables whose score ranges cross can always be uncrossed without raising either
square), so a small dynamic programme gives a split that is optimal whenever history does not
bind, and the search stops there at once. Where repeats bind (mid-sized fields late in the
event), the tests measure the search against a lower bound that sees repeats, an integer
programme over score windows solved by HiGHS (tests/tournaments/table_bound.py): a test
dependency, not the product's.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Sequence

from games.rng import Rng

REMATCH = 10**24  # a repeated table-mate costs more than any spread of scores can
EXACT_UP_TO = 15  # a whole field this small is split exactly: the subset search still pays its way here
SEARCH_BUDGET = 1_000_000  # exchanges the local search may evaluate: a limit counted, not timed, so a split never depends on the machine
KICK_REACH = 3  # a kick exchanges players between tables up to this many apart in score order


def table_cost(table: Sequence[int], score: dict[int, int], seen: Counter) -> int:
    repeats = sum(seen[frozenset(pair)] for pair in itertools.combinations(table, 2))
    spread = max(score[p] for p in table) - min(score[p] for p in table) if table else 0
    return REMATCH * repeats + spread * spread


def split_cost(tables, score, seen) -> int:
    return sum(table_cost(t, score, seen) for t in tables)


def split(players: list[int], sizes: list[int], score: dict[int, int], seen: Counter) -> list[list[int]]:
    """``players`` (standings order) into tables of exactly ``sizes`` (a multiset), least cost first
    found; tables leaders first."""
    tables = (_exact if len(players) <= EXACT_UP_TO else _large)(players, sizes, score, seen)
    pos = {p: i for i, p in enumerate(players)}
    return sorted(tables, key=lambda t: min(pos[p] for p in t))


# ---------------------------------------------------------------- exact (small fields)


def _exact(players, sizes, score, seen):
    """Least cost over every split: the first free player's table is chosen among all subsets of
    the free players, memoised on (players seated, sizes left)."""
    n = len(players)
    memo: dict[tuple[int, tuple[int, ...]], tuple[int, tuple[int, ...]]] = {}
    table_of_mask: dict[int, int] = {}

    def cost_of(mask):
        if mask not in table_of_mask:
            table_of_mask[mask] = table_cost([players[i] for i in range(n) if mask >> i & 1], score, seen)
        return table_of_mask[mask]

    def best(mask, left):
        if not left:
            return 0, ()
        key = (mask, left)
        if key in memo:
            return memo[key]
        first = next(i for i in range(n) if not mask >> i & 1)
        free = [i for i in range(first + 1, n) if not mask >> i & 1]
        found: tuple[int, tuple[int, ...]] | None = None
        for k in sorted(set(left), reverse=True):
            rest = list(left)
            rest.remove(k)
            for others in itertools.combinations(free, k - 1):
                t = 1 << first
                for i in others:
                    t |= 1 << i
                sub, chosen = best(mask | t, tuple(rest))
                c = cost_of(t) + sub
                if found is None or c < found[0]:
                    found = (c, (t, *chosen))
        assert found is not None
        memo[key] = found
        return found

    _, masks = best(0, tuple(sorted(sizes)))
    return [[players[i] for i in range(n) if m >> i & 1] for m in masks]


# ---------------------------------------------------------------- large fields


def spread_bound(scores: list[int], sizes: list[int]) -> tuple[int, list[int]]:
    """The least sum of squared spreads over all splits of ``scores`` (best first) into tables of
    ``sizes``, repeats ignored (a lower bound of ``split_cost``), and an order of table sizes
    whose consecutive blocks reach it."""
    kinds = sorted(set(sizes), reverse=True)
    counts = tuple(sizes.count(k) for k in kinds)
    # best[used] = (cost, previous used, size) over the count vectors in order of seats filled
    best: dict[tuple[int, ...], tuple[int, tuple[int, ...] | None, int]] = {(0,) * len(kinds): (0, None, 0)}
    for used in itertools.product(*(range(c + 1) for c in counts)):
        if used not in best:
            continue
        cost = best[used][0]
        at = sum(u * k for u, k in zip(used, kinds))
        for j, k in enumerate(kinds):
            if used[j] == counts[j]:
                continue
            nxt = used[:j] + (used[j] + 1,) + used[j + 1:]
            spread = scores[at] - scores[at + k - 1]
            c = cost + spread * spread
            if nxt not in best or c < best[nxt][0]:
                best[nxt] = (c, used, k)
    order: list[int] = []
    node: tuple[int, ...] | None = counts
    while node is not None and best[node][1] is not None:
        order.append(best[node][2])
        node = best[node][1]
    return best[counts][0], order[::-1]


def _large(players, sizes, score, seen):
    ranked = sorted(players, key=lambda p: -score[p])  # stable: standings order within a score
    bound, order = spread_bound([score[p] for p in ranked], sizes)
    tables, at = [], 0
    for k in order:
        tables.append(ranked[at:at + k])
        at += k
    _remove_repeats(tables, score, seen)
    if split_cost(tables, score, seen) > bound:
        tables = _local_search(tables, score, seen, bound, SEARCH_BUDGET)
    return tables


def _remove_repeats(tables, score, seen):
    """Each player who sits with someone met before is exchanged with the player of the nearest
    score (equal first: no spread changes) whose exchange lowers the cost most; the first that
    clears all of the player's repeats without adding any is taken at once."""
    where = {p: i for i, t in enumerate(tables) for p in t}
    by_score: dict[int, list[int]] = {}
    for p in where:
        by_score.setdefault(score[p], []).append(p)
    levels = sorted(by_score)
    for _ in range(3):
        bad = [p for t in tables for a, p in itertools.permutations(t, 2) if seen[frozenset((a, p))]]
        if not bad:
            return
        changed = False
        for a in dict.fromkeys(bad):
            ta = where[a]
            own = sum(seen[frozenset((a, q))] for q in tables[ta] if q != a)
            if not own:
                continue  # an earlier exchange already fixed it
            for level in sorted(levels, key=lambda s: abs(s - score[a])):
                found = None
                for c in by_score[level]:
                    if where[c] == ta:
                        continue
                    delta = _exchange_delta(tables, a, c, where, score, seen)
                    if delta < 0 and (found is None or delta < found[0]):
                        found = (delta, c)
                        if level == score[a] and delta <= -REMATCH * own:
                            break
                if found:
                    _exchange(tables, where, a, found[1])
                    changed = True
                    break
        if not changed:
            return


def _exchange_delta(tables, a, c, where, score, seen) -> int:
    """The change in cost when ``a`` and ``c`` (at different tables) change places."""
    ta, tc = tables[where[a]], tables[where[c]]
    repeats = (sum(seen[frozenset((c, q))] - seen[frozenset((a, q))] for q in ta if q != a)
               + sum(seen[frozenset((a, q))] - seen[frozenset((c, q))] for q in tc if q != c))
    if score[a] == score[c]:
        return REMATCH * repeats
    na = [c if p == a else p for p in ta]
    nc = [a if p == c else p for p in tc]
    return REMATCH * repeats + _spread2(na, score) + _spread2(nc, score) - _spread2(ta, score) - _spread2(tc, score)


def _spread2(table, score) -> int:
    s = [score[p] for p in table]
    return (max(s) - min(s)) ** 2


def _exchange(tables, where, a, c):
    ta, tc = where[a], where[c]
    tables[ta] = [c if p == a else p for p in tables[ta]]
    tables[tc] = [a if p == c else p for p in tables[tc]]
    where[a], where[c] = tc, ta


# ---------------------------------------------------------------- local search


class _Search:
    """A split under exchanges of two players and moves of one player to a table one seat
    smaller (the sizes stay the same multiset), each step's change in cost found in constant
    time from each table's repeats, two highest and two lowest scores, and how often each
    player met the players of each table."""

    def __init__(self, tables, score, seen):
        self.score = score
        self.adj: dict[int, dict[int, int]] = {p: {} for t in tables for p in t}
        for pair, times in seen.items():
            if times and len(pair) == 2:
                a, b = pair
                if a in self.adj and b in self.adj:
                    self.adj[a][b] = self.adj[b][a] = times
        self.evaluated = 0
        self.done: list[tuple] = []  # the steps taken, for undo
        self.tables = [list(t) for t in tables]
        self.where = {p: i for i, t in enumerate(self.tables) for p in t}
        self.near: dict[int, dict[int, int]] = {p: {} for p in self.where}
        for p, opponents in self.adj.items():
            near = self.near[p]
            for q, times in opponents.items():
                near[self.where[q]] = near.get(self.where[q], 0) + times
        self.reps = [self._repeats(t) for t in self.tables]
        self.lim = [self._limits(t) for t in self.tables]

    def _repeats(self, t):
        return sum(self.adj[a].get(b, 0) for x, a in enumerate(t) for b in t[x + 1:])

    def _limits(self, t):
        s = sorted(self.score[p] for p in t)
        return s[-1], s[-2] if len(s) > 1 else s[-1], s[0], s[1] if len(s) > 1 else s[0]

    def total(self) -> int:
        return sum(REMATCH * r + (hi - lo) ** 2 for r, (hi, _, lo, _) in zip(self.reps, self.lim))

    def _spread(self, i, out, into):
        """Table i's spread with a player scoring ``out`` replaced by one scoring ``into`` (None:
        nobody leaves, or nobody comes)."""
        hi, hi2, lo, lo2 = self.lim[i]
        if out is not None:
            hi, lo = (hi2 if out == hi else hi), (lo2 if out == lo else lo)
        if into is not None:
            hi, lo = max(hi, into), min(lo, into)
        return hi - lo

    def best_between(self, i, j):
        """The step between tables i and j that lowers the cost most: (change, a, c) for an
        exchange of a and c, (change, a, None) for a's move to j; None when none lowers it."""
        hi, _, lo, _ = self.lim[i]
        hj, _, lj, _ = self.lim[j]
        self.evaluated += 1
        if not self.reps[i] and not self.reps[j] and (hj < lo or hi < lj or (hi == lo and hj == lj)):
            return None  # apart in score (or each of one score) and without repeats: no exchange helps
        score, near, adj = self.score, self.near, self.adj
        before = (hi - lo) ** 2 + (hj - lj) ** 2
        found = None
        ti, tj = self.tables[i], self.tables[j]
        self.evaluated += len(ti) * len(tj) + len(ti) + len(tj)
        _, hj2, _, lj2 = self.lim[j]
        # each of j's players: score, repeats with i and with j, j's highest and lowest without them
        others = []
        for c in tj:
            sc, nc = score[c], near[c]
            others.append((c, sc, nc.get(i, 0) - nc.get(j, 0), hj2 if sc == hj else hj, lj2 if sc == lj else lj))
        _, hi2, _, lo2 = self.lim[i]
        for a in ti:
            sa, na, aa = score[a], near[a], adj[a]
            a_moves = na.get(j, 0) - na.get(i, 0)
            ha, la = (hi2 if sa == hi else hi), (lo2 if sa == lo else lo)
            for c, sc, c_moves, hc, lc in others:
                repeats = a_moves + c_moves - 2 * aa.get(c, 0) if aa else a_moves + c_moves
                if repeats > 0:
                    continue
                if sa == sc:
                    delta = REMATCH * repeats
                else:
                    di = (ha if ha > sc else sc) - (la if la < sc else sc)
                    dj = (hc if hc > sa else sa) - (lc if lc < sa else sa)
                    delta = REMATCH * repeats + di * di + dj * dj - before
                if delta < 0 and (found is None or delta < found[0]):
                    found = (delta, a, c)
        for big, small, t in ((i, j, ti), (j, i, tj)):
            if len(self.tables[big]) == len(self.tables[small]) + 1:
                for a in t:
                    sa, na = score[a], near[a]
                    db, ds = self._spread(big, sa, None), self._spread(small, None, sa)
                    delta = REMATCH * (na.get(small, 0) - na.get(big, 0)) + db * db + ds * ds - before
                    if delta < 0 and (found is None or delta < found[0]):
                        found = (delta, a, None, small)
        return found

    def apply(self, step):
        if step[2] is None:
            self.move(step[1], step[3])
        else:
            self.swap(step[1], step[2])

    def _relocate(self, p, frm, to):
        for q, times in self.adj[p].items():
            near = self.near[q]
            near[frm] -= times
            near[to] = near.get(to, 0) + times
        self.where[p] = to

    def swap(self, a, c):
        self.done.append((a, c, None))
        i, j = self.where[a], self.where[c]
        ti, tj = self.tables[i], self.tables[j]
        ti[ti.index(a)], tj[tj.index(c)] = c, a
        self._relocate(a, i, j)
        self._relocate(c, j, i)
        self._refresh(i, j)

    def move(self, a, j):
        i = self.where[a]
        self.done.append((a, None, i))
        self.tables[i].remove(a)
        self.tables[j].append(a)
        self._relocate(a, i, j)
        self._refresh(i, j)

    def undo(self, mark: int):
        """Back to the split as it was when ``done`` held ``mark`` steps."""
        while len(self.done) > mark:
            a, c, i = self.done.pop()
            if c is not None:
                self.swap(a, c)
            else:
                self.move(a, i)
            self.done.pop()

    def _refresh(self, *changed):
        for k in changed:
            self.reps[k], self.lim[k] = self._repeats(self.tables[k]), self._limits(self.tables[k])

    def descend(self, dirty):
        """Improving steps until no table in ``dirty`` (and none a step touched) has one left."""
        dirty = set(dirty)
        while dirty:
            i = min(dirty)
            dirty.discard(i)
            for j in range(len(self.tables)):
                step = None if j == i else self.best_between(i, j)
                if step is not None:
                    self.apply(step)
                    dirty.update((i, j))
                    break


def _local_search(tables, score, seen, lower, budget):
    """Iterated local search: improving exchanges and moves until none is left, then from the
    best split so far, kicks (two random exchanges between tables near in score, drawn from a
    fixed seed so a split is always redrawn the same) followed by the same descent, kept when
    not worse; until the cost reaches ``lower`` or about ``budget`` exchanges were evaluated."""
    s = _Search(tables, score, seen)
    s.descend(range(len(s.tables)))
    best_cost = s.total()
    n = len(s.tables)
    rng = Rng("tables", f"{sum(map(len, tables))}:{n}")
    while n > 1 and best_cost > lower and s.evaluated < budget:
        order = sorted(range(n), key=lambda t: (-s.lim[t][0], -s.lim[t][2]))
        costly = [x for x, t in enumerate(order) if s.reps[t] or s.lim[t][0] != s.lim[t][2]]
        # mostly around a table that costs something: kicks between tables of one score rarely pay
        x = costly[rng.randbelow(len(costly))] if costly and rng.randbelow(4) else rng.randbelow(n)
        y = min(n - 1, max(0, x + rng.randbelow(2 * KICK_REACH + 1) - KICK_REACH))
        if y == x:
            y = x + 1 if x + 1 < n else x - 1
        i, j = order[x], order[y]
        mark = len(s.done)
        for _ in range(2):
            ti, tj = s.tables[i], s.tables[j]
            s.swap(ti[rng.randbelow(len(ti))], tj[rng.randbelow(len(tj))])
        s.descend({i, j})
        cost = s.total()
        if cost <= best_cost:
            best_cost = cost
        else:
            s.undo(mark)
        del s.done[:]
    return s.tables
