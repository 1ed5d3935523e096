"""Project_Kin: the two-player skirmish (Standard, Demolition, To Kingdom Come).

Every interpretation is written down in RULES.md, next to the rulebook sentence
it interprets. The board is a graph loaded from data/board.json and validated at
import; the piece counts come from data/pieces.json.
"""

from __future__ import annotations

import functools
import json
import os
from collections import deque
from collections.abc import Callable
from typing import Any, Final, NoReturn

from games.engine import IllegalAction, event, fill_seats, seat_ref

SLUG = "project_kin"
NAME = "Project_Kin"
MIN_PLAYERS = 2
MAX_PLAYERS = 2

SEAT_NAMES = ["Red", "Blue"]
PREFIX: Final = ["r", "b"]
SPECIALS = ["wall", "sage", "bulldozer"]
NODE_KINDS = {"base", "guard", "track", "loop", "turret", "retake", "ambush", "bomb", "objective"}

OPTIONS_SCHEMA: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "properties": {
        "mode": {
            "type": "string", "enum": ["standard", "demolition"], "default": "standard",
            "title": "Game mode",
            "description": "Standard: a bomb only starts its countdown when it is stolen. "
                           "Demolition: every picked-up bomb starts the countdown on the turn tracker. "
                           "(CTF is named by the rulebook but not described, so it is not offered.)",
        },
        "variant": {
            "type": "string", "enum": ["none", "to_kingdom_come"], "default": "none",
            "title": "Variant",
            "description": "To Kingdom Come adds the King (lose it and you lose), ability points, "
                           "Walls, Sages and Bulldozers.",
        },
        "fuse_seconds": {
            "type": ["integer", "null"], "minimum": 0, "maximum": 604800, "default": None,
            "title": "Wall-clock bomb fuse (seconds)",
            "description": "If set, a picked-up bomb also goes off when this many real seconds have "
                           "passed since it was picked up. Empty or 0: no wall-clock fuse.",
        },
        "turn_limit": {
            "type": "integer", "minimum": 20, "maximum": 2000, "default": 400,
            "title": "Turn limit",
            "description": "The game is a draw when this many turns (of either player, extra turns "
                           "included) have been played without a winner.",
        },
    },
}

DEFAULTS = {k: v["default"] for k, v in OPTIONS_SCHEMA["properties"].items()}

HERE = os.path.dirname(os.path.abspath(__file__))


# --------------------------------------------------------------------------- data loading

def _fail(path: str, problem: str) -> NoReturn:
    raise ValueError(f"{os.path.basename(path)}: {problem}")


def _read_object(path, what):
    """A data file's JSON object, or a ValueError naming the file."""
    try:
        with open(path, encoding="utf-8") as fh:
            raw = json.load(fh)
    except (OSError, json.JSONDecodeError) as exc:
        _fail(path, f"cannot be read as JSON ({exc})")
    if not isinstance(raw, dict):
        _fail(path, f"{what} must be a JSON object")
    return raw


def load_board(path: str) -> dict[str, Any]:
    """Read and validate a board file; returns the board with derived adjacency.

    The checks run in the order the file's parts depend on each other, and the first one that
    fails names the problem."""
    raw = _read_object(path, "the board")
    nodes, edges = _board_lists(path, raw)
    byid = _checked_nodes(path, nodes)
    _check_turrets(path, nodes, byid)
    kinds: dict[str, list[Any]] = {}
    for nd in nodes:
        kinds.setdefault(nd["kind"], []).append(nd)
    base = _one_per_seat(path, kinds, "base")
    guard = _one_per_seat(path, kinds, "guard")
    loop = _one_per_seat(path, kinds, "loop")
    _check_unique_nodes(path, kinds)
    fwd, back, adjacent = _links(path, edges, byid)
    _check_ambushes(path, kinds, edges)
    for s in (0, 1):
        if not any(x == guard[s] and k == "solid" for x, k in fwd[s][base[s]]):
            _fail(path, f"guard {guard[s]!r} must be directly connected (forward) to base {base[s]!r}")
    for s in (0, 1):
        # the loop home counts as forward and as backward, like a dotted line (RULES.md §4)
        fwd[s][loop[s]].append((base[s], "loop"))
        back[s][loop[s]].append((base[s], "loop"))
    dist = [_forward_distances(path, s, fwd[s], base) for s in (0, 1)]
    tracker = _checked_tracker(path, raw)
    _check_pools(path, raw)
    vb = raw.get("viewbox")
    if not isinstance(vb, list) or len(vb) != 4 or not all(isinstance(v, (int, float)) for v in vb):
        _fail(path, "'viewbox' must be four numbers")
    return {
        "raw": raw, "nodes": byid, "order": [nd["id"] for nd in nodes], "edges": edges,
        "fwd": fwd, "back": back, "adjacent": {k: sorted(v) for k, v in adjacent.items()},
        "base": [base[0], base[1]], "guard": [guard[0], guard[1]], "loop": [loop[0], loop[1]],
        "bomb": kinds["bomb"][0]["id"], "objective": kinds["objective"][0]["id"],
        "retake": {nd["id"] for nd in kinds["retake"]},
        "turrets": {nd["id"]: list(nd["targets"]) for nd in kinds.get("turret", [])},
        "turret_seat": {nd["id"]: nd["seat"] for nd in kinds.get("turret", [])},
        "tracker": tracker["length"], "dist": dist,
    }


def _board_lists(path: str, raw: dict[str, Any]) -> tuple[Any, Any]:
    """The board's nodes and edges, two non-empty lists."""
    nodes = raw.get("nodes")
    edges = raw.get("edges")
    if not isinstance(nodes, list) or not nodes:
        _fail(path, "'nodes' must be a non-empty list")
    if not isinstance(edges, list) or not edges:
        _fail(path, "'edges' must be a non-empty list")
    return nodes, edges


def _checked_nodes(path: str, nodes: Any) -> dict[Any, Any]:
    """{node id: node}, each node checked on its own: id, kind, coordinates, seat."""
    byid: dict[Any, Any] = {}
    for i, nd in enumerate(nodes):
        if not isinstance(nd, dict):
            _fail(path, f"node #{i} is not an object")
        nid = nd.get("id")
        if not isinstance(nid, str) or not nid:
            _fail(path, f"node #{i} has no string 'id'")
        if nid in byid:
            _fail(path, f"node id {nid!r} is used twice")
        if nd.get("kind") not in NODE_KINDS:
            _fail(path, f"node {nid!r} has unknown kind {nd.get('kind')!r} (expected one of {sorted(NODE_KINDS)})")
        for c in ("x", "y"):
            if not isinstance(nd.get(c), (int, float)) or isinstance(nd.get(c), bool):
                _fail(path, f"node {nid!r} needs a number '{c}' coordinate")
        if nd["kind"] in ("base", "guard", "loop") and nd.get("seat") not in (0, 1):
            _fail(path, f"node {nid!r} of kind {nd['kind']} needs 'seat' 0 or 1")
        byid[nid] = nd
    return byid


def _check_turrets(path: str, nodes: Any, byid: dict[Any, Any]) -> None:
    """A turret aims at existing nodes and belongs to a side."""
    for nd in nodes:
        if nd["kind"] == "turret":
            t = nd.get("targets")
            if not isinstance(t, list) or not t or any(x not in byid for x in t):
                _fail(path, f"turret {nd['id']!r} needs 'targets', a non-empty list of existing node ids")
            if nd.get("seat") not in (0, 1):
                _fail(path, f"turret {nd['id']!r} needs 'seat' 0 or 1 (the side it belongs to)")


def _one_per_seat(path: str, kinds: dict[str, list[Any]], kind: str) -> dict[Any, Any]:
    """{seat: node id} of the one node of ``kind`` each seat has (its base, guard or loop)."""
    store: dict[Any, Any] = {}
    for nd in kinds.get(kind, []):
        if nd["seat"] in store:
            _fail(path, f"seat {nd['seat']} has two {kind} nodes ({store[nd['seat']]!r} and {nd['id']!r})")
        store[nd["seat"]] = nd["id"]
    for s in (0, 1):
        if s not in store:
            _fail(path, f"seat {s} has no {kind} node")
    return store


def _check_unique_nodes(path: str, kinds: dict[str, list[Any]]) -> None:
    """One bomb space, one objective, at least one retake space."""
    for kind in ("bomb", "objective"):
        if len(kinds.get(kind, [])) != 1:
            _fail(path, f"the board needs exactly one {kind} node, found {len(kinds.get(kind, []))}")
    if not kinds.get("retake"):
        _fail(path, "the board needs at least one retake node")


def _links(path: str, edges: Any, byid: dict[Any, Any]) -> tuple[list[Any], list[Any], dict[Any, Any]]:
    """Per seat, each node's forward and backward links [(node, "solid" or "dotted")], and each
    node's neighbours; every edge checked on its own, in file order."""
    fwd: list[Any] = [{nid: [] for nid in byid}, {nid: [] for nid in byid}]
    back: list[Any] = [{nid: [] for nid in byid}, {nid: [] for nid in byid}]
    adjacent: dict[Any, Any] = {nid: set() for nid in byid}
    seen: set[Any] = set()
    for i, e in enumerate(edges):
        if not isinstance(e, dict):
            _fail(path, f"edge #{i} is not an object")
        a: Any = e.get("a")  # any JSON value until the line below checks it
        b: Any = e.get("b")
        if a not in byid or b not in byid or a == b:
            _fail(path, f"edge #{i} must join two different existing nodes (got {a!r}, {b!r})")
        key = tuple(sorted((a, b)))
        if key in seen:
            _fail(path, f"edge #{i} joins {a!r} and {b!r} a second time")
        seen.add(key)
        adjacent[a].add(b)
        adjacent[b].add(a)
        _link_edge(path, e, a, b, fwd, back)
    return fwd, back, adjacent


def _link_edge(path: str, e: dict[Any, Any], a: Any, b: Any, fwd: list[Any], back: list[Any]) -> None:
    """A dotted edge goes either way for both seats; a solid one has a forward direction per seat."""
    style = e.get("style")
    if style == "dotted":
        for s in (0, 1):
            fwd[s][a].append((b, "dotted"))
            fwd[s][b].append((a, "dotted"))
            back[s][a].append((b, "dotted"))
            back[s][b].append((a, "dotted"))
    elif style == "solid":
        f = e.get("forward")
        if not isinstance(f, list) or len(f) != 2 or any(x not in ("ab", "ba") for x in f):
            _fail(path, f"solid edge {a!r}-{b!r} needs 'forward': [dir for seat 0, dir for seat 1], each 'ab' or 'ba'")
        for s in (0, 1):
            x, y = (a, b) if f[s] == "ab" else (b, a)
            fwd[s][x].append((y, "solid"))
            back[s][y].append((x, "solid"))
    else:
        _fail(path, f"edge {a!r}-{b!r} has style {style!r}; expected 'solid' or 'dotted'")


def _check_ambushes(path: str, kinds: dict[str, list[Any]], edges: Any) -> None:
    for nd in kinds.get("ambush", []):
        inc = [e for e in edges if nd["id"] in (e["a"], e["b"])]
        if not inc or any(e["style"] != "dotted" for e in inc):
            _fail(path, f"ambush {nd['id']!r} must be connected to the paths only by dotted edges")


def _forward_distances(path: str, s: int, fwd: dict[Any, Any], base: dict[Any, Any]) -> dict[Any, int]:
    """Seat ``s``'s forward distance (moves along forward, dotted and loop links) from each node
    to the enemy base; the seat's own base must reach it."""
    target = base[1 - s]
    d = {target: 0}
    q = deque([target])
    rev: dict[Any, list[Any]] = {nid: [] for nid in fwd}
    for x in fwd:
        for y, _k in fwd[x]:
            rev[y].append(x)
    while q:
        y = q.popleft()
        for x in rev[y]:
            if x not in d:
                d[x] = d[y] + 1
                q.append(x)
    if base[s] not in d:
        _fail(path, f"seat {s} cannot reach the enemy base {target!r} moving forward from {base[s]!r}")
    return d


def _checked_tracker(path: str, raw: dict[str, Any]) -> Any:
    tracker = raw.get("tracker")
    if not isinstance(tracker, dict) or not isinstance(tracker.get("length"), int) or tracker["length"] < 2:
        _fail(path, "'tracker' must be an object with an integer 'length' of at least 2")
    for c in ("x", "y", "w", "h"):
        if not isinstance(tracker.get(c), (int, float)):
            _fail(path, f"'tracker' needs a number '{c}'")
    return tracker


def _check_pools(path: str, raw: dict[str, Any]) -> None:
    """The boxes the pools are drawn in: one per seat for each zone, one for the dice."""
    pools = raw.get("pools")
    if not isinstance(pools, dict):
        _fail(path, "'pools' must be an object")
    for p in ("spawn", "out", "final", "extra"):
        v = pools.get(p)
        if not isinstance(v, list) or len(v) != 2 or not all(isinstance(r, dict) and all(isinstance(r.get(c), (int, float)) for c in "xywh") for r in v):
            _fail(path, f"pools.{p} must be a list of two boxes {{x, y, w, h}} (one per seat)")
    ob = pools.get("object")
    if not isinstance(ob, dict) or not all(isinstance(ob.get(c), (int, float)) for c in "xywh"):
        _fail(path, "pools.object must be a box {x, y, w, h}")


def load_pieces(path):
    raw = _read_object(path, "the pieces file")
    for k in ("pawns", "extra_normals", "king_points"):
        v = raw.get(k)
        if not isinstance(v, int) or isinstance(v, bool) or v < 0:
            _fail(path, f"{k!r} must be a non-negative integer")
    if raw["pawns"] < 2:
        _fail(path, "'pawns' must be at least 2")
    sp = raw.get("specials")
    if not isinstance(sp, dict) or set(sp) != set(SPECIALS) or not all(isinstance(v, int) and v >= 0 for v in sp.values()):
        _fail(path, f"'specials' must give a non-negative count for each of {SPECIALS}")
    pts = raw.get("sage_points")
    if not isinstance(pts, dict) or set(pts) != {"normal", "final", "special"} or not all(isinstance(v, int) and v >= 0 for v in pts.values()):
        _fail(path, "'sage_points' must give non-negative integers for normal, final and special")
    return raw


BOARD: Final[dict[str, Any]] = load_board(os.path.join(HERE, "data", "board.json"))
PIECES: Final[dict[str, Any]] = load_pieces(os.path.join(HERE, "data", "pieces.json"))


# --------------------------------------------------------------------------- helpers

def _clone(state):
    """A copy of this game's state that ``evolve`` can update without touching ``state``: evolve
    replaces every value it changes (never edits one in place), so a shallow copy is enough."""
    return dict(state) if state else {}


def _opts(state):
    return state["options"]


def _tkc(state):
    return state["options"]["variant"] == "to_kingdom_come"


ZONES: Final = ("spawn", "out", "final", "extra")
_TYPES: Final = {"F": "final", "K": "king", "x": "normal", "w": "wall", "s": "sage", "d": "bulldozer"}


def ptype(pid: str) -> str:
    c = pid[1]
    return "normal" if c.isdigit() else _TYPES[c]


def pseat(pid: str) -> int:
    return 0 if pid[0] == "r" else 1


@functools.lru_cache(maxsize=None)
def _mk_cached(pid, loc):
    board = loc not in ZONES
    return (("id", pid), ("seat", pseat(pid)), ("type", ptype(pid)), ("zone", "board" if board else loc),
            ("at", loc if board else None))


# the piece dicts of _mk_cached, made once: copying a dict is quicker than building one from pairs
_MK: Final[dict[tuple[str, str], dict[str, Any]]] = {}


def _mk(pid: str, loc: str) -> dict[str, Any]:
    key = (pid, loc)
    found = _MK.get(key)
    if found is None:
        found = _MK[key] = dict(_mk_cached(pid, loc))
    return dict(found)


_POS_CACHE: Final[dict[str, dict[str, str]]] = {}


def positions(state: dict[str, Any]) -> dict[str, str]:
    """Where every piece is: {piece id: node id or zone}. Read-only (shared, cached).

    The state keeps this as one text ("r1:RB r2:spawn ...") so that copying a state is cheap.
    """
    text: str = state["pos"]
    found = _POS_CACHE.get(text)
    if found is None:
        found = dict(item.split(":", 1) for item in text.split())
        _remember(_POS_CACHE, text, found, _RECENT)
    return found


def encode_positions(pos):
    return " ".join(f"{k}:{v}" for k, v in pos.items())


# what is read of a position text (and the legal actions) is read again within a turn or two:
# a few hundred entries are plenty, and keep the memory they hold small
_RECENT: Final = 256


def _remember(cache: dict[Any, Any], key: Any, value: Any, size: int = 4096) -> None:
    if len(cache) > size:
        cache.clear()
    cache[key] = value


def _setpos(state: dict[str, Any], moves: dict[str, str]) -> None:
    """Moves pieces: ``moves`` is {piece id: node id or zone}."""
    old = positions(state)
    pos = dict(old)
    pos.update(moves)
    text: str = state["pos"]
    new = (_edited(text, moves) if len(pos) == len(old) else None) or encode_positions(pos)
    if new not in _POS_CACHE:  # the new text's positions, known without parsing it
        _remember(_POS_CACHE, new, pos, _RECENT)
    state["pos"] = new
    if len(moves) == 1 and new not in _FACTS and (facts := _FACTS.get(text)) is not None:
        # the commonest move, one piece to a free node: its facts follow from the last ones
        ((pid, loc),) = moves.items()
        moved = facts.moved(pid, old.get(pid), loc)
        if moved is not None:
            _remember(_FACTS, new, moved, _RECENT)


def _pieces(state):
    return [_mk(pid, loc) for pid, loc in positions(state).items()]


def _piece(state, pid):
    loc = positions(state).get(pid) if pid else None
    return None if loc is None else _mk(pid, loc)


def _on_board(state, seat=None):
    return [_mk(pid, loc) for pid, loc in positions(state).items()
            if loc not in ZONES and (seat is None or pseat(pid) == seat)]


def _occupant(state, node):
    if node in ZONES:
        return next((_mk(pid, loc) for pid, loc in positions(state).items() if loc == node), None)
    pid = _occ_map(state).get(node)
    return None if pid is None else _mk(pid, node)


def _zone(state, seat, zone):
    return [_mk(pid, loc) for pid, loc in positions(state).items() if loc == zone and pseat(pid) == seat]


_NOTHING: Final[frozenset[str]] = frozenset()
# per seat, the guard nodes of the other side
_ENEMY_GUARDS: Final = [frozenset(n for n, nd in BOARD["nodes"].items() if nd["kind"] == "guard" and nd["seat"] != seat)
                 for seat in (0, 1)]


class _Facts:
    """What the rules read of one position text, found in one scan and cached like ``positions``
    (read-only, shared): the end-of-turn checks and the legal moves read it after every move.

    census: per seat, pieces in the Out Pool, pieces on the board, whether the King is in its
    spawn pool; occ: {node: piece id} of the pieces on the board; on_board: per seat, the ids of
    its pieces on the board, sorted.
    """

    __slots__ = ("census", "occ", "on_board", "walls", "_blockers")

    census: tuple[tuple[int, ...], tuple[int, ...], tuple[bool, ...]]
    occ: dict[str, str]
    on_board: tuple[list[str], list[str]]
    walls: bool
    _blockers: list[frozenset[str] | None]

    def __init__(self, pos: dict[str, str] | None = None) -> None:
        if pos is None:  # moved() fills the fields itself (a compiled class has no object.__new__)
            return
        out: list[int] = [0, 0]
        board: list[int] = [0, 0]
        king_lost: list[bool] = [False, False]
        occ: dict[str, str] = {}
        on_board: tuple[list[str], list[str]] = ([], [])
        walls = False
        for pid, loc in pos.items():
            seat = 0 if pid[0] == "r" else 1
            if loc == "out":
                out[seat] += 1
            elif loc == "spawn":
                if pid[1] == "K":
                    king_lost[seat] = True
            elif loc not in ZONES:
                board[seat] += 1
                occ.setdefault(loc, pid)  # the first, as a scan of the positions finds it
                on_board[seat].append(pid)
                walls = walls or pid[1] == "w"
        self.census = (tuple(out), tuple(board), tuple(king_lost))
        self.occ = occ
        on_board[0].sort()
        on_board[1].sort()
        self.on_board = on_board
        self.walls = walls  # a Wall on the board
        self._blockers = [None, None]

    def moved(self, pid: str, frm: str | None, to: str) -> _Facts | None:
        """These facts once ``pid`` has moved from board node ``frm`` to a free board node ``to``,
        without a scan; None for any other change (then the new text is scanned)."""
        occ, board = self.occ, self.census[1]
        if frm is None or frm in ZONES or to in ZONES or occ.get(frm) != pid or to in occ or len(occ) != board[0] + board[1]:
            return None  # not such a move, or two pieces share a node
        new = _Facts()
        new.census, new.on_board, new.walls = self.census, self.on_board, self.walls  # the same pieces on the board
        nocc = dict(occ)
        del nocc[frm]
        nocc[to] = pid
        new.occ = nocc
        new._blockers = [None, None]
        return new

    def blockers(self, seat: int) -> frozenset[str]:
        """The nodes a piece of ``seat`` may not move past: an enemy piece on the other side's
        guard, or an enemy Wall."""
        found = self._blockers[seat]
        if found is None:
            mine: str = PREFIX[seat]
            guards: frozenset[str] = _ENEMY_GUARDS[seat]
            occ = self.occ
            hits: list[str] = []
            if self.walls:
                for node, pid in occ.items():
                    if pid[0] != mine and (node in guards or pid[1] == "w"):  # "w": a Wall
                        hits.append(node)
            else:
                for g in guards:
                    if occ.get(g, mine)[0] != mine:
                        hits.append(g)
            found = frozenset(hits) if hits else _NOTHING
            self._blockers[seat] = found
        return found


_FACTS: Final[dict[str, _Facts]] = {}


def _facts(state: dict[str, Any]) -> _Facts:
    text: str = state["pos"]
    found = _FACTS.get(text)
    if found is None:
        found = _Facts(positions(state))
        _remember(_FACTS, text, found, _RECENT)
    return found


def _census(state: dict[str, Any]) -> tuple[tuple[int, ...], tuple[int, ...], tuple[bool, ...]]:
    return _facts(state).census


def _out_count(state, seat):
    return _census(state)[0][seat]


def _is_special(p):
    return p["type"] in ("king", "wall", "sage", "bulldozer")


def _active_limit_reached(state: dict[str, Any], seat: int) -> bool:
    """Two enemy pieces out: this seat may only have three active pieces."""
    out, board, _king_lost = _census(state)
    return out[1 - seat] >= 2 and board[seat] >= 3


def turns_left(state):
    cd = state["bomb"].get("countdown")
    if not cd:
        return None
    return BOARD["tracker"] - cd["pos"]


def _edited(text: str, moves: dict[str, str]) -> str | None:
    """``text`` with the locations of the moved pieces replaced in place (what encoding the
    updated positions gives, without re-encoding every piece); None if a piece is not found."""
    text = " " + text
    for pid, loc in moves.items():
        start = text.find(f" {pid}:")
        if start < 0:
            return None
        start += len(pid) + 2
        end = text.find(" ", start)
        text = text[:start] + loc + (text[end:] if end >= 0 else "")
    return text[1:]


def _occ_map(state: dict[str, Any]) -> dict[str, str]:
    return _facts(state).occ


def _blockers(state, seat):
    return _facts(state).blockers(seat)


_DESTINATIONS: Final[dict[tuple[int, str, int, bool, frozenset[str]], dict[str, tuple[str, list[str]]]]] = {}


def _destinations(state, p, roll, blockers=None):
    """Reachable end nodes for piece p with a roll: {dest: (direction, path)}. Read-only (shared:
    the walk depends only on the cache key, so it is made once)."""
    seat = p["seat"]
    if blockers is None:
        blockers = _blockers(state, seat)
    return _reach(seat, p["id"], p["type"], p["at"], roll, state["bomb"]["carrier"], blockers)


def _reach(seat: int, pid: str, typ: str, at: str, roll: int, carrier: Any,
           blockers: frozenset[str]) -> dict[str, tuple[str, list[str]]]:
    """``_destinations`` from the piece's parts (no piece dict), in node order."""
    steps = 1 if typ == "wall" else roll
    back: bool = roll == 1 or typ in ("final", "king") or carrier == pid  # who may move backward
    key = (seat, at, steps, back, blockers)
    found = _DESTINATIONS.get(key)
    if found is None:
        found = _walk(seat, at, steps, back, blockers)
        _remember(_DESTINATIONS, key, found)
    return found


def _walk(seat: int, start: str, steps: int, back: bool,
          blockers: frozenset[str]) -> dict[str, tuple[str, list[str]]]:
    enemy_base: str = BOARD["base"][1 - seat]
    found: dict[str, tuple[str, list[str]]] = {}
    for d in ("forward", "backward") if back else ("forward",):
        adj: dict[str, list[tuple[str, str]]] = BOARD["fwd"][seat] if d == "forward" else BOARD["back"][seat]
        stack: list[tuple[str, int, list[str]]] = [(start, steps, [start])]
        while stack:
            node, left, path = stack.pop()
            for nxt, kind in adj[node]:
                if nxt in path:
                    continue
                npath = path + [nxt]
                rem = left - 1
                if kind in ("dotted", "loop") or rem == 0:
                    found.setdefault(nxt, (d, npath))
                    continue
                if nxt == enemy_base or nxt in blockers:
                    continue  # must land exactly there
                stack.append((nxt, rem, npath))
    return dict(sorted(found.items()))  # in node order: the order of the legal moves


def _enemy_base_dir(seat, node):
    """The forward solid step a bulldozer (or its push) takes toward the enemy base."""
    best = None
    dist = BOARD["dist"][seat]
    for nxt, kind in BOARD["fwd"][seat][node]:
        if kind != "solid" or nxt not in dist:
            continue
        if best is None or dist[nxt] < dist[best]:
            best = nxt
    return best


# --------------------------------------------------------------------------- legal actions

def _move_actions(state: dict[str, Any], seat: int) -> list[dict[str, Any]]:
    t = state["turn"]
    roll, only = t["roll"], t.get("piece")
    pos = positions(state)
    facts = _facts(state)
    out: list[dict[str, Any]] = []
    occmap = facts.occ
    blockers = facts.blockers(seat)
    carrier = state["bomb"]["carrier"]
    points = state["points"][seat]
    for pid in facts.on_board[seat]:
        if only and pid != only:
            continue
        typ = ptype(pid)
        if typ == "bulldozer":
            continue
        at: str = pos[pid]
        p = None  # the piece's dict, made only when a move needs more than its plain item
        for dest in _reach(seat, pid, typ, at, roll, carrier, blockers):
            opid = occmap.get(dest)
            if opid is None:
                out.append(_plain_move(pid, dest))
                continue
            base, label = _move_texts(pid, dest)
            p = p or _mk(pid, at)
            occ = _mk(opid, dest)
            if occ["seat"] != seat:
                act = {"type": "move", "piece": p["id"], "to": dest}
                if state["bomb"]["carrier"] == occ["id"]:
                    out.append(_item(base + " steal", label + ", taking the bomb carrier and stealing the bomb", dict(act, bomb="steal")))
                    out.append(_item(base + " reset", label + ", taking the bomb carrier and resetting the bomb", dict(act, bomb="reset")))
                else:
                    out.append(_item(base, label + f", taking {_pname(occ)}", act))
                continue
            # a friendly piece on the destination
            if p["type"] == "sage" and _tkc(state):
                out.append(_item(base + " eat", label + f" and eat {_pname(occ)} for ability points",
                                 {"type": "move", "piece": p["id"], "to": dest, "eat": True}))
            elif (p["type"] == "normal" and occ["type"] == "king" and _tkc(state) and points >= 1
                  and _zone(state, seat, "extra") and any(q["type"] == "normal" for q in _zone(state, seat, "extra"))
                  and not _active_limit_reached(state, seat)):
                for f, kind in BOARD["fwd"][seat][dest]:
                    if kind != "solid" or f == p["at"]:
                        continue
                    focc = _occupant(state, f)
                    if focc is not None and focc["seat"] == seat:
                        continue
                    for b, bkind in BOARD["back"][seat][dest]:
                        if bkind != "solid" or (_occupant(state, b) is not None and b != p["at"]) or b == f:
                            continue
                        out.append(_item(f"{base} split {f} {b}",
                                         f"Split: {_pname(p)} lands on the King, moves on to {_nname(f)}, a new piece appears on {_nname(b)}",
                                         {"type": "move", "piece": p["id"], "to": dest, "split": [f, b]}))
        if typ == "wall" and not only:
            # "can move up to 1 space": zero is allowed, except for a Wall just spawned ("must be moved")
            p = p or _mk(pid, at)
            out.append(_item(f"stay {p['id']}", f"Leave {_pname(p)} where it is",
                             {"type": "stay", "piece": p["id"]}))
    return out


# (piece, node) -> texts or item, made once (a few thousand pairs at most): plain dicts, which a
# compiled module reads without a call through functools.lru_cache
_MOVE_TEXTS: Final[dict[tuple[str, str], tuple[str, str]]] = {}
_PLAIN_MOVES: Final[dict[tuple[str, str], dict[str, Any]]] = {}


def _move_texts(pid: str, dest: str) -> tuple[str, str]:
    """The notation and label of moving a piece to a node (the same texts every time)."""
    key = (pid, dest)
    found = _MOVE_TEXTS.get(key)
    if found is None:
        found = _MOVE_TEXTS[key] = (f"move {pid} {dest}", f"Move {_pname(_mk(pid, 'spawn'))} to {_nname(dest)}")
    return found


def _plain_move(pid: str, dest: str) -> dict[str, Any]:
    """The item of a move to an empty node: the same every time, so one shared item (lists of
    legal actions are read-only; ``legal_actions`` hands out copies)."""
    key = (pid, dest)
    found = _PLAIN_MOVES.get(key)
    if found is None:
        base, label = _move_texts(pid, dest)
        found = _PLAIN_MOVES[key] = _item(base, label, {"type": "move", "piece": pid, "to": dest})
    return found


def _item(notation: str, label: str, action: dict[str, Any]) -> dict[str, Any]:
    return {"notation": notation, "label": label, "action": action}


_ROLL: Final = _item("roll", "Roll the d4 and move", {"type": "roll"})
# shared items, like every item of the cached lists of legal actions
_SPAWN: Final = {k: _item("spawn", "Spawn a piece on your base and move it", {"type": "spawn", "kind": k}) if k == "normal"
          else _item(f"spawn {k}", f"Spawn your {k} piece on your base" + ("" if k == "bulldozer" else " and move it"),
                     {"type": "spawn", "kind": k})
          for k in ("normal", "final", "king", *SPECIALS)}


def _start_actions(state: dict[str, Any], seat: int) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = [_ROLL]
    base = BOARD["base"][seat]
    if base not in _occ_map(state) and not _active_limit_reached(state, seat):
        mine = PREFIX[seat]
        kinds = sorted({ptype(pid) for pid, loc in positions(state).items() if loc == "spawn" and pid[0] == mine},
                       key=_type_order)
        out.extend(_SPAWN[k] for k in kinds)
    bomb = state["bomb"]
    carrier = _piece(state, bomb["carrier"]) if bomb["carrier"] else None
    if carrier is not None and carrier["seat"] == seat:
        if carrier["at"] == BOARD["objective"]:
            out.append(_item("deliver", "Deliver the bomb from the objective point (you win)", {"type": "deliver"}))
        for pid in _chain(state, carrier):
            q = _piece(state, pid)
            out.append(_item(f"pass {pid}", f"Pass the bomb along the chain to {_pname(q)} on {_nname(q['at'])}",
                             {"type": "pass", "to": pid}))
    if _tkc(state) and state["points"][seat] >= 1:
        king = next((p for p in _on_board(state, seat) if p["type"] == "king"), None)
        if king is not None:
            extra_types = sorted({p["type"] for p in _zone(state, seat, "extra") if p["type"] in SPECIALS}, key=_type_order)
            if extra_types:
                for x, y in _jumps(state, king):
                    over = _occupant(state, x)
                    for k in extra_types:
                        out.append(_item(f"special {over['id']} {y} {k}",
                                         f"Spawn Special: the King jumps over {_pname(over)} to {_nname(y)} and makes it a {k}",
                                         {"type": "special", "over": over["id"], "to": y, "make": k}))
            if _opts(state)["mode"] == "demolition" and carrier is not None and carrier["seat"] == seat \
                    and carrier["id"] != king["id"] and carrier["at"] in BOARD["adjacent"][king["at"]] \
                    and (bomb.get("countdown") or bomb.get("fuse")):
                out.append(_item(f"defuse {carrier['id']}", f"Defuse the bomb carried by {_pname(carrier)}",
                                 {"type": "defuse", "carrier": carrier["id"]}))
    return out


def _jumps(state, king):
    seat = king["seat"]
    res = []
    for adjname in ("fwd", "back"):
        adj = BOARD[adjname][seat]
        for x, kind in adj[king["at"]]:
            if kind != "solid":
                continue
            occ = _occupant(state, x)
            if occ is None or occ["seat"] != seat or occ["type"] != "normal":
                continue
            for y, k2 in adj[x]:
                if k2 != "solid" or y == king["at"] or _occupant(state, y) is not None:
                    continue
                if BOARD["nodes"][y]["kind"] == "base":
                    continue
                res.append((x, y))
    return sorted(set(res))


def _chain(state, carrier):
    seat = carrier["seat"]
    seen = {carrier["at"]}
    q = deque([carrier["at"]])
    found = []
    while q:
        n = q.popleft()
        for m in BOARD["adjacent"][n]:
            if m in seen:
                continue
            occ = _occupant(state, m)
            if occ is not None and occ["seat"] == seat:
                seen.add(m)
                found.append(occ["id"])
                q.append(m)
    return sorted(found)


_TYPE_ORDER: Final = {k: i for i, k in enumerate(["normal", "final", "king", "wall", "sage", "bulldozer"])}


def _type_order(k):
    return _TYPE_ORDER[k]


_LEGAL_CACHE: Final[dict[Any, Any]] = {}


def _copy_action(action: dict[str, Any]) -> dict[str, Any]:
    a = dict(action)
    if "split" in a:
        a["split"] = list(a["split"])
    return a


def legal_actions(state, seat):
    return [{"notation": i["notation"], "label": i["label"], "action": _copy_action(i["action"])}
            for i in _legal(state, seat)]


def _legal(state, seat):
    """``legal_actions`` without the copies: shared, read-only (bots and ``decide`` only read it)."""
    return _legal_entry(state, seat)[0]


_NO_LEGAL: Final[tuple[Any, Any]] = ((), ())


def _legal_entry(state, seat):
    """The shared legal items and, in the same order, their actions (``decide`` checks an action
    with one ``in``)."""
    if not state or state.get("result") or seat is None:
        return _NO_LEGAL
    t = state["turn"]
    if t["seat"] != seat:
        return _NO_LEGAL
    bomb = state["bomb"]
    # everything the legal actions depend on; the points, the mode and the bomb's countdown and
    # fuse only with To Kingdom Come (ability points: specials, splits, defusing)
    key = (seat, state["pos"], t["phase"], t["roll"], t.get("piece"), bomb["carrier"],
           (tuple(state["points"]), state["options"]["mode"], bool(bomb.get("fuse")), bool(bomb.get("countdown")))
           if _tkc(state) else None)
    found = _LEGAL_CACHE.get(key)
    if found is None:
        items = _start_actions(state, seat) if t["phase"] == "start" else _move_actions(state, seat)
        found = (items, [i["action"] for i in items])
        _remember(_LEGAL_CACHE, key, found, _RECENT)
    return found


# --------------------------------------------------------------------------- setup

def check_players(n, options):
    if n != 2:
        raise IllegalAction("Project_Kin is a game for exactly 2 players.")
    _normalise(options)


def _normalise(options):
    options = dict(options or {})
    unknown = set(options) - set(DEFAULTS)
    if unknown:
        raise IllegalAction(f"Unknown option(s): {', '.join(sorted(unknown))}.")
    o = dict(DEFAULTS)
    o.update(options)
    if o["mode"] not in ("standard", "demolition"):
        raise IllegalAction("The mode must be standard or demolition (CTF is not available).")
    if o["variant"] not in ("none", "to_kingdom_come"):
        raise IllegalAction("The variant must be none or to_kingdom_come.")
    fs = o["fuse_seconds"]
    if fs is not None and (not isinstance(fs, int) or isinstance(fs, bool) or fs < 0):
        raise IllegalAction("The fuse must be a whole number of seconds, or empty for no fuse.")
    o["fuse_seconds"] = fs or None
    tl = o["turn_limit"]
    if not isinstance(tl, int) or isinstance(tl, bool) or not 20 <= tl <= 2000:
        raise IllegalAction("The turn limit must be a whole number between 20 and 2000.")
    return o


def setup(n, options, rng):
    check_players(n, options)
    o = _normalise(options)
    tkc = o["variant"] == "to_kingdom_come"
    pieces = []
    for s in (0, 1):
        pre = PREFIX[s]
        for i in range(1, PIECES["pawns"] + 1):
            pieces.append({"id": f"{pre}{i}", "seat": s, "type": "normal",
                           "zone": "board" if i == 1 else "spawn", "at": BOARD["base"][s] if i == 1 else None})
        pieces.append({"id": f"{pre}F", "seat": s, "type": "final", "zone": "final", "at": None})
        if tkc:
            pieces[-1 - PIECES["pawns"]].update(zone="extra", at=None)  # the first normal piece steps aside
            pieces.append({"id": f"{pre}K", "seat": s, "type": "king", "zone": "board", "at": BOARD["base"][s]})
            for i in range(1, PIECES["extra_normals"] + 1):
                pieces.append({"id": f"{pre}x{i}", "seat": s, "type": "normal", "zone": "extra", "at": None})
            for k in SPECIALS:
                for i in range(1, PIECES["specials"][k] + 1):
                    pieces.append({"id": f"{pre}{'d' if k == 'bulldozer' else k[0]}{i}", "seat": s, "type": k, "zone": "extra", "at": None})
    rolloff = []
    while True:
        a, b = rng.randint(1, 4), rng.randint(1, 4)
        rolloff.append([a, b])
        if a != b:
            break
    first = 0 if a > b else 1
    points = [PIECES["king_points"], PIECES["king_points"]] if tkc else [0, 0]
    return [event("setup", options=o, pieces=pieces, points=points, rolloff=rolloff, first=first)]


# --------------------------------------------------------------------------- evolve

_State = dict[str, Any]
_Data = dict[str, Any]  # an event's data: events are {"type": str, "data": dict} (games.engine.event)
# the bomb back on its space: nobody carries it, no countdown, no fuse
_BOMB_GONE: Final[dict[str, Any]] = {"carrier": None, "countdown": None, "fuse": False}


def evolve(state, e: dict[str, Any]):
    t = e.get("type")
    handler = EVOLVE.get(t) if isinstance(t, str) else None
    if handler is None or not (state or t == "setup"):
        return state  # an event this engine does not know, or one before the game's setup
    return handler(state, e.get("data", {}))


def _on_setup(state: Any, d: _Data) -> _State:
    """The only event that makes a state rather than updating one."""
    return {
        "options": d["options"], "pos": encode_positions({p["id"]: (p["at"] if p["zone"] == "board" else p["zone"]) for p in d["pieces"]}), "points": list(d["points"]),
        "bomb": {"carrier": None, "pickup": 0, "fuse": False, "countdown": None},
        "turn": {"seat": d["first"], "number": 1, "phase": "start", "roll": None, "piece": None, "extra": False},
        "result": None, "last_roll": None, "last_move": None,
    }


def _on_turn(state: _State, d: _Data) -> _State:
    state["turn"] = {"seat": d["seat"], "number": d["number"], "phase": "start", "roll": None,
                     "piece": None, "extra": False}
    return state


def _on_rolled(state: _State, d: _Data) -> _State:
    state["turn"] = {**state["turn"], "phase": "move", "roll": d["value"], "piece": d.get("piece")}
    state["last_roll"] = [d["seat"], d["value"]]
    return state


def _on_spawned(state: _State, d: _Data) -> _State:
    _setpos(state, {d["piece"]: d["at"]})
    return state


def _on_moved(state: _State, d: _Data) -> _State:
    _setpos(state, {d["piece"]: d["to"]})
    state["last_move"] = [d["piece"], d["frm"], d["to"]]
    return state


def _on_pushed(state: _State, d: _Data) -> _State:
    _setpos(state, {d["piece"]: d["to"]})
    return state


def _off_board(state: _State, piece: str, where: str) -> _State:
    """``piece`` leaves the board for ``where`` ("spawn", "out"), and the bomb it carried with it."""
    _setpos(state, {piece: where})
    if state["bomb"]["carrier"] == piece:
        _set_bomb(state, _BOMB_GONE)
    return state


def _on_captured(state: _State, d: _Data) -> _State:
    return _off_board(state, d["piece"], "spawn")


def _on_eaten(state: _State, d: _Data) -> _State:
    """Captured by a friendly Sage, which gains the points."""
    _on_captured(state, d)
    _add_points(state, d["seat"], d["points"])
    return state


def _on_went_out(state: _State, d: _Data) -> _State:
    return _off_board(state, d["piece"], "out")


def _on_final_piece(state: _State, d: _Data) -> _State:
    pos = positions(state)
    _setpos(state, {d["piece"]: pos[d["replaces"]], d["replaces"]: "final"})
    if state["bomb"]["carrier"] == d["replaces"]:
        _set_bomb(state, {"carrier": d["piece"]})
    return state


def _on_bomb_picked(state: _State, d: _Data) -> _State:
    _set_bomb(state, {"carrier": d["piece"], "pickup": d["pickup"], "fuse": bool(d.get("fuse")),
                      "countdown": {"from": d["seat"], "pos": 0} if d.get("countdown") else None})
    return state


def _on_bomb_stolen(state: _State, d: _Data) -> _State:
    _set_bomb(state, {"carrier": d["piece"], "pickup": d["pickup"], "fuse": bool(d.get("fuse")),
                      "countdown": {"from": d["seat"], "pos": 0}})
    return state


def _on_bomb_taken(state: _State, d: _Data) -> _State:
    """A Sage ate a friendly carrier and keeps the bomb."""
    _set_bomb(state, {"carrier": d["piece"]})
    return state


def _on_bomb_reset(state: _State, d: _Data) -> _State:
    _set_bomb(state, _BOMB_GONE)
    return state


def _on_bomb_passed(state: _State, d: _Data) -> _State:
    _set_bomb(state, {"carrier": d["to"]})
    return state


def _on_countdown(state: _State, d: _Data) -> _State:
    countdown = state["bomb"]["countdown"]
    if countdown:
        _set_bomb(state, {"countdown": {**countdown, "pos": d["pos"]}})
    return state


def _on_detonated(state: _State, d: _Data) -> _State:
    _setpos(state, {pid: "spawn" for pid in d["killed"]})
    _set_bomb(state, _BOMB_GONE)
    return state


def _on_defused(state: _State, d: _Data) -> _State:
    _set_bomb(state, {"countdown": None, "fuse": False})
    _add_points(state, d["seat"], -1)
    return state


def _on_special(state: _State, d: _Data) -> _State:
    _add_points(state, d["seat"], -1)
    pos = positions(state)
    _setpos(state, {d["piece"]: pos[d["over"]], d["over"]: "extra"})
    if state["bomb"]["carrier"] == d["over"]:
        _set_bomb(state, {"carrier": d["piece"]})
    return state


def _on_split(state: _State, d: _Data) -> _State:
    _add_points(state, d["seat"], -1)
    _setpos(state, {d["piece"]: d["at"]})
    return state


def _on_retake(state: _State, d: _Data) -> _State:
    state["turn"] = {**state["turn"], "extra": True}
    return state


def _on_game_over(state: _State, d: _Data) -> _State:
    state["result"] = {"winners": list(d["winners"]), "reason": d["reason"]}
    return state


def _unchanged(state: _State, d: _Data) -> _State:
    """Events that only tell what happened: the events around them change the state."""
    return state


# event type -> how it changes the state (in place: ``_clone`` says why that is safe)
EVOLVE: Final[dict[str, Callable[[Any, _Data], _State]]] = {
    "setup": _on_setup,
    "turn": _on_turn,
    "rolled": _on_rolled,
    "spawned": _on_spawned,
    "pushed": _on_pushed,
    "moved": _on_moved,
    "captured": _on_captured,
    "eaten": _on_eaten,
    "went_out": _on_went_out,
    "final_piece": _on_final_piece,
    "bomb_picked": _on_bomb_picked,
    "bomb_stolen": _on_bomb_stolen,
    "bomb_taken": _on_bomb_taken,
    "bomb_reset": _on_bomb_reset,
    "bomb_passed": _on_bomb_passed,
    "countdown": _on_countdown,
    "detonated": _on_detonated,
    "defused": _on_defused,
    "special": _on_special,
    "split": _on_split,
    "retake": _on_retake,
    "game_over": _on_game_over,
    "no_move": _unchanged,
    "stayed": _unchanged,
    "turret_fired": _unchanged,
    "delivered": _unchanged,
    "resigned": _unchanged,
}


def _set_bomb(state: Any, changes: dict[str, Any]) -> None:
    state["bomb"] = {**state["bomb"], **changes}  # replaced, not edited: see _clone


def _add_points(state, seat, n):
    points = list(state["points"])  # replaced, not edited: see _clone
    points[seat] += n
    state["points"] = points


# --------------------------------------------------------------------------- decide

class _B:
    """Builds the events of one command while applying them to a working copy."""

    __slots__ = ("s", "events")

    s: dict[str, Any]
    events: list[dict[str, Any]]

    def __init__(self, state: Any) -> None:
        self.s = _clone(state)
        self.events = []

    def ev(self, type_: str, data: dict[str, Any]) -> dict[str, Any]:
        """Records and applies the event ``type_`` with ``data`` (a fresh dict, kept as it is)."""
        e = {"type": type_, "data": data}  # games.engine.event, without a second call
        self.events.append(e)
        self.s = evolve(self.s, e)
        return e


def decide(state, seat, action, rng):
    return _decide(state, seat, action, rng).events


def decide_state(state, seat, action, rng):
    """``decide``'s events and the state after them (``games.engine``: optional contract): decide
    applies each event to its working copy anyway, so the caller need not evolve them again."""
    b = _decide(state, seat, action, rng)
    return b.events, b.s


def _decide(state: Any, seat: Any, action: Any, rng: Any) -> _B:
    """The command's builder: its events, and its working copy of the state after them."""
    if not state:
        raise IllegalAction("The game has not started.")
    if not isinstance(action, dict) or not isinstance(action.get("type"), str):
        raise IllegalAction("That is not an action this game understands.")
    if state.get("result"):
        raise IllegalAction("The game is over.")
    typ: str = action["type"]
    if seat is None:
        return _fuse_goes_off(state, typ, action)
    if seat not in (0, 1):
        raise IllegalAction("There is no such seat in this game.")
    if typ == "resign":  # at any time, on either seat's turn
        b = _B(state)
        b.ev("resigned", {"seat": seat})
        b.ev("game_over", {"winners": [1 - seat], "reason": f"{seat_ref(seat)} resigned"})
        return b
    _check_turn_action(state, seat, typ, action)
    b = _B(state)
    handler = ACTIONS.get(typ)
    if handler is not None:
        handler(b, seat, action, rng)
    return b


def _fuse_goes_off(state: Any, typ: str, action: dict[str, Any]) -> _B:
    """The system's only action: a live bomb's wall-clock fuse runs out."""
    if typ != "detonate":
        raise IllegalAction("Only the bomb fuse acts for the system.")
    bomb = state["bomb"]
    if not (bomb["carrier"] and bomb.get("fuse") and action.get("pickup") == bomb["pickup"]
            and _opts(state)["fuse_seconds"]):
        raise IllegalAction("That fuse belongs to a bomb that is no longer live; nothing happens.")
    b = _B(state)
    _detonate(b, "fuse")
    if not b.s["result"] and b.s["turn"]["phase"] == "move" and not _move_actions(b.s, b.s["turn"]["seat"]):
        b.ev("no_move", {"seat": b.s["turn"]["seat"], "value": b.s["turn"]["roll"]})
        _end_turn(b)
    return b


def _check_turn_action(state: Any, seat: Any, typ: str, action: dict[str, Any]) -> None:
    """Refuses, with the reason a player needs, an action that is not one of the seat's legal ones."""
    if typ == "detonate":
        raise IllegalAction("Only the fuse can set off the bomb.")
    if state["turn"]["seat"] != seat:
        raise IllegalAction("It is not your turn.")
    if action not in _legal_entry(state, seat)[1]:
        if typ == "move" and state["turn"]["phase"] == "start":
            raise IllegalAction("Roll the die (or spawn) before moving.")
        if typ in ("roll", "spawn") and state["turn"]["phase"] == "move":
            raise IllegalAction("You have already rolled: choose one of your moves.")
        raise IllegalAction("That move is not allowed now.")


def _act_roll(b: _B, seat: int, action: dict[str, Any], rng: Any) -> None:
    b.ev("rolled", {"seat": seat, "value": rng.randint(1, 4)})
    _after_roll(b, seat)


def _act_spawn(b: _B, seat: int, action: dict[str, Any], rng: Any) -> None:
    kind, mine = action["kind"], PREFIX[seat]
    pid = min(pid for pid, loc in positions(b.s).items() if loc == "spawn" and pid[0] == mine and ptype(pid) == kind)
    b.ev("spawned", {"seat": seat, "piece": pid, "at": BOARD["base"][seat]})
    if kind == "bulldozer":
        _end_turn(b)
    else:
        b.ev("rolled", {"seat": seat, "value": rng.randint(1, 4), "piece": pid})
        _after_roll(b, seat)


def _act_move(b: _B, seat: int, action: dict[str, Any], rng: Any) -> None:
    _do_move(b, seat, action)
    if not b.s["result"]:
        _end_turn(b)


def _act_stay(b: _B, seat: int, action: dict[str, Any], rng: Any) -> None:
    b.ev("stayed", {"seat": seat, "piece": action["piece"], "at": _piece(b.s, action["piece"])["at"]})
    _end_turn(b)


def _act_pass(b: _B, seat: int, action: dict[str, Any], rng: Any) -> None:
    b.ev("bomb_passed", {"seat": seat, "frm": b.s["bomb"]["carrier"], "to": action["to"]})
    _end_turn(b)


def _act_deliver(b: _B, seat: int, action: dict[str, Any], rng: Any) -> None:
    b.ev("delivered", {"seat": seat, "piece": b.s["bomb"]["carrier"]})
    b.ev("game_over", {"winners": [seat], "reason": f"{seat_ref(seat)} delivered the bomb from the objective point"})


def _act_special(b: _B, seat: int, action: dict[str, Any], rng: Any) -> None:
    king = next(p for p in _on_board(b.s, seat) if p["type"] == "king")
    new = sorted((q for q in _zone(b.s, seat, "extra") if q["type"] == action["make"]), key=lambda q: q["id"])[0]
    frm = king["at"]
    b.ev("special", {"seat": seat, "over": action["over"], "piece": new["id"], "make": action["make"]})
    b.ev("moved", {"seat": seat, "piece": king["id"], "frm": frm, "to": action["to"], "path": [frm, _piece(b.s, new["id"])["at"], action["to"]]})
    _land_effects(b, seat, king["id"], action["to"])
    if not _check_end(b):
        _end_turn(b)


def _act_defuse(b: _B, seat: int, action: dict[str, Any], rng: Any) -> None:
    b.ev("defused", {"seat": seat, "piece": action["carrier"]})
    _end_turn(b)


# action type -> the events a legal action of that type makes (``_check_turn_action`` first)
ACTIONS: Final[dict[str, Callable[[_B, int, dict[str, Any], Any], None]]] = {
    "roll": _act_roll,
    "spawn": _act_spawn,
    "move": _act_move,
    "stay": _act_stay,
    "pass": _act_pass,
    "deliver": _act_deliver,
    "special": _act_special,
    "defuse": _act_defuse,
}


def _after_roll(b: _B, seat: int) -> None:
    if not _legal(b.s, seat):
        b.ev("no_move", {"seat": seat, "value": b.s["turn"]["roll"]})
        _end_turn(b)


def _do_move(b: _B, seat: int, action: dict[str, Any]) -> None:
    p = _piece(b.s, action["piece"])
    dest = action["to"]
    d, path = _destinations(b.s, p, b.s["turn"]["roll"])[dest]
    occ = _occupant(b.s, dest)
    b.ev("moved", {"seat": seat, "piece": p["id"], "frm": p["at"], "to": dest, "path": list(path), "direction": d})
    if action.get("split"):
        f, back = action["split"]
        new = sorted((q for q in _zone(b.s, seat, "extra") if q["type"] == "normal"), key=lambda q: q["id"])[0]
        b.ev("split", {"seat": seat, "piece": new["id"], "at": back, "king": occ["id"]})
        focc = _occupant(b.s, f)
        b.ev("moved", {"seat": seat, "piece": p["id"], "frm": dest, "to": f, "path": [dest, f], "direction": "forward"})
        took_carrier = focc is not None and b.s["bomb"]["carrier"] == focc["id"]
        if focc is not None:
            b.ev("captured", {"seat": seat, "piece": focc["id"], "at": f, "by": p["id"]})
        _land_effects(b, seat, p["id"], f, pickup=not took_carrier)  # that bomb resets, it is not taken
        _check_end(b)
        return
    if occ is not None:
        was_carrier = b.s["bomb"]["carrier"] == occ["id"]
        if occ["seat"] == seat:  # a Sage eats a friendly piece
            pts = PIECES["sage_points"]["special" if _is_special(occ) else occ["type"]]
            if was_carrier:  # taken over first, so the countdown and the fuse keep running
                b.ev("bomb_taken", {"seat": seat, "piece": p["id"]})
            b.ev("eaten", {"seat": seat, "piece": occ["id"], "at": dest, "by": p["id"], "points": pts})
        else:
            b.ev("captured", {"seat": seat, "piece": occ["id"], "at": dest, "by": p["id"]})
            if was_carrier:
                if action.get("bomb") == "steal":
                    pid = b.s["bomb"]["pickup"] + 1
                    b.ev("bomb_stolen", {"seat": seat, "piece": p["id"], "pickup": pid,
                         "fuse": bool(_opts(b.s)["fuse_seconds"]), "turns": BOARD["tracker"]})
                else:
                    b.ev("bomb_reset", {"seat": seat, "reason": "the carrier was taken"})
                    # letting it reset is not taking it, even on the bomb space itself
                    _land_effects(b, seat, p["id"], dest, pickup=False)
                    _check_end(b)
                    return
    _land_effects(b, seat, p["id"], dest)
    _check_end(b)


def _land_effects(b: _B, seat: int, pid: str, dest: str, pickup: bool = True) -> None:
    s = b.s
    if dest == BOARD["base"][1 - seat]:
        carrier = s["bomb"]["carrier"] == pid
        b.ev("went_out", {"seat": seat, "piece": pid})
        if carrier:
            b.ev("bomb_reset", {"seat": seat, "reason": "the carrier left the board"})
        _maybe_final(b, seat)
        return
    if pickup and dest == BOARD["bomb"] and s["bomb"]["carrier"] is None:
        pid_ = s["bomb"]["pickup"] + 1
        demo = _opts(s)["mode"] == "demolition"
        b.ev("bomb_picked", {"seat": seat, "piece": pid, "pickup": pid_, "fuse": bool(_opts(s)["fuse_seconds"]),
             "countdown": demo, "turns": BOARD["tracker"] if demo else None})
    if dest in BOARD["retake"]:
        b.ev("retake", {"seat": seat, "piece": pid, "at": dest})


def _maybe_final(b: _B, seat: int) -> None:
    s = b.s
    if _out_count(s, seat) != 3:
        return
    final = next((p for p in _pieces(s) if p["seat"] == seat and p["type"] == "final" and p["zone"] == "final"), None)
    if final is None:
        return
    normals = sorted((p for p in _pieces(s) if p["seat"] == seat and p["type"] == "normal" and p["zone"] == "spawn"),
                     key=lambda q: q["id"])
    normals = normals or sorted((p for p in _on_board(s, seat) if p["type"] == "normal"), key=lambda q: q["id"])
    if normals:
        b.ev("final_piece", {"seat": seat, "piece": final["id"], "replaces": normals[0]["id"]})


def _detonate(b: _B, cause: str) -> None:
    s = b.s
    carrier = _piece(s, s["bomb"]["carrier"])
    at = carrier["at"]
    killed = [carrier["id"]] + [occ["id"] for n in BOARD["adjacent"][at] if (occ := _occupant(s, n)) is not None]
    b.ev("detonated", {"at": at, "carrier": carrier["id"], "killed": killed, "cause": cause, "pickup": s["bomb"]["pickup"]})
    _check_end(b)


# per seat, (turret, its owner, target) of the other side's turrets, in board order
_TURRET_SHOTS: Final = [[(tnode, BOARD["turret_seat"][tnode], target) for tnode, targets in BOARD["turrets"].items()
                  if BOARD["turret_seat"][tnode] != seat for target in targets] for seat in (0, 1)]


def _end_turn(b: _B) -> None:
    s = b.s
    seat = s["turn"]["seat"]
    # 1. bulldozers move one space toward the enemy base
    if _tkc(s):
        for pid in sorted(q["id"] for q in _on_board(s, seat) if q["type"] == "bulldozer"):
            p = _piece(b.s, pid)
            if p["zone"] != "board":
                continue
            nxt = _enemy_base_dir(seat, p["at"])
            if nxt is None:
                continue
            occ = _occupant(b.s, nxt)
            if occ is not None and occ["seat"] == seat:
                continue
            if occ is not None:
                push = _enemy_base_dir(seat, nxt)
                if push is not None and _occupant(b.s, push) is None and push != BOARD["base"][seat]:
                    b.ev("pushed", {"seat": seat, "piece": occ["id"], "frm": nxt, "to": push, "by": p["id"]})
                else:
                    b.ev("captured", {"seat": seat, "piece": occ["id"], "at": nxt, "by": p["id"], "pushed": True})
            b.ev("moved", {"seat": seat, "piece": p["id"], "frm": p["at"], "to": nxt, "path": [p["at"], nxt], "direction": "forward", "bulldozer": True})
            if nxt == BOARD["base"][1 - seat]:
                b.ev("went_out", {"seat": seat, "piece": p["id"]})
                _maybe_final(b, seat)
            if _check_end(b):
                return
    # 2. the other side's turrets fire at the mover's pieces that end the turn on their targets
    for tnode, owner, target in _TURRET_SHOTS[seat]:
        victim = _occ_map(b.s).get(target)
        if victim is not None and pseat(victim) == seat:
            b.ev("turret_fired", {"seat": owner, "turret": tnode, "target": target, "piece": victim})
            b.ev("captured", {"seat": owner, "piece": victim, "at": target, "by": tnode})
    if _check_end(b):
        return
    # 3. the turn tracker counts down a live bomb
    cd = b.s["bomb"].get("countdown")
    if cd and b.s["bomb"]["carrier"]:
        if cd["pos"] >= BOARD["tracker"] - 1:
            _detonate(b, "countdown")
            if b.s["result"]:
                return
        else:
            b.ev("countdown", {"pos": cd["pos"] + 1, "left": BOARD["tracker"] - cd["pos"] - 1})
    # 4. the turn limit
    number = b.s["turn"]["number"]
    if number >= _opts(b.s)["turn_limit"]:
        b.ev("game_over", {"winners": [], "reason": f"the turn limit of {number} turns was reached"})
        return
    nxt = seat if b.s["turn"]["extra"] else 1 - seat
    b.ev("turn", {"seat": nxt, "number": number + 1, "extra": nxt == seat})


def _check_end(b: _B) -> bool:
    s = b.s
    if s["result"]:
        return True
    losers = set()
    reasons = []
    out, board, king_lost = _census(s)
    if out[0] < PIECES["pawns"] and out[1] < PIECES["pawns"] and not king_lost[0] and not king_lost[1] \
            and (out[0] or board[0]) and (out[1] or board[1]):
        return False  # the common case, decided without building the texts below
    for seat in (0, 1):
        if out[seat] >= PIECES["pawns"]:
            b.ev("game_over", {"winners": [seat], "reason": f"{seat_ref(seat)} got all their pawns to the enemy base"})
            return True
    for seat in (0, 1):
        if king_lost[seat]:
            losers.add(seat)
            reasons.append(f"{seat_ref(seat)}'s King was eliminated")
    for seat in (0, 1):
        if seat not in losers and out[seat] == 0 and not board[seat]:
            losers.add(seat)
            reasons.append(f"{seat_ref(seat)} has no piece left on the board")
    if not losers:
        return False
    winners = [x for x in (0, 1) if x not in losers]
    b.ev("game_over", {"winners": winners, "reason": "; ".join(reasons)})
    return True


# --------------------------------------------------------------------------- queries

def to_act(state):
    if not state or state.get("result"):
        return {}
    return {state["turn"]["seat"]: {"kind": "turn", "default": None, "seconds": None}}


def timers(state):
    if not state or state.get("result"):
        return []
    bomb = state["bomb"]
    fs = state["options"].get("fuse_seconds")
    if fs and bomb["carrier"] and bomb.get("fuse"):
        return [{"key": f"fuse:{bomb['pickup']}", "seconds": fs,
                 "action": {"type": "detonate", "pickup": bomb["pickup"]}}]
    return []


def result(state):
    if not state or not state.get("result"):
        return None
    winners = state["result"]["winners"]
    if len(winners) == 1:
        ranks = [1 if s in winners else 2 for s in (0, 1)]
        scores = [1 if s in winners else 0 for s in (0, 1)]
        summary = f"{seat_ref(winners[0])} ({SEAT_NAMES[winners[0]]}) wins: {state['result']['reason']}."
    else:
        ranks, scores = [1, 1], [0, 0]
        summary = f"Draw: {state['result']['reason']}."
    return {"ranks": ranks, "scores": scores, "winners": winners, "summary": summary}


def view(state, seat):
    if not state:
        return {}
    bomb = state["bomb"]
    carrier = _piece(state, bomb["carrier"]) if bomb["carrier"] else None
    return {
        "you": seat,
        "options": dict(state["options"]),
        "pieces": _pieces(state),
        "points": list(state["points"]),
        "out": [_out_count(state, 0), _out_count(state, 1)],
        "active": [len(_on_board(state, 0)), len(_on_board(state, 1))],
        "immune": [_out_count(state, 0) >= 1, _out_count(state, 1) >= 1],
        "limited": [_out_count(state, 1) >= 2, _out_count(state, 0) >= 2],
        "bomb": {
            "carrier": bomb["carrier"], "at": carrier["at"] if carrier else BOARD["bomb"],
            "on_space": carrier is None, "pickup": bomb["pickup"],
            "countdown_from": bomb["countdown"]["from"] if bomb.get("countdown") else None,
            "tracker_pos": bomb["countdown"]["pos"] if bomb.get("countdown") else None,
            "turns_left": turns_left(state), "tracker_length": BOARD["tracker"],
            "fuse_seconds": state["options"]["fuse_seconds"] if (carrier and bomb.get("fuse")) else None,
        },
        "turn": dict(state["turn"]),
        "turn_limit": state["options"]["turn_limit"],
        "last_roll": state.get("last_roll"),
        "last_move": state.get("last_move"),
        "moves": [{"notation": a["notation"], "label": a["label"], "action": a["action"]}
                  for a in legal_actions(state, seat)] if seat is not None else [],
        "result": result(state),
    }


def redact(e, seat):
    """Perfect information: every event is public, as is."""
    return json.loads(json.dumps(e))


# --------------------------------------------------------------------------- describe

def _pname(p):
    if p is None:
        return "?"
    kind = {"normal": "piece", "final": "final piece", "king": "King", "wall": "Wall",
            "sage": "Sage", "bulldozer": "Bulldozer"}[p["type"]]
    return f"{SEAT_NAMES[p['seat']]} {kind} {p['id']}"


def _nname(n):
    nd = BOARD["nodes"].get(n)
    if nd is None:
        return str(n)
    return nd.get("label") or n


def describe(e, names):
    if e is None:
        return ""
    t = e.get("type")
    builder = DESCRIBE.get(t) if isinstance(t, str) else None
    if builder is None:
        return t or ""
    return builder(e.get("data", {}), names)


def _who(names: Any, s: Any) -> Any:
    """A seat's player name (as given: the caller's names need not be texts), or its colour
    when the names do not say."""
    try:
        return names[s]
    except (IndexError, TypeError, KeyError):
        return SEAT_NAMES[s] if s in (0, 1) else "The system"


def _say_setup(d: _Data, names: Any) -> str:
    rolls = ", ".join(f"{a}-{b}" for a, b in d.get("rolloff", []))
    return (f"The game begins ({d['options']['mode']}, variant {d['options']['variant']}); "
            f"roll-off Red-Blue {rolls}: {_who(names, d['first'])} ({SEAT_NAMES[d['first']]}) starts.")


def _say_rolled(d: _Data, names: Any) -> str:
    extra = f" for {d['piece']}" if d.get("piece") else ""
    return f"{_who(names, d['seat'])} rolled {d['value']}{extra}."


def _say_spawned(d: _Data, names: Any) -> str:
    return f"{_who(names, d['seat'])} spawned {d['piece']} on {_nname(d['at'])}."


def _say_moved(d: _Data, names: Any) -> str:
    how = " (bulldozer)" if d.get("bulldozer") else (" backwards" if d.get("direction") == "backward" else "")
    return f"{_who(names, d['seat'])} moved {d['piece']}{how} from {_nname(d['frm'])} to {_nname(d['to'])}."


def _say_captured(d: _Data, names: Any) -> str:
    return f"{_who(names, d['seat'])} eliminated {d['piece']} on {_nname(d['at'])}; it returns to its spawn pool."


def _say_eaten(d: _Data, names: Any) -> str:
    return f"{_who(names, d['seat'])}'s Sage ate {d['piece']} and gained {d['points']} ability point(s)."


def _say_pushed(d: _Data, names: Any) -> str:
    return f"{_who(names, d['seat'])}'s Bulldozer pushed {d['piece']} to {_nname(d['to'])}."


def _say_went_out(d: _Data, names: Any) -> str:
    return f"{_who(names, d['seat'])} got {d['piece']} to the enemy base: it goes to the Out Pool."


def _say_final_piece(d: _Data, names: Any) -> str:
    return f"{_who(names, d['seat'])} has three pieces out: {d['piece']}, the red final piece, replaces {d['replaces']}."


def _say_bomb_picked(d: _Data, names: Any) -> str:
    tail = f" The countdown starts: {d['turns']} turns." if d.get("countdown") else ""
    return f"{_who(names, d['seat'])} picked up the bomb with {d['piece']}.{tail}"


def _say_bomb_stolen(d: _Data, names: Any) -> str:
    return f"{_who(names, d['seat'])} stole the bomb with {d['piece']}: it detonates in {d['turns']} turns."


def _say_bomb_taken(d: _Data, names: Any) -> str:
    return f"{_who(names, d['seat'])}'s Sage {d['piece']} now carries the bomb."


def _say_bomb_reset(d: _Data, names: Any) -> str:
    return f"The bomb goes back to the bomb space ({d.get('reason', 'reset')})."


def _say_bomb_passed(d: _Data, names: Any) -> str:
    return f"{_who(names, d['seat'])} passed the bomb from {d['frm']} to {d['to']}."


def _say_countdown(d: _Data, names: Any) -> str:
    return f"The turn tracker moves on: the bomb detonates in {d['left']} turn(s)."


def _say_detonated(d: _Data, names: Any) -> str:
    why = "its wall-clock fuse ran out" if d.get("cause") == "fuse" else "the turn tracker ran out"
    return f"The bomb carried by {d['carrier']} detonated on {_nname(d['at'])} ({why}), eliminating {', '.join(d['killed'])}."


def _say_defused(d: _Data, names: Any) -> str:
    return f"{_who(names, d['seat'])}'s King defused the bomb carried by {d['piece']}."


def _say_special(d: _Data, names: Any) -> str:
    return f"{_who(names, d['seat'])}'s King jumped over {d['over']} and made it a {d['make']} ({d['piece']})."


def _say_split(d: _Data, names: Any) -> str:
    return f"{_who(names, d['seat'])} split a piece on the King: {d['piece']} appears on {_nname(d['at'])}."


def _say_retake(d: _Data, names: Any) -> str:
    return f"{_who(names, d['seat'])} landed on a retake space and takes another turn."


def _say_turret_fired(d: _Data, names: Any) -> str:
    return f"{_who(names, d['seat'])}'s turret on {_nname(d['turret'])} shot {d['piece']} on {_nname(d['target'])}."


def _say_stayed(d: _Data, names: Any) -> str:
    return f"{_who(names, d['seat'])} leaves the Wall {d['piece']} on {_nname(d['at'])}."


def _say_no_move(d: _Data, names: Any) -> str:
    return f"{_who(names, d['seat'])} rolled {d['value']} but has no legal move."


def _say_delivered(d: _Data, names: Any) -> str:
    return f"{_who(names, d['seat'])} delivered the bomb from the objective point!"


def _say_turn(d: _Data, names: Any) -> str:
    return f"{'Another' if d.get('extra') else 'Turn ' + str(d['number']) + ':'} turn for {_who(names, d['seat'])}."


def _say_resigned(d: _Data, names: Any) -> str:
    return f"{_who(names, d['seat'])} resigned."


def _say_game_over(d: _Data, names: Any) -> str:
    w = d.get("winners") or []
    why = fill_seats(d["reason"], names)
    return f"Game over: {_who(names, w[0])} wins ({why})." if len(w) == 1 else f"Game over: draw ({why})."


# event type -> its line in the game's log
DESCRIBE: Final[dict[str, Callable[[_Data, Any], str]]] = {
    "setup": _say_setup,
    "rolled": _say_rolled,
    "spawned": _say_spawned,
    "moved": _say_moved,
    "captured": _say_captured,
    "eaten": _say_eaten,
    "pushed": _say_pushed,
    "went_out": _say_went_out,
    "final_piece": _say_final_piece,
    "bomb_picked": _say_bomb_picked,
    "bomb_stolen": _say_bomb_stolen,
    "bomb_taken": _say_bomb_taken,
    "bomb_reset": _say_bomb_reset,
    "bomb_passed": _say_bomb_passed,
    "countdown": _say_countdown,
    "detonated": _say_detonated,
    "defused": _say_defused,
    "special": _say_special,
    "split": _say_split,
    "retake": _say_retake,
    "turret_fired": _say_turret_fired,
    "stayed": _say_stayed,
    "no_move": _say_no_move,
    "delivered": _say_delivered,
    "turn": _say_turn,
    "resigned": _say_resigned,
    "game_over": _say_game_over,
}
