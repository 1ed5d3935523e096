"""A lower bound of ``tables.split``'s cost that sees repeats, for the tests (and bench/) to
measure multiplayer Swiss splits against: an integer programme over score windows solved by
HiGHS (highspy, a test dependency: the product never needs it).

Why it is a lower bound. Take any split without a repeated table-mate and call a table's
*window* the pair (lowest score, highest score) at it; its cost is the window's width squared.
Count ``z[w, k]``, the tables of size k whose window is w, and set ``u[p, w]`` to 1 when player
p sits at a table whose window is w. These numbers satisfy every constraint below:

- each player sits at one table: the sum over w of ``u[p, w]`` is 1;
- the seats of the tables of window w are filled by the players whose table it is:
  the sum over p of ``u[p, w]`` is the sum over k of k times ``z[w, k]``;
- there are as many tables of each size as the round has;
- a table's window is its lowest and its highest score, so each table of window w seats a player
  of each end score: the players at an end with ``u[p, w]`` number at least the tables of w;
- players who all met one another (a clique of the met graph) sit at different tables, so at
  most one of them per table of window w;
- p's table-mates have scores inside its window and never met p, so ``u[p, w]`` exists only
  for windows around p's score holding at least (smallest table - 1) such players.

The objective (the sum of ``z[w, k]`` times w's width squared) equals the split's cost. So the
programme's optimum, and any dual bound HiGHS proves for it (``mip_dual_bound``, also when a
time limit stops it), is at most the least cost of a split without repeats. Windows wider than
``upper`` (the cost of a known split) are left out: a split using one costs more than that known
split, so the least cost is at least min(programme's bound, ``upper``). When no split avoids
repeats (the programme is infeasible), every split costs at least one ``REMATCH``.

A second family of constraints (``neighbours``) is added when the first answer is not tight:
p's table-mates are at least (smallest table - 1) players inside its window who never met p,
so the players new to p placed in w number at least that many times ``u[p, w]``.

When repeats cannot be avoided (``upper`` holds some), a split costs at least ``REMATCH`` times
the least number of repeated pairs (``_least_repeats``, a programme of its own) plus the spread
bound. That programme's linear relaxation alone proves nothing (every player a fraction 1/T at
each of T tables leaves every pair's y at 0), so without more its bound is whatever
branch-and-bound proves before it stops: in a 20-player field at 4 tables of 5 after two rounds,
1 after 100 nodes, 2 after 1,000, the least (8) only after some 5,000. Hence a pigeonhole constraint per clique of the met graph:
c players who all met one another, seated at T tables, put m_t of them at table t with
m_1 + ... + m_T = c, so they sit together in at least sum C(m_t, 2) pairs, least when the m_t
differ by at most one (moving a player from a fuller table to an emptier one never adds a
pair): r C(q + 1, 2) + (T - r) C(q, 2) pairs, c = qT + r. Every pair of the clique met, so each
pair seated together is a repeat, and in any split the y of the pairs of the clique summed over
the tables number at least that many. Any family of cliques keeps this valid; the relaxation
adds their counts up when a pair lies in no more cliques than the times it met (its y weighs
that much), as when the cliques are the earlier rounds' tables, which ``_cliques`` finds: in
that field, 8 at the root.
"""

from __future__ import annotations

import itertools
import math
from collections import Counter, defaultdict

import highspy

from kinplay.tournaments import tables

# HiGHS stops after this many branch-and-bound nodes (a limit that does not depend on the
# machine's load, unlike the time limit behind it) and gives the bound proven so far.
NODES = 20_000


def _cliques(players: list[int], seen: Counter, *, disjoint: bool) -> list[list[int]]:
    """Cliques of the met graph covering each of its edges, grown greedily from each edge not yet
    covered (``disjoint``: from edges not yet covered only, so no two share a pair). Any family
    keeps the bound valid; larger cliques make it tighter."""
    seated = frozenset(players)
    adj: dict[int, set[int]] = defaultdict(set)
    for pair, times in seen.items():
        if times and len(pair) == 2 and pair <= seated:
            a, b = sorted(pair)
            adj[a].add(b)
            adj[b].add(a)
    covered: set[frozenset[int]] = set()
    out = []
    for a in sorted(adj):
        for b in sorted(adj[a]):
            if b < a or frozenset((a, b)) in covered:
                continue
            clique = [a, b]
            for q in sorted(adj[a] & adj[b]):
                if all(q in adj[x] and not (disjoint and frozenset((q, x)) in covered) for x in clique):
                    clique.append(q)
            covered.update(frozenset(e) for e in itertools.combinations(clique, 2))
            out.append(clique)
    return out


class _Programme:
    """The integer programme over windows (the module's docstring), built for HiGHS."""

    def __init__(self, players, sizes, score, seen, widest, seconds):
        self.players, self.score = players, score
        self.met = {p: {q for q in players if seen[frozenset((p, q))]} for p in players}
        levels = sorted({score[p] for p in players})
        self.windows = [(lo, hi) for lo in levels for hi in levels if lo <= hi and (hi - lo) ** 2 <= widest]
        self.kinds, self.count, self.smallest = sorted(set(sizes)), Counter(sizes), min(sizes)
        self.h = highspy.Highs()
        self.h.setOptionValue("output_flag", False)
        self.h.setOptionValue("time_limit", seconds)
        self.h.setOptionValue("mip_max_nodes", NODES)
        self.h.setOptionValue("mip_rel_gap", 0.0)

    def _integer(self, ub, obj=0.0):
        v = self.h.addVariable(lb=0, ub=ub, obj=obj)
        self.h.changeColIntegrality(v.index, highspy.HighsVarType.kInteger)
        return v

    def _inside(self, p, w):
        return w[0] <= self.score[p] <= w[1]

    def build(self, *, repeats: bool, neighbours: bool, cliques) -> bool:
        """False when some player has no window at all (no split without repeats in them)."""
        h, score = self.h, self.score
        z = {(w, k): self._integer(self.count[k], 0.0 if repeats else (w[1] - w[0]) ** 2)
             for w in self.windows for k in self.kinds}
        u = {}
        for p in self.players:
            for w in self.windows:
                if self._inside(p, w) and (repeats or sum(
                        1 for q in self.players if q != p and q not in self.met[p] and self._inside(q, w)) >= self.smallest - 1):
                    u[p, w] = self._integer(1)
            mine = [u[p, w] for w in self.windows if (p, w) in u]
            if not mine:
                return False
            h.addConstr(sum(mine) == 1)
        for k in self.kinds:
            h.addConstr(sum(z[w, k] for w in self.windows) == self.count[k])
        for w in self.windows:
            at = [p for p in self.players if (p, w) in u]
            n_tables = sum(z[w, k] for k in self.kinds)
            h.addConstr(sum((u[p, w] for p in at), start=0) - sum(k * z[w, k] for k in self.kinds) == 0)
            if w[0] < w[1]:
                for end in w:
                    h.addConstr(sum((u[p, w] for p in at if score[p] == end), start=0) - n_tables >= 0)
            if neighbours:
                for p in at:
                    new = [u[q, w] for q in at if q != p and q not in self.met[p]]
                    h.addConstr(sum(new, start=0) - (self.smallest - 1) * u[p, w] >= 0)
            for clique in cliques:
                inside = [u[p, w] for p in clique if (p, w) in u]
                if len(inside) > 1:
                    excess = [self._integer(len(inside), 1.0)] if repeats else []
                    h.addConstr(sum(inside) - n_tables - sum(excess, start=0) <= 0)
        return True

    def solve(self) -> float | None:
        """The proven lower bound of the optimum (None: infeasible)."""
        self.h.run()
        if self.h.getModelStatus() == highspy.HighsModelStatus.kInfeasible:
            return None
        return self.h.getInfo().mip_dual_bound


def lower_bound(players: list[int], sizes: list[int], score: dict[int, int], seen: Counter,
                upper: int, seconds: float = 600.0) -> int:
    """A lower bound of ``tables.split_cost`` over every split of ``players`` into ``sizes``;
    ``upper`` is the cost of some split."""
    if not sizes:
        return 0
    spread, _ = tables.spread_bound(sorted((score[p] for p in players), reverse=True), sizes)
    if upper < tables.REMATCH:
        best = spread
        for neighbours in (False, True):
            m = _Programme(players, sizes, score, seen, upper, seconds)
            if not m.build(repeats=False, neighbours=neighbours, cliques=_cliques(players, seen, disjoint=False)):
                return upper  # nobody fits a window narrow enough to beat ``upper``
            found = m.solve()
            if found is None:
                return upper
            best = max(best, math.ceil(found - 1e-6))  # every split's cost is an integer
            if best >= upper:
                break
        return min(best, upper)
    return max(1, _least_repeats(players, sizes, seen, seconds)) * tables.REMATCH + spread


def _least_repeats(players, sizes, seen, seconds) -> int:
    """A lower bound of the repeats of any split (HiGHS's proven bound of the least number, a
    pair counted as often as it met, as ``table_cost`` does): x[p, t] seats p at table t, y[p, q, t] is at least
    x[p, t] + x[q, t] - 1 for each pair who met. Any split can have its tables numbered in the
    order of their first players, so when the tables are alike the i-th player sits at one of the
    first i + 1; else the first player sits at the first table of its size. Either spares the
    search orders of the tables that change nothing."""
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    h.setOptionValue("time_limit", seconds)
    h.setOptionValue("mip_max_nodes", NODES)
    h.setOptionValue("mip_rel_gap", 0.0)
    binary = highspy.HighsVarType.kInteger

    def var(obj=0.0):
        v = h.addVariable(lb=0, ub=1, obj=obj)
        h.changeColIntegrality(v.index, binary)
        return v

    n_tables = range(len(sizes))
    x = {(p, t): var() for p in players for t in n_tables}
    for p in players:
        h.addConstr(sum(x[p, t] for t in n_tables) == 1)
    for t in n_tables:
        h.addConstr(sum(x[p, t] for p in players) == sizes[t])
    if len(set(sizes)) == 1:  # tables alike: numbered by their first player, the i-th sits at one of the first i + 1
        for i, p in enumerate(players):
            for t in n_tables:
                if t > i:
                    h.addConstr(x[p, t] == 0)
    else:
        firsts = {sizes.index(k) for k in set(sizes)}
        for t in n_tables:
            if t not in firsts:
                h.addConstr(x[players[0], t] == 0)
    pairs = [(a, b) for a, b in itertools.combinations(players, 2) if seen[frozenset((a, b))]]
    y = {}
    for a, b in pairs:
        for t in n_tables:
            y[a, b, t] = y[b, a, t] = var(float(seen[frozenset((a, b))]))
            h.addConstr(y[a, b, t] - x[a, t] - x[b, t] >= -1)
    for clique in _cliques(players, seen, disjoint=False):  # the pigeonhole (the module's docstring)
        q, r = divmod(len(clique), len(sizes))
        together = r * (q + 1) * q // 2 + (len(sizes) - r) * q * (q - 1) // 2
        if together:
            h.addConstr(sum(y[a, b, t] for a, b in itertools.combinations(clique, 2) for t in n_tables) >= together)
    h.run()
    return math.ceil(h.getInfo().mip_dual_bound - 1e-6)
