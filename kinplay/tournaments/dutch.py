"""The FIDE (Dutch) system, C.04.3 (2025 rules), for two-player Swiss: pure, no Django, no clock.

``pair(players, history, *, total_rounds) -> (pairs, bye)``

- ``players``: the players to pair, ``[{"player": id, "points": number, "seed": int}]`` (``seed``
  0-based: the pairing number is ``seed + 1``).
- ``history``: the rounds so far, each a list of tables ``{"players": [white, black] | [id],
  "bye": bool, "points": [points scored, per player] | None}``; players who left are in it too.
- ``total_rounds``: the planned number of rounds (top scorers' colour exceptions in the last round).

Returns ``(pairs, bye)``: ``pairs`` a list of ``(white, black)`` in FIDE's board order, ``bye`` the
player with the pairing-allocated bye or None. Raises ``NoPairing`` when the absolute criteria
leave no complete pairing.

How: brackets are paired from the top score down. Each bracket's pairing is a maximum-weight
matching over every player not yet paired (``networkx.max_weight_matching``, exact on Python
ints), whose edge weights encode, most significant first: the completion of the round (every
player paired, the bye to an eligible player of the lowest possible score), the bracket's pairs
and the scores paired (C.5-C.6), the next bracket's (C.7), the colour criteria (C.8-C.11), the
float criteria (C.12-C.19) and, least significant, the order in which FIDE generates candidate
pairings (S1 against S2, then the transpositions). The bracket's pairs are kept, its unpaired
players float down into the next bracket. Colours follow the allocation rules (5.2).

Most brackets never reach the matching (``_shortcut``): a depth-first search in FIDE's order,
pruned by lower bounds on the colour criteria counted from the players' preferences, finds a
pairing that meets every bound, which is then the matching's own answer (see the section's
comment for why); when it cannot show that, the matching decides. The checks that the round can
still be completed match a sparse part of the graph first (each player's nearest compatible
players), the whole graph only when that finds no complete pairing.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from functools import cached_property

import networkx as nx

WHITE, BLACK = "W", "B"
DOWN, UP = "down", "up"


class NoPairing(ValueError):
    """No pairing of the round satisfies the absolute criteria."""


@dataclass(eq=False)
class Player:
    id: int
    tpn: int  # pairing number, 1-based
    score: Fraction
    colours: list[str] = field(default_factory=list)  # played games only, oldest first (set before the colour properties are read)
    opponents: set = field(default_factory=set)
    floats: list[str | None] = field(default_factory=list)  # per round of the history
    bye_ineligible: bool = False
    unplayed: int = 0  # rounds of the history without a game
    rank: int = 0  # position in the ranking (score, then pairing number)

    @cached_property
    def cd(self) -> int:
        return self.colours.count(WHITE) - self.colours.count(BLACK)

    @cached_property
    def repeated(self) -> str | None:
        """The colour of the last two games when they were the same."""
        c = self.colours
        return c[-1] if len(c) >= 2 and c[-1] == c[-2] else None

    @cached_property
    def pref(self) -> str | None:
        cd = self.cd
        if cd > 1:
            return BLACK
        if cd < -1:
            return WHITE
        if self.repeated:
            return _other(self.repeated)
        if cd == 1:
            return BLACK
        if cd == -1:
            return WHITE
        return _other(self.colours[-1]) if self.colours else None

    @cached_property
    def absolute(self) -> bool:
        return abs(self.cd) > 1 or self.repeated is not None

    @cached_property
    def strong(self) -> bool:
        return not self.absolute and self.cd != 0

    def float_back(self, k: int) -> str | None:
        """The float this player had ``k`` rounds ago (1: the last round)."""
        return self.floats[-k] if len(self.floats) >= k else None


def _other(c: str) -> str:
    return BLACK if c == WHITE else WHITE


# ---------------------------------------------------------------- the players from the history


def build_players(players, history) -> list[Player]:
    """Each player's score, colours, opponents, floats and bye eligibility from the history."""
    running: dict = {}  # everybody's score before each round (leavers too: they were opponents)
    out = {p["player"]: Player(p["player"], p["seed"] + 1, Fraction(p["points"])) for p in players}
    for rnd in history:
        before = dict(running)
        seen = set()
        for t in rnd:
            pts = t.get("points") or [0] * len(t["players"])
            for i, pid in enumerate(t["players"]):
                running[pid] = running.get(pid, Fraction(0)) + Fraction(pts[i])
                seen.add(pid)
                me = out.get(pid)
                if me is None:
                    continue
                if t.get("bye") or len(t["players"]) < 2:
                    me.bye_ineligible = True
                    me.unplayed += 1
                    me.floats.append(DOWN if Fraction(pts[i]) > 0 else None)
                    continue
                opp = t["players"][1 - i]
                me.colours.append(WHITE if i == 0 else BLACK)
                me.opponents.add(opp)
                mine, theirs = before.get(pid, Fraction(0)), before.get(opp, Fraction(0))
                me.floats.append(DOWN if mine > theirs else UP if mine < theirs else None)
        for pid, me in out.items():
            if pid not in seen:
                me.unplayed += 1
                me.floats.append(None)
    ranked = sorted(out.values(), key=lambda p: (-p.score, p.tpn))
    for i, p in enumerate(ranked):
        p.rank = i
    return ranked


# ---------------------------------------------------------------- colours


def colours_for(a: Player, b: Player, initial: str = WHITE) -> tuple[Player, Player]:
    """(white, black) for a pair, by the colour allocation rules (5.2)."""
    pa, pb = a.pref, b.pref
    if pa is None or pb is None or pa != pb:  # 5.2.1 both preferences can be granted
        if pa is not None:
            return (a, b) if pa == WHITE else (b, a)
        if pb is not None:
            return (b, a) if pb == WHITE else (a, b)
        return _by_rank(a, b, initial)
    # 5.2.2 the stronger preference (both absolute: the wider colour difference)
    sa, sb = _strength(a), _strength(b)
    if sa == sb == 3 and abs(a.cd) != abs(b.cd):
        win = a if abs(a.cd) > abs(b.cd) else b
        return _grant(win, b if win is a else a)
    if sa != sb:
        win = a if sa > sb else b
        return _grant(win, b if win is a else a)
    # 5.2.3 alternate to the most recent game in which one had white and the other black
    for ca, cb in zip(reversed(a.colours), reversed(b.colours)):
        if ca != cb:
            return (a, b) if ca == BLACK else (b, a)
    # 5.2.4 the higher ranked player's preference
    hi, lo = (a, b) if a.rank < b.rank else (b, a)
    return _grant(hi, lo)


def _strength(p: Player) -> int:
    return 3 if p.absolute else 2 if p.strong else 1


def _grant(p: Player, q: Player) -> tuple[Player, Player]:
    return (p, q) if p.pref == WHITE else (q, p)


def _by_rank(a: Player, b: Player, initial: str) -> tuple[Player, Player]:
    """5.2.5: the higher ranked player has the initial colour with an odd pairing number."""
    hi, lo = (a, b) if a.rank < b.rank else (b, a)
    hi_colour = initial if hi.tpn % 2 else _other(initial)
    return (hi, lo) if hi_colour == WHITE else (lo, hi)


def _after(p: Player, colour: str) -> tuple[int, bool]:
    """(colour difference, three in a row) if ``p`` plays ``colour`` now."""
    cd = p.cd + (1 if colour == WHITE else -1)
    return cd, p.repeated == colour


# ---------------------------------------------------------------- the weights


class _Fields:
    """Lexicographic weights: fields appended most significant first, each ``bits`` wide."""

    def __init__(self):
        self.value, self.width = 0, 0

    def add(self, x: int, bits: int):
        self.value = (self.value << bits) | x
        self.width += bits


def pair(players, history, *, total_rounds=None, initial=WHITE):
    ranked = build_players(players, history)
    if not ranked:
        return [], None
    last_round = total_rounds is not None and len(history) + 1 >= total_rounds
    top_line = Fraction(len(history), 2)  # top scorers: more than half the points so far

    def topscorer(p: Player) -> bool:
        return last_round and p.score > top_line

    def compatible(a: Player, b: Player) -> bool:
        if b.id in a.opponents:
            return False
        if a.absolute and b.absolute and a.pref == b.pref:
            return topscorer(a) or topscorer(b)
        return True

    if not any(p.colours or p.bye_ineligible or p.score for p in ranked):
        return _first_round(ranked, initial)
    levels = sorted({p.score for p in ranked}, reverse=True)
    groups = [[p for p in ranked if p.score == s] for s in levels]
    n = len(ranked)
    bits = n.bit_length() + 1
    lvl_bits = bits * len(levels)
    lvl = {s: i for i, s in enumerate(reversed(levels))}  # lowest score: field 0

    def level_weight(p: Player) -> int:
        return 1 << (bits * lvl[p.score])

    bye_ok = _bye_candidates(ranked, compatible)
    pairs: list[tuple[Player, Player]] = []
    mdps: list[Player] = []
    rest = list(ranked)
    bye = None
    for gi in range(len(groups)):
        bracket = mdps + groups[gi]
        nxt = groups[gi + 1] if gi + 1 < len(groups) else []
        if not bracket:
            continue
        got, bye_now = _pair_bracket(bracket, nxt, rest, bye_ok, compatible, level_weight, lvl_bits, bits,
                                     topscorer, len(history), final=not nxt)
        done = {p.id for pr in got for p in pr}
        pairs += got
        mdps = [p for p in bracket if p.id not in done]
        rest = [p for p in rest if p.id not in done]
        if not nxt:
            bye = bye_now
    out = []
    for a, b in pairs:
        w, bl = colours_for(a, b, initial)
        out.append((w, bl))
    out.sort(key=lambda wb: (-max(wb[0].score, wb[1].score), min(wb[0].rank, wb[1].rank)))
    return [(w.id, b.id) for w, b in out], (bye.id if bye else None)


def _first_round(ranked, initial):
    """Nobody has played: one bracket, no colour preference, nothing forbidden. S1 (the top
    half) meets S2 in order, the lowest player has the bye when the field is odd."""
    half = len(ranked) // 2
    pairs = [_by_rank(a, b, initial) for a, b in zip(ranked[:half], ranked[half:2 * half])]
    bye = ranked[-1].id if len(ranked) % 2 else None
    return [(w.id, b.id) for w, b in pairs], bye


def _bye_candidates(ranked, compatible) -> set:
    """Who may get the bye: eligible, of the lowest score with which the round can be completed."""
    if len(ranked) % 2 == 0:
        return set()
    eligible = [p for p in ranked if not p.bye_ineligible]
    for score in sorted({p.score for p in eligible}):
        cands = {p.id for p in eligible if p.score <= score}
        if _completable(ranked, compatible, cands):
            return cands
    raise NoPairing("No player can take the bye and leave a complete pairing.")


def _completable(players, compatible, bye_ok) -> bool:
    """Whether ``players`` can all be paired (one of ``bye_ok`` taking the bye when they are odd):
    a greedy try first, the exact matching when it fails."""
    odd = len(players) % 2 == 1
    free = list(reversed(players))  # the lowest first: they have the fewest partners left
    for bye in ([p for p in free if p.id in bye_ok][:3] if odd else [None]):
        left = [p for p in free if p is not bye]
        while left:
            a = left.pop(0)
            b = next((q for q in left if compatible(a, q)), None)
            if b is None:
                break
            left.remove(b)
        else:
            return True
    return _complete(players, compatible, bye_ok) is not None


def _complete(players, compatible, bye_ok):
    """A pairing of all ``players`` (one of ``bye_ok`` left out when they are odd) by the exact
    matching, as ``{id: partner id}`` (the one left out: ``"bye"``); None when there is none.
    The matching runs first on a sparse part of the graph (each player's few nearest compatible
    players below): a pairing found there is one of the whole graph, but only the whole graph
    can show that there is none."""
    odd = len(players) % 2 == 1
    for near in (8, None) if len(players) > 9 else (None,):
        g = nx.Graph()
        g.add_nodes_from(p.id for p in players)
        g.add_edges_from(_nearest(players, compatible, near))
        if odd:
            g.add_edges_from((p.id, "bye") for p in players if p.id in bye_ok)
        m = nx.max_weight_matching(g, maxcardinality=True)
        if 2 * len(m) == len(players) + odd:
            return {x: y for pr in m for x, y in (pr, pr[::-1])}
    return None


def _nearest(players, compatible, near: int | None):
    """The edges from each player to the ``near`` (None: all) first compatible players after it."""
    for i, a in enumerate(players):
        found = 0
        for b in players[i + 1:]:
            if found == near:
                break
            if compatible(a, b):
                found += 1
                yield a.id, b.id


def _pair_bracket(bracket, nxt, rest, bye_ok, compatible, level_weight, lvl_bits, bits, topscorer, played,
                  *, final):
    """The pairs of one bracket (and, for the last one, the bye), optimal over every criterion
    with the completion of the round kept possible. A heterogeneous bracket in FIDE's order:
    the moved-down players' pairs first, then the remainder as a homogeneous bracket."""
    n_res = sum(1 for p in bracket if p.score == bracket[-1].score)
    mdps = bracket[:len(bracket) - n_res]
    ctx = (nxt, bye_ok, compatible, level_weight, lvl_bits, bits, topscorer, played, final)
    if not mdps:
        return _homogeneous(bracket, bracket, rest, ctx)
    got, bye = _solve(bracket, rest, set(), set(mdps), ctx)
    first = [pr for pr in got if pr[0] in mdps or pr[1] in mdps]
    taken = {p for pr in first for p in pr}
    residents = [p for p in bracket[len(mdps):] if p not in taken]
    left = [p for p in bracket if p not in taken]
    more, bye = _homogeneous(left, residents, [p for p in rest if p not in taken], ctx)
    return first + more, bye


def _homogeneous(bracket, residents, rest, ctx):
    """A homogeneous bracket or remainder (``residents``, in ``bracket``): S1 is its first
    MaxPairs players, as many as the pairs it makes (C.5 and the completion decide how many,
    before any order), the others S2 and the downfloaters among them. Paired with S1 half of it
    first; when that makes fewer pairs (players float down beyond the odd one: a rematch, the
    next bracket's or the bye's needs), again with S1 that many, as the exchanges are counted
    from that S1."""
    half = len(residents) // 2
    got, bye = _solve(bracket, rest, set(residents[:half]), set(residents), ctx)
    if len(got) < half:
        got, bye = _solve(bracket, rest, set(residents[:len(got)]), set(residents), ctx)
    return got, bye


def _solve(bracket, rest, s1, lex, ctx):
    """Maximum-weight matching of ``rest`` with ``bracket`` the bracket being paired: ``s1`` its
    S1 (pairs across S1 and S2 first), ``lex`` the players whose opponents follow FIDE's order.
    The bracket and the next one are matched alone first; when what is left cannot then be
    completed, everybody below takes part (the completion criterion, C.4)."""
    nxt, bye_ok, compatible = ctx[:3]
    quick = _shortcut(bracket, rest, s1, lex, ctx)
    if quick is not None:
        return quick
    if not ctx[-1]:
        got, _, matched = _match(bracket, [p for p in rest if p.score >= nxt[0].score], s1, lex, ctx, full=False)
        # Optimal for the whole round when the players it left (and everybody below) can still
        # all be paired: the next bracket's pairs it counted on are then real.
        if _completable([p for p in rest if p.id not in matched], compatible, bye_ok):
            return got, None
    got, bye, _ = _match(bracket, rest, s1, lex, ctx, full=True)
    return got, bye


def _match(bracket, rest, s1, lex, ctx, *, full):
    nxt, bye_ok, compatible, level_weight, lvl_bits, bits, topscorer, played, final = ctx
    in_b = {p.id for p in bracket}
    in_n = {p.id for p in nxt}
    pos = {p.id: i for i, p in enumerate(bracket)}
    s1_ids = {p.id for p in s1}
    lex_ids = {p.id for p in lex}
    nb = len(bracket)
    pos_bits = max(1, nb.bit_length())
    g = nx.Graph()
    g.add_nodes_from(p.id for p in rest)
    for i, a in enumerate(rest):
        for b in rest[i + 1:]:
            if not compatible(a, b):
                continue
            w = _weight(a, b, in_b, in_n, s1_ids, lex_ids, pos, nb, pos_bits, level_weight, lvl_bits, bits, topscorer,
                        played, bye_ok, full)
            if w:
                g.add_edge(a.id, b.id, weight=w)
    odd = full and len(rest) % 2 == 1
    if odd:
        for p in rest:
            if p.id in bye_ok:
                f = _Fields()
                f.add(1, 2)
                f.add(0, 2 * lvl_bits + 2 * bits)
                f.add(max(0, (1 << bits) - 1 - p.unplayed) if final else 0, bits)  # the most games played
                f.add(0, _low_width(lvl_bits, bits, played, nb, pos_bits) + nb)
                g.add_edge(p.id, "bye", weight=f.value)
    m = nx.max_weight_matching(g, maxcardinality=full)
    if full and 2 * len(m) != len(rest) + (1 if odd else 0):
        raise NoPairing("No complete pairing satisfies the absolute criteria.")
    by_id = {p.id: p for p in rest}
    got, bye = [], None
    matched = {x for pr in m for x in pr}
    for a, b in m:
        if "bye" in (a, b):
            if final:
                bye = by_id[b if a == "bye" else a]
            continue
        if a in in_b and b in in_b:
            pa, pb = by_id[a], by_id[b]
            got.append((pa, pb) if pa.rank < pb.rank else (pb, pa))
    return got, bye, matched


def _low_width(lvl_bits, bits, played, nb, pos_bits) -> int:
    colour = 4 * bits
    floats = (4 * bits + 4 * lvl_bits) if played else 0
    return colour + floats + bits + 2 * pos_bits + 2 * (nb + pos_bits) + nb * pos_bits


def _weight(a, b, in_b, in_n, s1, lex, pos, nb, pos_bits, level_weight, lvl_bits, bits, topscorer, played, bye_ok,
            full=True) -> int:
    if a.rank > b.rank:
        a, b = b, a  # a is the higher ranked
    both_b = a.id in in_b and b.id in in_b
    f = _Fields()
    # Completion first; an edge between two players who could take the bye weighs less, so
    # the bye candidates stay unpaired before anybody else.
    f.add(1 + (a.id not in bye_ok) + (b.id not in bye_ok) if full else 0, 2)
    f.add(1 if both_b else 0, bits)  # C.5: pairs in this bracket
    f.add(level_weight(a) + level_weight(b) if both_b else 0, lvl_bits)  # C.6: scores paired
    into_next = b.id in in_n and (a.id in in_b or a.id in in_n)
    f.add(1 if into_next else 0, bits)  # C.7: the next bracket's pairs
    f.add(level_weight(a) + level_weight(b) if into_next else 0, lvl_bits)
    f.add(0, bits)  # (the bye assignee's games played: bye edges only)
    # Colours (C.8-C.11), inside this bracket only.
    wide = three = missed = missed_strong = 0
    if both_b:
        w, bl = colours_for(a, b)
        for p, c in ((w, WHITE), (bl, BLACK)):
            cd, rep = _after(p, c)
            if topscorer(p) or topscorer(w if p is bl else bl):
                wide += abs(cd) > 2
                three += rep
            if p.pref is not None and p.pref != c:
                missed += 1
                missed_strong += p.strong
    for bad in (wide, three, missed, missed_strong):
        f.add(2 - bad if both_b else 0, bits)
    if played:
        _float_fields(f, a, b, both_b, level_weight, lvl_bits, bits)
    # The order in which FIDE generates candidates: the fewest players exchanged between S1
    # and S2 (a pair without an S1 player, or an S1 player left unpaired, costs one), then the
    # exchange moving the closest pairing numbers (the higher players of the pairs as high as
    # possible), then S1's players in order take the earliest opponent.
    f.add(1 if both_b and (a.id in s1 or b.id in s1) else 0, bits)
    f.add(nb - pos[a.id] if both_b and s1 else 0, 2 * pos_bits)
    # ... then the highest players moved from S1 to S2 (an S1 pair's lower one, an S1 player
    # left over), then the lowest players moved from S2 to S1 (an S2 pair's higher one).
    f.add((1 << nb) - (1 << pos[a.id] if a.id in s1 else 0) if both_b and s1 else 0, nb + pos_bits)
    f.add(1 << (nb - 1 - pos[a.id]) if both_b and s1 and a.id not in s1 and b.id not in s1 else 0, nb + pos_bits)
    order = 0
    if both_b and a.id in lex:
        order = (nb - pos[b.id]) << (pos_bits * (nb - 1 - pos[a.id]))
    f.add(order, nb * pos_bits)
    # Who stays unpaired: the lowest.
    f.add((1 << (nb - 1 - pos[a.id])) + (1 << (nb - 1 - pos[b.id])) if both_b else 0, nb)
    return f.value


def _float_fields(f, a, b, both_b, level_weight, lvl_bits, bits):
    """C.12-C.19: no repeated downfloat or upfloat from the last round (then two rounds
    ago), then the scores of those who repeat one as low as possible."""
    down = a.score > b.score  # a floats down, b up
    for k in (1, 2):
        if not both_b:
            f.add(0, bits)
            f.add(0, bits)
            continue
        f.add((b.float_back(k) == DOWN) + (not down and a.float_back(k) == DOWN), bits)
        f.add(0 if (down and b.float_back(k) == UP) else 1, bits)
    for k in (1, 2):
        if not both_b:
            f.add(0, lvl_bits)
            f.add(0, lvl_bits)
            continue
        # A repeated downfloater paired in the bracket floats less far than one left over.
        ok = (level_weight(b) if b.float_back(k) == DOWN else 0) + (level_weight(a) if a.float_back(k) == DOWN else 0)
        f.add(ok, lvl_bits)
        f.add(0 if (down and b.float_back(k) == UP) else level_weight(a), lvl_bits)


# ---------------------------------------------------------------- the shortcut
#
# Most brackets of a large field need no matching. In a bracket of one score (or with one
# moved-down player) every pairing that pairs all but one has the same C.5-C.6 values, and the
# C.12-C.19 values depend only on who is left over (and the moved-down player's opponent); the
# colour criteria (C.10, C.11) have lower bounds counted from the preferences alone. S1's
# players in order take the first S2 opponent that keeps those bounds reachable (backtracking
# when a rematch blocks the way). A pairing found so meets every bound, so none does better on
# any criterion, it has no exchange, and every earlier opponent was refused only where no
# pairing within the bounds could take it: it is the matching's answer. The checks after it
# (the next bracket can pair the floater, C.7; the rest can still be completed, C.4; both
# exact, a matching deciding when a greedy try fails) keep it so. Whenever the search cannot
# show this (nothing found, a class of floater that the bounds do not rule out, several
# moved-down players, its budget spent), the matching decides.


def _kind(p: Player) -> int:
    """The colour preference as an index of the counts below: white strong (or absolute), white
    mild, black strong, black mild, none."""
    if p.pref is None:
        return 4
    return (0 if p.pref == WHITE else 2) + (0 if p.cd or p.repeated else 1)


def _bound(c: list[int]) -> tuple[int, int]:
    """Lower bounds on (preferences not granted, strong preferences not granted) over every
    pairing of an even set of players with these counts: players beyond those the other colour
    or no preference can take meet their own colour, one of each such pair losing."""
    ws, wm, bs, bm, none = c
    w, b = ws + wm, bs + bm
    missed = max(0, w - b - none, b - w - none) // 2
    strong = max(0, ws - b - none - wm) // 2 + max(0, bs - w - none - bm) // 2
    return missed, strong


def _bound_odd(c: list[int]) -> tuple[int, int]:
    """The same for an odd set, one of which is left unpaired."""
    best = None
    for k in range(5):
        if c[k]:
            c[k] -= 1
            got = _bound(c)
            c[k] += 1
            best = got if best is None or got < best else best
    return best or (0, 0)


def _clash(a: Player, b: Player) -> bool:
    """Both need the same colour absolutely (allowed for the last round's top scorers): one of
    them then has a colour difference beyond 2 or a third colour in a row (C.8, C.9), which no
    pairing the search accepts has, so none of the best pairings has either."""
    return a.absolute and b.absolute and a.pref == b.pref


def _cost(a: Player, b: Player) -> tuple[int, int]:
    """(preferences not granted, strong ones) when ``a`` meets ``b`` (no clash)."""
    if a.pref is None or a.pref != b.pref:
        return 0, 0
    return 1, 1 if (a.cd or a.repeated) and (b.cd or b.repeated) else 0


class _GiveUp(Exception):
    """The search ran past its budget: the matching decides."""


def _bound_two(heads: list[int], pool: list[int], must: list[int]) -> tuple[int, int]:
    """Lower bounds on (preferences not granted, strong ones) when each head takes a player of
    the pool (kind counts ``heads``, ``pool``; ``must``: the pool's players who may not be the
    one left over), as the search pairs: heads of a colour beyond the pool's players of another
    colour (or none) meet their own colour; so do the pool's players of a colour who must be
    paired (all, or all but one) beyond the heads of another colour."""
    n, h = sum(pool), sum(heads)
    spare = n - h

    def meet(hg: int, pg: int, mg: int) -> int:  # pairs within a group (heads, pool, must) at least
        return max(0, hg - (n - pg), max(pg - spare, mg) - (h - hg))

    w = meet(heads[0] + heads[1], pool[0] + pool[1], must[0] + must[1])
    b = meet(heads[2] + heads[3], pool[2] + pool[3], must[2] + must[3])
    return max(w, b), max(meet(heads[0], pool[0], must[0]), meet(heads[2], pool[2], must[2]))


def _search(heads, pool, compatible, counts, target, budget, skip=None, leaf=None):
    """``heads`` in order each take the first compatible player of ``pool`` that keeps the colour
    criteria within ``target`` by the bounds (``counts``: the kinds of every player to pair);
    ``skip(head, opponent)`` refuses an opponent, ``leaf(left)`` the player left over (None
    when all are paired). A depth-first search in that order, so the pairing it returns is the
    first in FIDE's order of those within the target; None when there is none. ``budget`` (a
    one-item list) counts the opponents tried: past it, ``_GiveUp``."""
    return _Search(heads, pool, compatible, counts, target, skip, leaf).run(budget)


class _Search:
    """The search above. What it passes over has no pairing within the target: the branches
    the bounds cut off; the states (the pool's players taken, the costs so far) from which the
    heads left found none before, reached again through other opponents of the heads above;
    and, from its first such state on, the branches that the bound on pairing S1 against S2
    (``_bound_two``) cuts off and the states from which the last heads cannot all be paired (a
    bipartite matching: the bounds do not see rematches). So what it skips changes how soon it
    finds its pairing, never which one. (Until its first dead end a search is usually going
    straight to its pairing, where those two would only cost.)"""

    TAIL = 16  # heads left when the bipartite matching checks a state

    def __init__(self, heads, pool, compatible, counts, target, skip, leaf):
        self.heads, self.pool, self.compatible, self.counts, self.skip = heads, pool, compatible, counts, skip
        self.tm, self.ts = target
        self.bound = _bound if sum(counts) % 2 == 0 else _bound_odd
        self.kinds, self.hk = [_kind(b) for b in pool], [_kind(a) for a in heads]
        self.leaf = leaf
        self.left_ok = [len(pool) == len(heads) or leaf is None or leaf(b) for b in pool]
        self.rest = _counts(pool)  # the pool not taken, and those of it who may not be left over
        self.must = _counts(b for b, ok in zip(pool, self.left_ok) if not ok)
        self.failed: set[tuple[int, int, int]] = set()  # (pool taken, costs): no pairing from there
        self.taken = [False] * len(pool)
        self.mask = self.m = self.s = 0  # mask: the pool's players taken, as bits

    def cost(self, a, b) -> tuple[int, int] | None:
        """What pairing ``a`` with ``b`` costs (``_cost``), None when they may not meet."""
        if not self.compatible(a, b) or _clash(a, b) or (self.skip is not None and self.skip(a, b)):
            return None
        return _cost(a, b)

    def move(self, k: int, by: int):
        """pool[k] taken (1) or given back (-1)."""
        self.mask ^= 1 << k
        self.taken[k] = by > 0
        kind = self.kinds[k]
        self.counts[kind] -= by
        self.rest[kind] -= by
        if not self.left_ok[k]:
            self.must[kind] -= by

    def within(self, dm: int, ds: int) -> bool:
        """Whether the pairs so far, one more costing (dm, ds), and the bounds on the rest fit."""
        lm, ls = self.bound(self.counts)
        if self.m + dm + lm > self.tm or self.s + ds + ls > self.ts:
            return False
        if not self.failed:
            return True
        bm, bs = _bound_two([c - r for c, r in zip(self.counts, self.rest)], self.rest, self.must)
        return self.m + dm + bm <= self.tm and self.s + ds + bs <= self.ts

    def dead(self, i: int) -> bool:
        """Whether heads ``i`` on provably find no pairing from here."""
        if (self.mask, self.m, self.s) in self.failed:
            return True
        if not self.failed or len(self.heads) - i > self.TAIL:
            return False
        pool = [(b, ok) for b, ok, t in zip(self.pool, self.left_ok, self.taken) if not t]
        more_m, more_s = self.m < self.tm, self.s < self.ts

        def fits(a, b) -> bool:  # a pair they could still make, of no further cost past the target
            c = self.cost(a, b)
            return c is not None and (more_m or not c[0]) and (more_s or not c[1])

        return not _can_finish(self.heads[i:], pool, fits)

    def opponent(self, i: int, j: int, budget) -> tuple[int, int, int] | None:
        """(pool index, costs) of head ``i``'s first opponent from pool index ``j`` on within the
        target (taken), or None."""
        a, pool, taken = self.heads[i], self.pool, self.taken
        for k in range(j, len(pool)):
            if taken[k]:
                continue
            budget[0] -= 1
            if budget[0] < 0:
                raise _GiveUp
            c = self.cost(a, pool[k])
            if c is not None:
                self.move(k, 1)
                if self.within(*c):
                    return k, *c
                self.move(k, -1)
        return None

    def run(self, budget):
        heads, pool, counts, hk = self.heads, self.pool, self.counts, self.hk
        stack: list[tuple[int, int, int]] = []  # (pool index, costs) of each head's opponent
        j = 0
        if heads:
            counts[hk[0]] -= 1
        while True:
            i = len(stack)
            if i == len(heads):
                left = [b for b, t in zip(pool, self.taken) if not t]
                if self.leaf is None or self.leaf(left[0] if left else None):
                    return [(heads[k], pool[jk]) for k, (jk, _, _) in enumerate(stack)]
            else:
                got = None if j == 0 and self.dead(i) else self.opponent(i, j, budget)
                if got is not None:
                    stack.append(got)
                    self.m, self.s, j = self.m + got[1], self.s + got[2], 0
                    if i + 1 < len(heads):
                        counts[hk[i + 1]] -= 1
                    continue
                self.failed.add((self.mask, self.m, self.s))
                counts[hk[i]] += 1  # no opponent left: the head before tries its next one
            if not stack:
                return None
            j, dm, ds = stack.pop()
            self.move(j, -1)
            self.m, self.s, j = self.m - dm, self.s - ds, j + 1


def _can_finish(heads, pool, fits) -> bool:
    """Whether each of ``heads`` can take a player of ``pool`` (``(player, may be left over)``)
    that it ``fits``, leaving over (when the pool has one more) one who may be: a bipartite
    matching, as the search's bounds cannot see rematches."""
    g = nx.Graph()
    top = [("head", i) for i in range(len(heads))] + (["spare"] if len(pool) > len(heads) else [])
    g.add_nodes_from(top)
    g.add_nodes_from(range(len(pool)))
    g.add_edges_from((("head", i), k) for i, a in enumerate(heads) for k, (b, _) in enumerate(pool) if fits(a, b))
    if len(pool) > len(heads):
        g.add_edges_from(("spare", k) for k, (_, ok) in enumerate(pool) if ok)
    return len(nx.bipartite.hopcroft_karp_matching(g, top_nodes=top)) == 2 * len(pool)


def _counts(players) -> list[int]:
    c = [0] * 5
    for p in players:
        c[_kind(p)] += 1
    return c


def _floats(p: Player, f: str, played: int) -> tuple[bool, bool]:
    """Whether ``p`` had float ``f`` in the last round, and two rounds ago."""
    return (played >= 1 and p.float_back(1) == f), (played >= 2 and p.float_back(2) == f)


# The float criteria's order for the one left over (C.14, C.16: not a downfloater of the last
# round, then not of the round before) and the moved-down player's opponent (C.15, C.17: not
# an upfloater): best first.
_CLASSES = [(d1, u1, d2, u2) for d1 in (False, True) for u1 in (False, True) for d2 in (False, True)
            for u2 in (False, True)]


def _shortcut(bracket, rest, s1, lex, ctx):
    """(pairs, bye) of the bracket when the search above provably finds the matching's answer,
    else None."""
    nxt, bye_ok, compatible, _, _, _, _, played, final = ctx
    if not bracket:
        return None
    nb = len(bracket)
    score = bracket[-1].score
    budget = [64 * nb + 256]
    if s1:  # a homogeneous bracket (or remainder): S1 against S2
        if len(lex) != nb or any(p.score != score for p in bracket) or s1 != set(bracket[:nb // 2]):
            return None
        mdp, residents = None, bracket
    else:  # one moved-down player: its opponent first, then the remainder as above
        if nb < 2 or len(lex) != 1 or bracket[0] not in lex or any(p.score != score for p in bracket[1:]):
            return None
        mdp, residents = bracket[0], bracket[1:]
    odd = nb % 2 == 1
    least = min((p.unplayed for p in residents if p.id in bye_ok), default=0)

    def leaf_for(cls):
        def leaf(f):
            if f is None:
                return True
            if final and (f.id not in bye_ok or f.unplayed > least):  # C.2, then C.9 (above colours)
                return False
            return _floats(f, DOWN, played) == (cls[0], cls[2])
        return leaf

    classes = _CLASSES if odd else [c for c in _CLASSES if not c[0] and not c[2]]
    if mdp is None:
        classes = [c for c in classes if not c[1] and not c[3]]
    counts = _counts(bracket)
    target = _bound_odd(counts) if odd else _bound(counts)

    def within(players, cls, spent=(0, 0)) -> bool:
        """Whether the bound lets ``players`` be paired within the target, the one left over (if
        odd) of the class: when not, no pairing of theirs can (exchanges or not)."""
        c = _counts(players)
        options = [_bound(c)]
        if len(players) % 2:
            leaf, options = leaf_for(cls), []
            for k in {_kind(p) for p in players if leaf(p)}:
                c[k] -= 1
                options.append(_bound(c))
                c[k] += 1
        return any(spent[0] + m <= target[0] and spent[1] + s <= target[1] for m, s in options)

    # Each class (float criteria, best first) is passed over only when the bound shows it cannot
    # be had within the target; a search that finds nothing proves nothing (it tries no
    # exchanges), so the matching decides then.
    got = None
    try:
        for cls in classes:
            if mdp is None:
                if not within(bracket, cls):
                    continue
                got = _search(bracket[:nb // 2], bracket[nb // 2:], compatible, list(counts), target, budget,
                              leaf=leaf_for(cls))
                if got is None:
                    return None
                break
            for b in residents:
                if not compatible(mdp, b) or _clash(mdp, b) or _floats(b, UP, played) != (cls[1], cls[3]):
                    continue
                left = [p for p in residents if p is not b]
                cost = _cost(mdp, b)
                if not within(left, cls, cost):
                    continue
                half = len(left) // 2
                more = _search(left[:half], left[half:], compatible, _counts(left),
                               (target[0] - cost[0], target[1] - cost[1]), budget, leaf=leaf_for(cls))
                if more is None:
                    return None
                got = [(mdp, b), *more]
                break
            if got is not None:
                break
    except _GiveUp:
        return None
    if got is None:
        return None
    paired = {p for pr in got for p in pr}
    free = [p for p in bracket if p not in paired]
    taken = set(paired)
    bye = None
    if free:
        (f,) = free
        if final:
            bye = f
            taken.add(f)
        else:  # C.7: the floater is paired in the next bracket, which keeps the most pairs
            q = _pair_all([f, *nxt], compatible, spare=len(nxt) % 2 == 0, keep=f)
            if q is None:
                return None
            taken |= q
    if not _completable([p for p in rest if p not in taken], compatible, bye_ok):
        return None
    return got, bye


def _pair_all(players, compatible, *, spare: bool, keep: Player):
    """Players of a pairing of ``players`` with ``keep`` paired and at most one other left over
    when ``spare``: the set of those paired, or None when there is none. A greedy try first,
    the exact matching when it fails (then the one left over is any other than ``keep``)."""
    left = [keep] + [p for p in reversed(players) if p is not keep]
    done = set()
    spared = not spare
    while len(left) > 1 or (left and spared):
        a = left.pop(0)
        b = next((q for q in left if compatible(a, q)), None)
        if b is None:
            if a is keep or spared:
                break
            spared = True
            continue
        left.remove(b)
        done |= {a, b}
    else:
        return done
    m = _complete(players, compatible, {p.id for p in players if p is not keep} if spare else set())
    return None if m is None else {p for p in players if m[p.id] != "bye"}
