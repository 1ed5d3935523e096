"""Kenta: the race whose finish line moves (rulebook: shared/rules/kenta.txt).

Seats are numbered counter-clockwise around the table, so play passes from
seat s to seat s+1 (mod n). Every interpretation is written in RULES.md.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable
from typing import Any, Final

from games.engine import IllegalAction, seat_ref

SLUG = "kenta"
NAME = "Kenta"
# 2: "no marker" is the clock's alone (NO_MARKER): a voter who sends it is refused (games/schema.py)
RULES_VERSION = 2
MIN_PLAYERS = 2
MAX_PLAYERS = 5

OPTIONS_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "additionalProperties": False,
    "properties": {
        "vote_seconds": {
            "type": ["integer", "null"], "minimum": 10, "maximum": 604800, "default": None,
            "title": "Vote window (seconds)",
            "description": "How long players have to hide a black or white marker when the finish "
                           "line (or the tie-break winner) is voted on. Who has not voted in time "
                           "plays no marker. Empty: as long as a move.",
        },
        "reaction_seconds": {
            "type": ["integer", "null"], "minimum": 10, "maximum": 604800, "default": None,
            "title": "STOP window (seconds)",
            "description": "How long the other players have to play a STOP card after an action "
                           "card is announced. Doing nothing lets the card resolve. Empty: as long "
                           "as a move.",
        },
    },
}
# "Each player chooses an identification card": each seat's colour (filled in below, once the
# palette is loaded); only the first N are used and they must differ. Default: the seat colours.
_COLORS_OPTION = {
    "type": "array", "title": "Colours",
    "description": "Each player's colour (identification card), by seat; only the first N count.",
    "minItems": 5, "maxItems": 5,
}

# --------------------------------------------------------------------------------------------
# Data files: loaded and validated at import.

DATA_DIR = os.path.join(os.path.dirname(__file__), "data")
WHO = ("me", "you", "others", "all")


def _read(path):
    name = os.path.basename(path)
    try:
        with open(path, encoding="utf-8") as fh:
            data = json.load(fh)
    except (OSError, ValueError) as exc:
        raise ValueError(f"{name}: cannot be read as JSON ({exc})") from None
    if not isinstance(data, dict):
        raise ValueError(f"{name}: the top level must be an object")
    return name, data


def _int(v):
    return type(v) is int or (isinstance(v, int) and not isinstance(v, bool))


def load_board(path):
    name, data = _read(path)
    length = data.get("length")
    if not _int(length) or length < 10:
        raise ValueError(f"{name}: 'length' must be an integer of at least 10")
    start = data.get("finish_line_start")
    if not _int(start) or not 0 < start:
        raise ValueError(f"{name}: 'finish_line_start' must be a positive integer")
    squares = data.get("squares")
    if not isinstance(squares, list) or len(squares) != length:
        raise ValueError(f"{name}: 'squares' must be a list of exactly {length} squares")
    out = []
    for i, sq in enumerate(squares):
        if not isinstance(sq, dict) or set(sq) != {"color", "arrow", "card", "hot_spot"}:
            raise ValueError(f"{name}: square {i} must have exactly color, arrow, card, hot_spot")
        if sq["color"] not in (None, "black", "white"):
            raise ValueError(f"{name}: square {i} colour must be null, 'black' or 'white'")
        if sq["arrow"] not in ((2, -2) if sq["color"] else (0,)):
            raise ValueError(f"{name}: square {i} arrow must be 2 or -2 on a coloured square, 0 otherwise")
        if not isinstance(sq["card"], bool) or not isinstance(sq["hot_spot"], bool):
            raise ValueError(f"{name}: square {i} card and hot_spot must be true or false")
        if (sq["color"] is not None) + sq["card"] + sq["hot_spot"] > 1:
            raise ValueError(f"{name}: square {i} may be only one of coloured, card or hot spot")
        if i == 0 and (sq["color"] or sq["card"] or sq["hot_spot"]):
            raise ValueError(f"{name}: square 0 is the start square and must be plain")
        out.append(dict(sq))
    if not any(sq["hot_spot"] for sq in out):
        raise ValueError(f"{name}: the board needs at least one hot spot sprint")
    return {"length": length, "finish_line_start": start, "squares": out,
            "hot_spots": [i for i, sq in enumerate(out) if sq["hot_spot"]]}


def load_dice(path):
    name, data = _read(path)
    faces = data.get("faces")
    if not isinstance(faces, list) or len(faces) != 12 or any(f not in (1, 2, 3, 4) for f in faces):
        raise ValueError(f"{name}: 'faces' must list the 12 faces, each 1, 2, 3 or 4 (I–IV)")
    if not all(f in faces for f in (1, 2, 3, 4)):
        raise ValueError(f"{name}: every value I–IV must appear on the die")
    return list(faces)


def load_objectives(path):
    name, data = _read(path)
    colors = data.get("colors")
    if (not isinstance(colors, list) or len(colors) != MAX_PLAYERS
            or len(set(colors)) != MAX_PLAYERS or not all(isinstance(c, str) and c for c in colors)):
        raise ValueError(f"{name}: 'colors' must list {MAX_PLAYERS} different player colours")
    if {"black", "white"} & set(colors):
        raise ValueError(f"{name}: black and white are the markers' colours, not players'")
    objs = data.get("objectives")
    if not isinstance(objs, list):
        raise ValueError(f"{name}: 'objectives' must be a list")
    out, keys = {}, []
    for i, o in enumerate(objs):
        if not isinstance(o, dict) or not isinstance(o.get("key"), str) or o["key"] in out:
            raise ValueError(f"{name}: objective {i} needs a unique string 'key'")
        kind = o.get("kind")
        if kind == "color":
            if o.get("color") not in colors:
                raise ValueError(f"{name}: objective {o['key']} names an unknown colour")
        elif kind not in ("last", "finish_line"):
            raise ValueError(f"{name}: objective {o['key']} has unknown kind {kind!r}")
        out[o["key"]] = dict(o)
        keys.append(o["key"])
    for c in colors:
        if sum(1 for o in out.values() if o["kind"] == "color" and o["color"] == c) != 1:
            raise ValueError(f"{name}: there must be exactly one objective card of colour {c}")
    for k in ("last", "finish_line"):
        if sum(1 for o in out.values() if o["kind"] == k) != 1:
            raise ValueError(f"{name}: there must be exactly one objective card of kind {k}")
    return list(colors), out, keys


def load_cards(path):
    name, data = _read(path)
    size = data.get("deck_size")
    cards = data.get("cards")
    if not _int(size) or size < 10:
        raise ValueError(f"{name}: 'deck_size' must be an integer")
    if not isinstance(cards, list) or not cards:
        raise ValueError(f"{name}: 'cards' must be a non-empty list")
    out, order = {}, []
    for i, c in enumerate(cards):
        if not isinstance(c, dict):
            raise ValueError(f"{name}: card {i} must be an object")
        key = c.get("key")
        if not isinstance(key, str) or not re.fullmatch(r"[a-z0-9][a-z0-9-]*", key) or key in out:
            raise ValueError(f"{name}: card {i} needs a unique key of lower-case letters, digits and dashes")
        out[key] = _load_card(f"{name}: card {key}", key, c)
        order.append(key)
    total = sum(c["copies"] for c in out.values())
    if total != size:
        raise ValueError(f"{name}: the copies add up to {total} cards, not deck_size {size}")
    if not any(c["stop"] for c in out.values()):
        raise ValueError(f"{name}: the deck needs STOP cards")
    return out, order


def _load_card(where: str, key: str, c: dict[str, Any]) -> dict[str, Any]:
    """One card of cards.json, checked (``where`` names it in the errors)."""
    if not isinstance(c.get("name"), str) or not c["name"].strip():
        raise ValueError(f"{where} needs a name")
    if not _int(c.get("copies")) or c["copies"] < 1:
        raise ValueError(f"{where}: 'copies' must be a positive integer")
    stop = c.get("stop", False)
    points = c.get("points", 0)
    if not isinstance(stop, bool) or not _int(points) or points < 0:
        raise ValueError(f"{where}: 'stop' must be true/false and 'points' a non-negative integer")
    effects = c.get("effects")
    if not isinstance(effects, list):
        raise ValueError(f"{where}: 'effects' must be a list")
    if stop and effects:
        raise ValueError(f"{where}: a STOP card has no effects of its own")
    if not stop and not effects:
        raise ValueError(f"{where}: an action card needs at least one effect")
    has_target = False
    for j, e in enumerate(effects):
        w = f"{where} effect {j + 1}"
        _check_effect(w, j, e)
        if e["do"] == "target":
            has_target = True
        if e.get("who") == "you" or e.get("to") == "you":
            if not has_target:
                raise ValueError(f"{w}: 'you' needs a target effect first")
    ex = c.get("example")
    if ex is not None and ex not in (1, 2, 3, 4):
        raise ValueError(f"{where}: 'example' must be 1 to 4")
    return {"key": key, "name": c["name"].strip(), "copies": c["copies"], "stop": stop,
            "points": points, "effects": [dict(e) for e in effects], "example": ex,
            "target": has_target}


def _check_effect(w: str, j: int, e: Any) -> None:
    """The ``j``-th effect of a card has the fields its kind (``do``) needs (``w`` names it)."""
    if not isinstance(e, dict):
        raise ValueError(f"{w} must be an object")
    do = e.get("do")
    if do == "target":
        if j != 0 or set(e) != {"do"}:
            raise ValueError(f"{w}: 'target' may only be the first effect, with no other field")
    elif do == "move":
        if set(e) != {"do", "who", "steps", "dir"} or e["who"] not in WHO:
            raise ValueError(f"{w}: a move needs who (me/you/others/all), steps and dir")
        if not _int(e["steps"]) or not 1 <= e["steps"] <= 6:
            raise ValueError(f"{w}: steps must be 1 to 6")
        if e["dir"] not in ("forward", "backward", "either"):
            raise ValueError(f"{w}: dir must be forward, backward or either")
    elif do == "kenta":
        if set(e) != {"do"}:
            raise ValueError(f"{w}: 'kenta' takes no field")
    elif do == "draw":
        if set(e) != {"do", "who"} or e["who"] not in WHO:
            raise ValueError(f"{w}: a draw needs who (me/you/others/all)")
    elif do == "discard":
        if set(e) != {"do", "who"} or e["who"] not in ("me", "you"):
            raise ValueError(f"{w}: a discard needs who (me/you)")
    elif do == "give":
        if set(e) != {"do", "what", "to"} or e["what"] not in ("this", "hand") or e["to"] != "you":
            raise ValueError(f"{w}: a give needs what (this/hand) and to (you)")
    else:
        raise ValueError(f"{w}: unknown effect {do!r}")


BOARD: Final[dict[str, Any]] = load_board(os.path.join(DATA_DIR, "board.json"))
FACES: Final[list[Any]] = load_dice(os.path.join(DATA_DIR, "dice.json"))
COLORS, OBJECTIVES, OBJECTIVE_ORDER = load_objectives(os.path.join(DATA_DIR, "objectives.json"))
OPTIONS_SCHEMA["properties"]["colors"] = dict(_COLORS_OPTION, items={"type": "string", "enum": list(COLORS)},
                                              default=list(COLORS))
CARDS_: tuple[dict[str, Any], list[str]] = load_cards(os.path.join(DATA_DIR, "cards.json"))
CARDS: Final[dict[str, Any]] = CARDS_[0]
CARD_ORDER: Final[list[str]] = CARDS_[1]
LENGTH: Final[int] = BOARD["length"]
SQUARES: Final[list[Any]] = BOARD["squares"]
HOT: Final[list[Any]] = BOARD["hot_spots"]
STOP_TOTAL = sum(c["copies"] for c in CARDS.values() if c["stop"])
STOP_KEYS = [k for k, c in CARDS.items() if c["stop"]]
STOP_SET: Final[frozenset[str]] = frozenset(STOP_KEYS)
ROMAN = {1: "I", 2: "II", 3: "III", 4: "IV"}


def square(pos: int) -> dict[str, Any]:
    return SQUARES[pos % LENGTH]


def _hand_sort(hand: list[Any]) -> None:
    hand.sort(key=_CARD_RANK.__getitem__)


_CARD_RANK = {k: i for i, k in enumerate(CARD_ORDER)}


# --------------------------------------------------------------------------------------------
# Small helpers over the state.

def _opts(options):
    options = dict(options or {})
    unknown = set(options) - set(OPTIONS_SCHEMA["properties"])
    if unknown:
        raise IllegalAction(f"Unknown option: {', '.join(sorted(unknown))}.")
    out = {}
    colors = options.get("colors", list(COLORS))
    if (not isinstance(colors, list) or len(colors) != len(COLORS)
            or any(not isinstance(c, str) or c not in COLORS for c in colors)):
        raise IllegalAction(f"The option “Colours” must list {len(COLORS)} colours among {', '.join(COLORS)}.")
    if "colors" in options:  # games created before the option keep their setup event as it was
        out["colors"] = list(colors)
    for k, spec in OPTIONS_SCHEMA["properties"].items():
        if k == "colors":
            continue
        v = options.get(k, spec["default"])
        if v is None:  # no window of its own: the platform's window clock applies
            out[k] = None  # not ``v``: compiled (mypyc), a narrowed None local does not build
            continue
        if not _int(v) or not spec["minimum"] <= v <= spec["maximum"]:
            raise IllegalAction(f"The option “{spec['title']}” must be a whole number from "
                                f"{spec['minimum']} to {spec['maximum']}.")
        out[k] = v
    return out


def join_choices(options, n, seat, seated):
    """The colours a player taking ``seat`` may choose when joining: any colour no seated player
    (``seated``: indexes of seats already taken) holds, the seat's own colour first."""
    colors = _opts(options).get("colors", COLORS)
    taken = {colors[i] for i in seated if i < n and i != seat}
    free = [c for c in COLORS if c not in taken]
    return sorted(free, key=lambda c: c != colors[seat])


def choose_at_join(options, n, seat, choice, seated):
    """The options once the player taking ``seat`` chose ``choice`` ("each player chooses an
    identification card"). An open seat holding that colour by default takes the seat's old one."""
    opts = dict(options or {})
    colors = list(_opts(opts).get("colors", COLORS))
    if choice not in join_choices(opts, n, seat, seated):
        if choice in COLORS:
            raise IllegalAction(f"Another player already has {choice}: choose another colour.")
        raise IllegalAction(f"Choose a colour among {', '.join(COLORS)}.")
    holder = next((i for i in range(n) if colors[i] == choice and i != seat), None)
    if holder is not None:
        colors[holder] = colors[seat]
    colors[seat] = choice
    opts["colors"] = colors
    return opts


def check_players(n, options=None):
    if not _int(n) or not MIN_PLAYERS <= n <= MAX_PLAYERS:
        raise IllegalAction("Kenta is played by 2 to 5 players.")
    colors = _opts(options).get("colors", COLORS)[:n]
    if len(set(colors)) < n:
        raise IllegalAction("Each player needs a colour of their own: two players chose the same colour.")


def players(s: dict[str, Any]) -> list[int]:
    """Seats still in the game."""
    return [p for p in range(s["n"]) if not s["resigned"][p]]


def others(s: dict[str, Any], seat: int) -> list[int]:
    """The other seats still playing, in turn order after ``seat``."""
    n = s["n"]
    return [(seat + k) % n for k in range(1, n) if not s["resigned"][(seat + k) % n]]


def valid_targets(s: dict[str, Any], seat: int) -> list[int]:
    me = s["pos"][seat]
    if s["disc"] == "black":
        return [p for p in others(s, seat) if s["pos"][p] > me]
    return [p for p in others(s, seat) if s["pos"][p] < me]


def stop_possible(s: dict[str, Any]) -> bool:
    """False only when every STOP card lies face up in the discard pile (public knowledge)."""
    discard = cards_of(s["discard"])
    return sum(discard.count(k) for k in STOP_KEYS) < STOP_TOTAL


def movers(s: dict[str, Any], eff: dict[str, Any]) -> list[Any]:
    p = s["playing"]
    a = p["seat"]
    who = eff["who"]
    if who == "me":
        return [] if s["resigned"][a] else [a]
    if who == "you":
        t = p["target"]
        return [] if t is None or s["resigned"][t] else [t]
    if who == "others":
        return others(s, a)
    return ([] if s["resigned"][a] else [a]) + others(s, a)


def pending(s: dict[str, Any]) -> tuple[Any, str, Any] | None:
    """The decision the game waits for outside votes and STOP windows: (seat, kind, info)."""
    if s["over"] or s["race_over"] or s["vote"] or s["react"]:
        return None
    a = s["active"]
    stage: str = s["stage"]
    if stage == "choose":
        return (a, "die", None)
    if stage == "hot_line":
        return (a, "line", None)
    if stage == "cards":
        return (a, "cards", None) if s["uses"] < 2 else None
    if stage != "resolve" or not s["playing"]:
        return None
    p = s["playing"]
    effects = CARDS[p["card"]]["effects"]
    if p["step"] >= len(effects):
        return None
    eff: dict[str, Any] = effects[p["step"]]
    do: str = eff["do"]
    if do == "target":
        targets = valid_targets(s, a)
        return (a, "target", targets) if targets else None
    if do == "move" and eff["dir"] == "either":
        chosen = {m for m, _ in p["dirs"]}
        for m in movers(s, eff):
            if m not in chosen:
                return (a, "dir", m)
        return None
    if do == "kenta":
        return (a, "kenta", None)
    if do == "discard":
        holder = a if eff["who"] == "me" else p["target"]
        if holder is not None and not s["resigned"][holder] and s["hands"][holder]:
            return (holder, "discard", None)
        return None
    if do == "give" and eff["what"] == "hand":
        t = p["target"]
        if s["hands"][a] and t is not None and not s["resigned"][t]:
            return (a, "give", None)
    return None


# --------------------------------------------------------------------------------------------
# evolve: applies one stored event; never draws, never fails on a stored event. One handler per
# event type, in EVOLVE; each changes the state in place, replacing (never changing) the lists
# and dicts it alters (``_own``).

def evolve(state: dict[str, Any], e: dict[str, Any]) -> dict[str, Any]:
    handler = EVOLVE.get(e["type"])
    if handler is not None:  # an unknown event type leaves the state as it is
        handler(state, e["data"])
    return state


def _on_setup(s: dict[str, Any], d: dict[str, Any]) -> None:
    n = d["n"]
    s.clear()
    s.update({
        "n": n, "options": dict(d["options"]),
        "disc": d["disc"], "line": d["line"], "pos": [0] * n, "points": [0] * n,
        "hot_passed": [[] for _ in HOT], "hands": [list(h) for h in d["hands"]],
        "objectives": list(d["objectives"]), "pile": " ".join(d["pile"]), "discard": "",
        "colors": list(d.get("colors") or COLORS[:n]),
        "pile_round": 1, "resigned": [False] * n, "active": d["first"], "stage": "start",
        "dice": None, "value": None, "uses": 0, "playing": None, "react": None, "vote": None,
        "race_over": False, "end": None, "over": False, "outcome": None, "turn_no": 0,
        "last_card": None,
    })
    for h in s["hands"]:
        _hand_sort(h)


def _on_turn(s: dict[str, Any], d: dict[str, Any]) -> None:
    s.update(active=d["seat"], stage="roll", uses=0, dice=None, value=None, playing=None)
    s["turn_no"] += 1


def _on_roll(s: dict[str, Any], d: dict[str, Any]) -> None:
    s["dice"] = {"black": d["black"], "white": d["white"]}
    if d["black"] == d["white"]:
        s["disc"] = "white" if s["disc"] == "black" else "black"
        s["value"] = d["black"]
        s["stage"] = "doubles"
    else:
        s["stage"] = "choose"


def _on_die(s: dict[str, Any], d: dict[str, Any]) -> None:
    s["disc"] = d["color"]
    s["value"] = d["value"]
    s["stage"] = "action"


def _on_act(s: dict[str, Any], d: dict[str, Any]) -> None:
    s["stage"] = "after_act"


def _on_cards(s: dict[str, Any], d: dict[str, Any]) -> None:
    s["stage"] = "cards"


def _on_hot_stop(s: dict[str, Any], d: dict[str, Any]) -> None:
    s["stage"] = "hot_line"


def _on_move(s: dict[str, Any], d: dict[str, Any]) -> None:
    pos = s["pos"] = s["pos"][:]  # replaced, not changed: decide's working copy shares it
    for m in d["moves"]:
        pos[m["seat"]] = m["to"]


def _on_hot(s: dict[str, Any], d: dict[str, Any]) -> None:
    i = HOT.index(d["square"])
    hot_passed = s["hot_passed"] = s["hot_passed"][:]  # replaced, not changed (as "move")
    hot_passed[i] = hot_passed[i][:]
    points = s["points"] = s["points"][:]
    for seat, pts in zip(d["seats"], d["points"]):
        if seat not in hot_passed[i]:
            hot_passed[i].append(seat)
        points[seat] += pts


def _on_line(s: dict[str, Any], d: dict[str, Any]) -> None:
    s["line"] = d["line"]
    if "stage" in d:
        s["stage"] = d["stage"]


def _on_disc(s: dict[str, Any], d: dict[str, Any]) -> None:
    s["disc"] = d["color"]


def _on_draw(s: dict[str, Any], d: dict[str, Any]) -> None:
    s["pile"] = s["pile"].partition(" ")[2]
    _keep_or_discard(s, d["seat"], d["card"], d["kept"])


def _on_reshuffle(s: dict[str, Any], d: dict[str, Any]) -> None:
    s["pile"] = " ".join(d["pile"])
    s["discard"] = ""
    s["pile_round"] = 2


def _on_discard(s: dict[str, Any], d: dict[str, Any]) -> None:
    _take(_hand(s, d["seat"]), d["card"])
    s["discard"] = _discard(s["discard"], d["card"])


def _on_swap(s: dict[str, Any], d: dict[str, Any]) -> None:
    """A card discarded to draw another (the draw is an event of its own): one of the two uses."""
    _on_discard(s, d)
    s["uses"] += 1


def _on_announce(s: dict[str, Any], d: dict[str, Any]) -> None:
    _take(_hand(s, d["seat"]), d["card"])
    s["playing"] = {"seat": d["seat"], "card": d["card"], "step": 0, "target": None,
                    "dirs": [], "given": False}
    s["uses"] += 1
    s["stage"] = "resolve"
    s["react"] = {"waiting": list(d["window"])} if d["window"] else None


def _on_pass(s: dict[str, Any], d: dict[str, Any]) -> None:
    r = s["react"]
    if r is not None:
        if d["seat"] in r["waiting"]:
            r = _own(s, "react")
            _own(r, "waiting").remove(d["seat"])
        if not r["waiting"]:
            s["react"] = None


def _on_stop(s: dict[str, Any], d: dict[str, Any]) -> None:
    _take(_hand(s, d["seat"]), d["card"])
    s["discard"] = _discard(s["discard"], d["card"])
    if s["playing"] is not None:
        s["discard"] = _discard(s["discard"], s["playing"]["card"])
        s["points"] = s["points"][:]  # replaced, not changed (as "move")
        s["points"][s["playing"]["seat"]] += 1
        s["last_card"] = {"seat": s["playing"]["seat"], "card": s["playing"]["card"],
                          "stopped_by": d["seat"]}
    s["playing"] = None
    s["react"] = None
    s["stage"] = "cards"


def _on_effect(s: dict[str, Any], d: dict[str, Any]) -> None:
    p = _own(s, "playing")
    p["step"] += 1
    p["dirs"] = []
    if "target" in d:
        p["target"] = d["target"]


def _on_dir(s: dict[str, Any], d: dict[str, Any]) -> None:
    p = _own(s, "playing")
    p["dirs"] = p["dirs"] + [[d["mover"], d["dir"]]]


def _on_give(s: dict[str, Any], d: dict[str, Any]) -> None:
    if d["what"] == "hand":
        _take(_hand(s, d["from"]), d["card"])
    elif s["playing"] is not None:
        _own(s, "playing")["given"] = True
    _keep_or_discard(s, d["to"], d["card"], d["kept"])


def _on_done(s: dict[str, Any], d: dict[str, Any]) -> None:
    p = s["playing"]
    if p is not None and not p["given"]:
        s["discard"] = _discard(s["discard"], p["card"])
    if p is not None:
        s["last_card"] = {"seat": p["seat"], "card": p["card"], "stopped_by": None}
    s["playing"] = None
    s["stage"] = "cards"


def _on_vote_open(s: dict[str, Any], d: dict[str, Any]) -> None:
    s["vote"] = {"kind": d["kind"], "why": d["why"], "voters": list(d["voters"]),
                 "waiting": list(d["voters"]), "ballots": [None] * s["n"],
                 "candidates": list(d.get("candidates") or []), "next": d["next"]}


def _on_vote(s: dict[str, Any], d: dict[str, Any]) -> None:
    v = s["vote"]
    if v is not None:
        v = _own(s, "vote")
        _own(v, "ballots")[d["seat"]] = d.get("marker")
        if d["seat"] in v["waiting"]:
            _own(v, "waiting").remove(d["seat"])


def _on_vote_reveal(s: dict[str, Any], d: dict[str, Any]) -> None:
    v = s["vote"]
    s["vote"] = None
    if d["kind"] == "line":
        s["line"] = d["line"]
    if v is not None and not s["race_over"]:
        s["stage"] = v["next"]


def _on_race_end(s: dict[str, Any], d: dict[str, Any]) -> None:
    s["race_over"] = True
    s["stage"] = "over"
    s["react"] = None
    s["end"] = {k: fast_copy(d[k]) for k in ("why", "race_ranks", "objective_points", "card_points",
                                          "totals", "final", "cards", "hands", "objectives", "line")}
    s["hands"] = [list(h) for h in d["hands"]]
    s["objectives"] = list(d["objectives"])


def _on_game_over(s: dict[str, Any], d: dict[str, Any]) -> None:
    s["over"] = True
    s["vote"] = None
    s["react"] = None
    s["stage"] = "over"
    s["outcome"] = {k: d[k] for k in ("ranks", "scores", "winners", "summary", "why")}


def _on_resign(s: dict[str, Any], d: dict[str, Any]) -> None:
    seat = d["seat"]
    s["resigned"] = s["resigned"][:]  # replaced, not changed (as "move")
    s["resigned"][seat] = True
    v = s["vote"]
    if v is not None:
        v = _own(s, "vote")
        for key in ("waiting", "voters", "candidates"):
            if seat in v[key]:
                _own(v, key).remove(seat)
        _own(v, "ballots")[seat] = None
        if v["kind"] == "winner" and len(v["candidates"]) <= 1:
            v["waiting"] = []
    r = s["react"]
    if r is not None and seat in r["waiting"]:
        r = _own(s, "react")
        _own(r, "waiting").remove(seat)
        if not r["waiting"]:
            s["react"] = None
    if not s["race_over"] and seat == s["active"]:
        _drop_the_turn(s)


def _drop_the_turn(s: dict[str, Any]) -> None:
    """The active player resigned: the card they were playing is discarded (unless given away),
    a finish-line vote of their turn lapses, and play passes on."""
    p = s["playing"]
    if p is not None and not p["given"]:
        s["discard"] = _discard(s["discard"], p["card"])
    s["playing"] = None
    s["react"] = None
    if s["vote"] is not None and s["vote"]["kind"] == "line":
        s["vote"] = None
    s["stage"] = "next"


EVOLVE: Final[dict[str, Callable[[dict[str, Any], dict[str, Any]], None]]] = {
    "setup": _on_setup, "turn": _on_turn, "roll": _on_roll, "die": _on_die, "act": _on_act,
    "cards": _on_cards, "hot_stop": _on_hot_stop, "move": _on_move, "hot": _on_hot, "line": _on_line,
    "disc": _on_disc, "draw": _on_draw, "reshuffle": _on_reshuffle, "discard": _on_discard,
    "swap": _on_swap, "announce": _on_announce, "pass": _on_pass, "stop": _on_stop,
    "effect": _on_effect, "dir": _on_dir, "give": _on_give, "done": _on_done,
    "vote_open": _on_vote_open, "vote": _on_vote, "vote_reveal": _on_vote_reveal,
    "race_end": _on_race_end, "game_over": _on_game_over, "resign": _on_resign,
}


def cards_of(text: str) -> list[str]:
    """The card keys of a pile or discard pile (stored as one space-separated string)."""
    return text.split(" ") if text else []


def _discard(text: str, card: str) -> str:
    return f"{text} {card}" if text else card


def _own(obj, key):
    """``obj[key]`` replaced by a copy of its own to change: evolve never changes a list or dict
    of the state in place, so decide's working copy (``copy_state``) shares them all."""
    value = obj[key] = obj[key].copy()
    return value


def _keep_or_discard(s: dict[str, Any], seat: Any, card: str, kept: Any) -> None:
    """A drawn or given card: into the seat's hand, in order, or onto the discard pile."""
    if kept:
        hand = _hand(s, seat)
        hand.append(card)
        _hand_sort(hand)
    else:
        s["discard"] = _discard(s["discard"], card)


def _hand(s: dict[str, Any], seat: Any) -> list[Any]:
    """A seat's hand, of its own to change (see ``_own``)."""
    hands: list[Any] = s["hands"].copy()
    s["hands"] = hands
    hand: list[Any] = hands[seat].copy()
    hands[seat] = hand
    return hand


def _take(hand: list[Any], card: Any) -> None:
    if card in hand:
        hand.remove(card)


# --------------------------------------------------------------------------------------------
# The simulator used by setup/decide: emits events and applies them to a private copy.

def fast_copy(x):
    """A deep copy of plain JSON data (dicts, lists, scalars), faster than copy.deepcopy."""
    if isinstance(x, dict):
        return {k: fast_copy(v) for k, v in x.items()}
    if isinstance(x, list):  # scalars kept without a call each (most lists hold only scalars)
        return [fast_copy(v) if isinstance(v, (dict, list)) else v for v in x]
    return x


def copy_state(s: dict[str, Any]) -> dict[str, Any]:
    """decide's working copy of a Kenta state: a shallow copy, since ``evolve`` replaces every
    list and dict it changes (``_own``) instead of changing it."""
    return dict(s) if s else {}


class Sim:
    __slots__ = ("state", "rng", "events")

    state: dict[str, Any]
    rng: Any
    events: list[dict[str, Any]]

    def __init__(self, state: dict[str, Any], rng: Any) -> None:
        self.state = copy_state(state)
        self.rng = rng
        self.events = []

    def emit(self, type_: str, data: dict[str, Any]) -> dict[str, Any]:
        """Records an event and applies it. An event never shares a list or dict with the state
        (evolve keeps some of its data): callers pass fresh ones, copying the state's own."""
        e = {"type": type_, "data": data}
        self.state = evolve(self.state, e)
        self.events.append(e)
        return e


def setup(n, options, rng):
    check_players(n, options)
    opts = _opts(options)
    colors = opts.get("colors", COLORS)[:n]
    objs = [k for k in OBJECTIVE_ORDER
            if (OBJECTIVES[k]["kind"] == "color" and OBJECTIVES[k]["color"] in colors)
            or OBJECTIVES[k]["kind"] == "last"
            or (OBJECTIVES[k]["kind"] == "finish_line" and n >= 5)]
    objs = rng.shuffled(objs)[:n]
    deck = rng.shuffled([k for k in CARD_ORDER for _ in range(CARDS[k]["copies"])])
    hands = [[deck[i]] for i in range(n)]
    pile = deck[n:]
    disc = rng.choice(["black", "white"])
    first = rng.randbelow(n)
    sim = Sim({}, rng)
    sim.emit("setup", {"n": n, "options": opts, "colors": colors, "disc": disc,
             "line": BOARD["finish_line_start"], "first": first, "hands": hands, "objectives": objs, "pile": pile})
    sim.emit("turn", {"seat": first})
    run(sim)
    return sim.events


def draw(sim: Sim, seat: Any, why: str) -> None:
    s = sim.state
    if s["race_over"]:
        return
    if not s["pile"]:
        if s["pile_round"] == 1 and s["discard"]:
            sim.emit("reshuffle", {"pile": sim.rng.shuffled(cards_of(s["discard"]))})
            s = sim.state
        else:
            end_race(sim, "pile")
            return
    card = s["pile"].partition(" ")[0]
    sim.emit("draw", {"seat": seat, "card": card, "kept": len(s["hands"][seat]) < 5, "why": why})
    s = sim.state
    if not s["pile"] and s["pile_round"] == 2:
        end_race(sim, "pile")


def check_end(sim: Sim, cause: str) -> bool:
    s = sim.state
    if s["race_over"]:
        return True
    pos = s["pos"]
    lead = max(pos) if True not in s["resigned"] else max(pos[p] for p in players(s))
    if lead >= s["line"]:
        end_race(sim, cause)
        return True
    return False


def hot_points(rank, group, n_players):
    if rank == 0:
        return 1
    if rank == 1:
        return 3
    if rank + group == n_players:
        return 2
    return 0


def award_hot(sim: Sim, legs: list[dict[str, Any]]) -> None:
    s = sim.state
    for i, spot in enumerate(HOT):
        seats = []
        for leg in legs:
            a, b = leg["from"], leg["to"]
            lo, hi = (a + 1, b + 1) if b > a else (b, a)
            # some square of lo..hi-1 is this spot, once around the board or more: the first
            # square from lo on that is the spot (spot < LENGTH) comes before hi
            if lo + (spot - lo) % LENGTH < hi:
                if leg["seat"] not in s["hot_passed"][i] and leg["seat"] not in seats:
                    seats.append(leg["seat"])
        if seats:
            rank = sum(1 for p in s["hot_passed"][i] if not s["resigned"][p])
            pts = hot_points(rank, len(seats), len(players(s)))
            sim.emit("hot", {"square": spot, "seats": seats, "points": [pts] * len(seats)})
            s = sim.state


def do_move(sim: Sim, moves: list[tuple[Any, int]], why: str) -> None:
    """Moves pawns at the same time: [(seat, delta)]; arrows, hot spots, card squares."""
    s = sim.state
    if s["race_over"]:
        return
    legs = []
    for seat, delta in moves:
        if s["resigned"][seat]:
            continue
        p = s["pos"][seat]
        legs.append({"seat": seat, "from": p, "to": max(0, p + delta)})
    if not legs:
        return
    sim.emit("move", {"moves": legs, "why": why})
    award_hot(sim, legs)
    if check_end(sim, "pawn"):
        return
    s = sim.state
    final = {}
    pushes = []
    for leg in legs:
        if leg["to"] == leg["from"]:
            continue  # a pawn which has not been moved is not affected
        final[leg["seat"]] = leg["to"]
        sq = square(leg["to"])
        if sq["color"] == s["disc"]:
            to = max(0, leg["to"] + sq["arrow"])
            if to != leg["to"]:
                pushes.append({"seat": leg["seat"], "from": leg["to"], "to": to})
                final[leg["seat"]] = to
    if pushes:
        sim.emit("move", {"moves": pushes, "why": "arrow"})
        award_hot(sim, pushes)
        if check_end(sim, "pawn"):
            return
    for seat, pos in final.items():
        if square(pos)["card"]:
            draw(sim, seat, "square")
            if sim.state["race_over"]:
                return


def move_line(sim: Sim, seat: Any, delta: int, why: str, stage: str | None = None) -> None:
    s = sim.state
    extra = {"stage": stage} if stage else {}
    sim.emit("line", {"seat": seat, "delta": delta, "line": s["line"] + delta, "why": why, **extra})
    check_end(sim, "line")


def objective_points(s, seat, rank, last_rank):
    obj = OBJECTIVES[s["objectives"][seat]]
    pts = 0
    if obj["kind"] == "color":
        cols = _colors(s)
        owner = cols.index(obj["color"]) if obj["color"] in cols else None
        if owner == seat:
            pts += 5 if rank[seat] == 2 else -2
        else:
            if owner is not None and not s["resigned"][owner] and rank[owner] == 1:
                pts += 4
            if rank[seat] == 2:
                pts += 2
    elif obj["kind"] == "last":
        if rank[seat] == last_rank:
            pts += 8
        elif rank[seat] != 1:
            pts += 3
    else:
        if s["line"] < 20 or s["line"] > 30:
            pts += 5
        if rank[seat] == last_rank:
            pts += 4
    return pts


def end_race(sim, why):
    s = sim.state
    if s["race_over"]:
        return
    act = players(s)
    # standard competition ranking: [7, 7, 6] rank 1, 1, 3 (RULES.md, End of the race)
    rank = [None] * s["n"]
    for p in act:
        rank[p] = 1 + sum(1 for q in act if s["pos"][q] > s["pos"][p])
    last_rank = max(rank[p] for p in act)
    objp, cardp, totals, final, cards = ([None] * s["n"] for _ in range(5))
    for p in act:
        objp[p] = objective_points(s, p, rank, last_rank)
        cardp[p] = sum(CARDS[k]["points"] for k in s["hands"][p])
        totals[p] = s["points"][p] + objp[p] + cardp[p]
        final[p] = s["pos"][p] + totals[p]
        cards[p] = sum(1 for k in s["hands"][p] if not CARDS[k]["points"])
    sim.emit("race_end", {"why": why, "race_ranks": rank, "objective_points": objp, "card_points": cardp,
             "totals": totals, "final": final, "cards": cards, "hands": fast_copy(s["hands"]),
             "objectives": list(s["objectives"]), "line": s["line"]})
    s = sim.state
    top = max(final[p] for p in act)
    cands = [p for p in act if final[p] == top]
    best = max(cards[p] for p in cands)
    cands = [p for p in cands if cards[p] == best]
    voters = [p for p in act if p not in cands]
    if len(cands) > 1 and voters:
        sim.emit("vote_open", {"kind": "winner", "why": "tie", "voters": voters, "candidates": cands, "next": "over"})
        return
    game_over(sim, cands, "race")


def game_over(sim, winners, why):
    s = sim.state
    act = players(s)
    n = s["n"]
    ranks = [len(act) + 1] * n
    scores = [s["pos"][p] for p in range(n)]
    if s["end"] is not None:
        fin, cards = s["end"]["final"], s["end"]["cards"]
        for p in act:
            scores[p] = fin[p] if fin[p] is not None else s["pos"][p]
        for p in act:
            if p in winners:
                ranks[p] = 1
            else:
                better = [q for q in act if q not in winners
                          and (fin[q], cards[q]) > (fin[p], cards[p])]
                ranks[p] = len(winners) + len(better) + 1
    else:
        for p in act:
            ranks[p] = 1
    cols = [f"{seat_ref(w)} ({_colors(s)[w]})" for w in winners]
    if why == "resign":
        summary = f"{' and '.join(cols)} wins: every other player resigned."
    elif len(winners) == 1:
        summary = (f"{cols[0]} wins with a pawn on square {scores[winners[0]]} "
                   f"after the scoring.")
    else:
        summary = (f"{' and '.join(cols)} share the win on square "
                   f"{scores[winners[0]]}.")
    sim.emit("game_over", {"winners": sorted(winners), "ranks": ranks, "scores": scores, "summary": summary,
             "why": why})


def next_turn(sim: Sim) -> None:
    s = sim.state
    n = s["n"]
    for k in range(1, n + 1):
        seat = (s["active"] + k) % n
        if not s["resigned"][seat]:
            sim.emit("turn", {"seat": seat})
            return


def reveal(sim):
    s = sim.state
    v = s["vote"]
    if v["kind"] == "line":
        black = sum(1 for b in v["ballots"] if b == "black")
        white = sum(1 for b in v["ballots"] if b == "white")
        sim.emit("vote_reveal", {"kind": "line", "why": v["why"], "ballots": list(v["ballots"]), "black": black,
                 "white": white, "delta": black - white, "line": s["line"] + black - white})
        if black != white:
            check_end(sim, "line")
    else:
        cands = v["candidates"]
        tally = [sum(1 for b in v["ballots"] if b == c) for c in cands]
        top = max(tally) if tally else 0
        winners = [c for c, t in zip(cands, tally) if t == top]
        sim.emit("vote_reveal", {"kind": "winner", "why": v["why"], "ballots": list(v["ballots"]),
                 "candidates": list(cands), "tally": tally, "winners": winners})
        if winners:
            game_over(sim, winners, "race")
        else:
            game_over(sim, [p for p in players(sim.state)][:1], "resign")


def run(sim: Sim) -> None:
    """Advance everything that needs no player decision."""
    for _ in range(10000):
        if not _advance(sim):
            return
    raise RuntimeError("Kenta: the game loop did not settle")  # pragma: no cover


def _advance(sim: Sim) -> bool:
    """One step of ``run``: whether the game went on by itself (False: it waits for a player,
    or is over)."""
    s = sim.state
    if s["over"]:
        return False
    if s["resigned"].count(False) <= 1:  # before any open vote: the last player left wins at once
        game_over(sim, players(s), "resign")
        return False
    if s["vote"] is not None:
        if not s["vote"]["waiting"]:
            reveal(sim)
            return True
        return False
    if s["race_over"]:
        return False
    if s["react"] is not None:
        return False
    if s["stage"] != "resolve" and not all(s["hands"]):  # some hand is empty
        empty = [p for p, h in enumerate(s["hands"]) if not h and not s["resigned"][p]]
        if empty:
            draw(sim, empty[0], "refill")
            return True
    step = STAGES.get(s["stage"])
    return step is not None and step(sim, s, s["active"])


# What each stage of a turn does by itself (``_advance``), with the state ``s`` and the active
# seat ``a``: whether the game went on (False: it waits for the active player).

def _stage_roll(sim: Sim, s: dict[str, Any], a: Any) -> bool:
    sim.emit("roll", {"seat": a, "black": sim.rng.choice(FACES), "white": sim.rng.choice(FACES)})
    return True


def _stage_doubles(sim: Sim, s: dict[str, Any], a: Any) -> bool:
    sim.emit("vote_open", {"kind": "line", "why": "doubles", "voters": players(s), "next": "action"})
    return True


def _stage_action(sim: Sim, s: dict[str, Any], a: Any) -> bool:
    v = s["value"]
    sim.emit("act", {"seat": a, "value": v})
    if v <= 3:
        do_move(sim, [(a, v)], "die")
    else:
        draw(sim, a, "die")
    return True


def _stage_after_act(sim: Sim, s: dict[str, Any], a: Any) -> bool:
    if s["value"] <= 3 and square(s["pos"][a])["hot_spot"]:
        sim.emit("hot_stop", {"seat": a, "square": s["pos"][a] % LENGTH})
    else:
        sim.emit("cards", {"seat": a})
    return True


def _stage_hot_vote(sim: Sim, s: dict[str, Any], a: Any) -> bool:
    voters = [p for p in players(s) if square(s["pos"][p])["hot_spot"]]
    if len(voters) >= 2:
        sim.emit("vote_open", {"kind": "line", "why": "hot", "voters": voters, "next": "to_cards"})
    else:
        sim.emit("cards", {"seat": a})
    return True


def _stage_to_cards(sim: Sim, s: dict[str, Any], a: Any) -> bool:
    sim.emit("cards", {"seat": a})
    return True


def _stage_cards(sim: Sim, s: dict[str, Any], a: Any) -> bool:
    if s["uses"] >= 2:
        next_turn(sim)
        return True
    return False


def _stage_next(sim: Sim, s: dict[str, Any], a: Any) -> bool:
    next_turn(sim)
    return True


def _stage_resolve(sim: Sim, s: dict[str, Any], a: Any) -> bool:
    p = s["playing"]
    effects = CARDS[p["card"]]["effects"]
    if p["step"] >= len(effects):
        sim.emit("done", {"seat": p["seat"], "card": p["card"]})
        return True
    if pending(s) is not None:
        return False
    auto_step(sim)
    return True


STAGES: Final[dict[str, Callable[[Sim, dict[str, Any], Any], bool]]] = {
    "roll": _stage_roll, "doubles": _stage_doubles, "action": _stage_action,
    "after_act": _stage_after_act, "hot_vote": _stage_hot_vote, "to_cards": _stage_to_cards,
    "cards": _stage_cards, "next": _stage_next, "resolve": _stage_resolve,
}


def auto_step(sim: Sim) -> None:
    """One effect of the card being resolved that needs no decision."""
    s = sim.state
    p = s["playing"]
    a = p["seat"]
    card = p["card"]
    step = p["step"]
    eff: dict[str, Any] = CARDS[card]["effects"][step]
    do: str = eff["do"]
    base = {"seat": a, "card": card, "step": step}
    if do == "target":
        sim.emit("effect", {"skipped": True, **base})  # no valid target left
    elif do == "move":
        ms = movers(s, eff)
        dirs = dict((m, d) for m, d in p["dirs"])
        sim.emit("effect", {**base})
        moves = []
        for m in ms:
            d = dirs.get(m, eff["dir"])
            moves.append((m, eff["steps"] if d == "forward" else -eff["steps"]))
        do_move(sim, moves, "card")
    elif do == "draw":
        sim.emit("effect", {**base})
        for m in movers(s, eff):
            draw(sim, m, "card")
            if sim.state["race_over"]:
                return
    elif do == "give" and eff["what"] == "this":
        t = p["target"]
        if t is None or s["resigned"][t]:
            sim.emit("effect", {"skipped": True, **base})
        else:
            sim.emit("effect", {**base})
            sim.emit("give", {"what": "this", "card": card, "to": t, "kept": len(s["hands"][t]) < 5, "from": a})
    else:
        sim.emit("effect", {"skipped": True, **base})  # nothing to discard or give


# --------------------------------------------------------------------------------------------
# Actions.

def _colors(s):
    """The players' colours by seat (states cached before colours were chosen have none)."""
    return s.get("colors") or COLORS[:s["n"]]


def _color(s, seat):
    return _colors(s)[seat]


def actions(state: Any, seat: Any) -> list[dict[str, Any]]:
    """The seat's legal actions in ``legal_actions``' order, without their texts: what
    ``decide`` checks an action against and the random bot picks from."""
    s = state
    if not s or s["over"] or not _int(seat) or not 0 <= seat < s["n"] or s["resigned"][seat]:
        return []
    return _actions(s, seat)


def _actions(s: dict[str, Any], seat: Any) -> list[dict[str, Any]]:
    """``actions`` for a seat of a game that is on, still playing (``decide`` checked)."""
    v = s["vote"]
    if v is not None:
        if seat not in v["waiting"]:
            return []
        if v["kind"] == "line":
            return [{"type": "vote", "marker": "black"}, {"type": "vote", "marker": "white"}]
        # no "abstain": every voter hides a black or a white marker (only a timeout plays none)
        return [{"type": "vote", "marker": c} for c in v["candidates"]]
    r = s["react"]
    if r is not None:
        if seat not in r["waiting"]:
            return []
        if not STOP_SET.isdisjoint(s["hands"][seat]):
            return [{"type": "pass"}, {"type": "stop"}]
        return [{"type": "pass"}]
    pend = pending(s)
    if pend is None or pend[0] != seat:
        return []
    kind: str = pend[1]
    info = pend[2]
    if kind == "die":
        return [{"type": "die", "color": "black"}, {"type": "die", "color": "white"}]
    if kind == "line":
        return [{"type": "line", "dir": "forward"}, {"type": "line", "dir": "back"}]
    if kind == "cards":
        seen = list(dict.fromkeys(s["hands"][seat]))
        targets = None
        out = []
        for k in seen:
            c = CARDS[k]
            if c["stop"]:
                continue
            if c["target"]:
                if targets is None:
                    targets = bool(valid_targets(s, seat))
                if not targets:
                    continue
            out.append({"type": "play", "card": k})
        out += [{"type": "swap", "card": k} for k in seen]
        out.append({"type": "end"})
        return out
    if kind == "target":
        return [{"type": "target", "seat": t} for t in info]
    if kind == "dir":
        return [{"type": "dir", "mover": info, "dir": "forward"}, {"type": "dir", "mover": info, "dir": "backward"}]
    if kind == "kenta":
        return [{"type": "kenta", "choice": "flip"}, {"type": "kenta", "choice": "forward"},
                {"type": "kenta", "choice": "back"}]
    if kind == "discard":
        return [{"type": "discard", "card": k} for k in dict.fromkeys(s["hands"][seat])]
    if kind == "give":
        return [{"type": "give", "card": k} for k in dict.fromkeys(s["hands"][seat])]
    return []


def legal_actions(state, seat):
    return [{"notation": notation, "label": label, "action": a}
            for a in actions(state, seat) for notation, label in (_texts(state, seat, a),)]


def _texts(s, seat, a):
    """The notation and the label of one of ``actions``."""
    t = a["type"]
    if t == "vote":
        m = a["marker"]
        if m == "black":
            return "vote black", "Hide the black marker (finish line one square forward)"
        if m == "white":
            return "vote white", "Hide the white marker (finish line one square back)"
        return f"vote {_color(s, m)}", f"Vote for {seat_ref(m)} ({_color(s, m)})"
    if t == "pass":
        return "resolve", "Let the card resolve"
    if t == "stop":
        return "stop", "Play STOP: cancel this card"
    if t == "die":
        c = a["color"]
        val = s["dice"][c]
        what = f"move {val}" if val <= 3 else "draw a card"
        return c, f"{c.capitalize()} die ({ROMAN[val]}): {what}, disc to {c}"
    if t == "line" or (t == "kenta" and a["choice"] != "flip"):
        if a.get("dir", a.get("choice")) == "forward":
            return "line forward", "Move the finish line one square forward"
        return "line back", "Move the finish line one square back"
    if t == "kenta":
        return "flip", "Flip the Kenta disc"
    if t == "play":
        return f"play {a['card']}", f"Play {CARDS[a['card']]['name']}"
    if t == "swap":
        return f"swap {a['card']}", f"Discard {CARDS[a['card']]['name']} and draw a card"
    if t == "end":
        return "end", "End your turn"
    if t == "target":
        return f"target {_color(s, a['seat'])}", f"Choose {seat_ref(a['seat'])} ({_color(s, a['seat'])})"
    if t == "dir":
        info = a["mover"]
        col = _color(s, info)
        steps = CARDS[s["playing"]["card"]]["effects"][s["playing"]["step"]]["steps"]
        who = "your pawn" if info == seat else f"{seat_ref(info)}'s pawn ({col})"
        if a["dir"] == "forward":
            return f"{col} forward", f"Move {who} {steps} forward"
        return f"{col} back", f"Move {who} {steps} back"
    if t == "discard":
        return f"discard {a['card']}", f"Discard {CARDS[a['card']]['name']}"
    # give
    to = s["playing"]["target"]
    return f"give {a['card']}", f"Give {CARDS[a['card']]['name']} to {seat_ref(to)} ({_color(s, to)})"


def decide(state, seat, action, rng):
    return decide_state(state, seat, action, rng)[0]


def decide_state(state, seat, action, rng):
    """``decide``'s events and the state after them (``games.engine``: optional contract), which
    the simulator works out anyway: the caller need not evolve every event a second time."""
    s = state
    if not isinstance(action, dict) or not isinstance(action.get("type"), str):
        raise IllegalAction("That is not a Kenta move.")
    if not s or s.get("over"):
        raise IllegalAction("The game is over.")
    if seat is None or not _int(seat) or not 0 <= seat < s["n"]:
        raise IllegalAction("Only a player of this game can do that.")
    if s["resigned"][seat]:
        raise IllegalAction("You have resigned from this game.")
    sim = Sim(s, rng)
    if action.get("type") == "resign" and len(action) == 1:  # action == {"type": "resign"}
        sim.emit("resign", {"seat": seat})
        run(sim)
        return sim.events, sim.state
    timed_out = action == NO_MARKER and s["vote"] is not None and seat in s["vote"]["waiting"]
    if not timed_out and not _allowed(s, seat, action):
        if not to_act(s).get(seat):
            raise IllegalAction("It is not your move now.")
        raise IllegalAction("That is not one of your moves now.")
    DECIDE[action["type"]](sim, seat, action)  # every allowed action's type has its handler
    run(sim)
    return sim.events, sim.state


# The events of one allowed action, by its type (``decide_state`` checked it; ``run`` follows).

def _do_vote(sim: Sim, seat: Any, action: dict[str, Any]) -> None:
    # no move offers "no marker": only a voter's time running out (NO_MARKER) gets here with it
    timed_out = action == NO_MARKER
    sim.emit("vote", {"seat": seat, "marker": action["marker"], **({"timeout": True} if timed_out else {})})


def _do_pass(sim: Sim, seat: Any, action: dict[str, Any]) -> None:
    sim.emit("pass", {"seat": seat})


def _do_stop(sim: Sim, seat: Any, action: dict[str, Any]) -> None:
    st = sim.state
    k = next(k for k in st["hands"][seat] if CARDS[k]["stop"])
    sim.emit("stop", {"seat": seat, "card": k, "cancelled": st["playing"]["card"], "against": st["playing"]["seat"]})


def _do_die(sim: Sim, seat: Any, action: dict[str, Any]) -> None:
    sim.emit("die", {"seat": seat, "color": action["color"], "value": sim.state["dice"][action["color"]]})


def _do_line(sim: Sim, seat: Any, action: dict[str, Any]) -> None:
    move_line(sim, seat, 1 if action["dir"] == "forward" else -1, "hot", stage="hot_vote")


def _do_play(sim: Sim, seat: Any, action: dict[str, Any]) -> None:
    st = sim.state
    window = others(st, seat) if stop_possible(st) else []
    sim.emit("announce", {"seat": seat, "card": action["card"], "window": window})


def _do_swap(sim: Sim, seat: Any, action: dict[str, Any]) -> None:
    sim.emit("swap", {"seat": seat, "card": action["card"]})
    draw(sim, seat, "swap")


def _do_end(sim: Sim, seat: Any, action: dict[str, Any]) -> None:
    next_turn(sim)


def _step_of(st: dict[str, Any]) -> dict[str, Any]:
    """The card being resolved and its step: what an "effect" event names."""
    p = st["playing"]
    return {"seat": p["seat"], "card": p["card"], "step": p["step"]}


def _do_target(sim: Sim, seat: Any, action: dict[str, Any]) -> None:
    sim.emit("effect", {"target": action["seat"], **_step_of(sim.state)})


def _do_dir(sim: Sim, seat: Any, action: dict[str, Any]) -> None:
    sim.emit("dir", {"seat": seat, "mover": action["mover"], "dir": action["dir"]})


def _do_kenta(sim: Sim, seat: Any, action: dict[str, Any]) -> None:
    st = sim.state
    sim.emit("effect", {"choice": action["choice"], **_step_of(st)})
    if action["choice"] == "flip":
        sim.emit("disc", {"seat": seat, "color": "white" if st["disc"] == "black" else "black", "why": "card"})
    else:
        move_line(sim, seat, 1 if action["choice"] == "forward" else -1, "card")


def _do_discard(sim: Sim, seat: Any, action: dict[str, Any]) -> None:
    sim.emit("effect", {**_step_of(sim.state)})
    sim.emit("discard", {"seat": seat, "card": action["card"], "why": "card"})


def _do_give(sim: Sim, seat: Any, action: dict[str, Any]) -> None:
    st = sim.state
    to = st["playing"]["target"]
    sim.emit("effect", {**_step_of(st)})
    sim.emit("give", {"what": "hand", "card": action["card"], "to": to,
             "kept": len(st["hands"][to]) < 5, "from": seat})


DECIDE: Final[dict[str, Callable[[Sim, Any, dict[str, Any]], None]]] = {
    "vote": _do_vote, "pass": _do_pass, "stop": _do_stop, "die": _do_die, "line": _do_line,
    "play": _do_play, "swap": _do_swap, "end": _do_end, "target": _do_target, "dir": _do_dir,
    "kenta": _do_kenta, "discard": _do_discard, "give": _do_give,
}


def _allowed(s: dict[str, Any], seat: Any, action: dict[str, Any]) -> bool:
    """``action in actions(s, seat)``: worked out directly for a turn's card moves (the commonest;
    the bot has just listed them, and listing them again would weigh on decide), else by the list."""
    if s["vote"] is None and s["react"] is None and s["stage"] == "cards" and len(action) <= 2:
        pend = pending(s)
        if pend is None or pend[0] != seat:
            return False
        t = action["type"]
        if t == "end":
            return len(action) == 1
        k = action.get("card")
        if t not in ("play", "swap") or not isinstance(k, str) or k not in s["hands"][seat]:
            return False
        if t == "swap":
            return True
        c = CARDS[k]
        return not c["stop"] and (not c["target"] or bool(valid_targets(s, seat)))
    return action in _actions(s, seat)


# What a voter's time running out does: no marker. Not one of the moves offered (RULES.md, Voting),
# and marked as the clock's: games.services refuses an action with "timeout" from a player, so a
# voter cannot abstain on purpose.
NO_MARKER = {"type": "vote", "marker": "none", "timeout": True}


def to_act(state: Any) -> dict[Any, Any]:
    s = state
    if not s or s["over"]:
        return {}
    v = s["vote"]
    if v is not None:
        return {p: {"kind": "window", "default": dict(NO_MARKER),
                    "seconds": s["options"]["vote_seconds"]} for p in v["waiting"]}
    if s["race_over"]:
        return {}
    r = s["react"]
    if r is not None:
        return {p: {"kind": "window", "default": {"type": "pass"},
                    "seconds": s["options"]["reaction_seconds"]} for p in r["waiting"]}
    pend = pending(s)
    if pend is None:
        return {}
    seat, kind, _ = pend
    return {seat: {"kind": "turn", "default": {"type": "end"} if kind == "cards" else None,
                   "seconds": None}}


def timers(state):
    return []


def result(state):
    if not state or not state.get("over"):
        return None
    o = state["outcome"]
    return {"ranks": list(o["ranks"]), "scores": list(o["scores"]), "winners": list(o["winners"]),
            "summary": o["summary"]}


# --------------------------------------------------------------------------------------------
# What each seat may see.

def view(state, seat):
    s = state
    me = seat if _int(seat) and s and 0 <= seat < s["n"] else None
    v = s["vote"]
    pend = pending(s)
    out = {
        "n": s["n"], "colors": list(_colors(s)), "disc": s["disc"], "line": s["line"],
        "positions": list(s["pos"]), "points": list(s["points"]),
        "hot_passed": [{"square": sq, "seats": list(ps)} for sq, ps in zip(HOT, s["hot_passed"])],
        "hand_counts": [len(h) for h in s["hands"]],
        "pile_count": len(cards_of(s["pile"])), "pile_round": s["pile_round"],
        "discard": cards_of(s["discard"]),
        "resigned": list(s["resigned"]), "active": s["active"], "stage": s["stage"],
        "dice": dict(s["dice"]) if s["dice"] else None, "value": s["value"], "uses": s["uses"],
        "turn_no": s["turn_no"], "last_card": dict(s["last_card"]) if s.get("last_card") else None,
        "playing": ({k: (list(map(list, val)) if k == "dirs" else val) for k, val in s["playing"].items()}
                    if s["playing"] else None),
        "react": {"waiting": list(s["react"]["waiting"])} if s["react"] else None,
        "vote": ({"kind": v["kind"], "why": v["why"], "voters": list(v["voters"]),
                  "waiting": list(v["waiting"]), "candidates": list(v["candidates"]),
                  "voted": [p for p in v["voters"] if p not in v["waiting"]]} if v else None),
        "waiting_for": ({"seat": pend[0], "kind": pend[1]} if pend else None),
        "to_act": sorted(to_act(s)),
        "race_over": s["race_over"], "end": s["end"], "over": s["over"],
        "result": result(s),
        "you": None,
    }
    if me is not None:
        out["you"] = {
            "seat": me, "color": _colors(s)[me], "hand": list(s["hands"][me]),
            "objective": s["objectives"][me],
            "ballot": v["ballots"][me] if v is not None else None,
        }
    return out


def redact(e, seat):
    t, d = e["type"], e["data"]
    me = seat if _int(seat) else None
    if t == "setup":
        data = {k: val for k, val in d.items() if k not in ("hands", "objectives", "pile")}
        data["hands"] = [list(h) if p == me else None for p, h in enumerate(d["hands"])]
        data["hand_counts"] = [len(h) for h in d["hands"]]
        data["objectives"] = [o if p == me else None for p, o in enumerate(d["objectives"])]
        data["pile_count"] = len(d["pile"])
        return {"type": t, "data": data}
    if t == "reshuffle":
        return {"type": t, "data": {"pile_count": len(d["pile"])}}
    if t == "draw" and d["kept"] and d["seat"] != me:
        return {"type": t, "data": {k: val for k, val in d.items() if k != "card"}}
    if t == "vote" and d["seat"] != me:
        return {"type": t, "data": {"seat": d["seat"]}}
    if t == "give" and d["what"] == "hand" and d["kept"] and me not in (d["from"], d["to"]):
        return {"type": t, "data": {k: val for k, val in d.items() if k != "card"}}
    return {"type": t, "data": dict(d)}


# --------------------------------------------------------------------------------------------
# The log.

def _effect_text(eff):
    do = eff["do"]
    who = {"me": "the active player", "you": "the chosen player", "others": "every other player",
           "all": "every player"}
    if do == "target":
        return "choose a player (ahead if the disc is black, behind if white)"
    if do == "move":
        d = {"forward": "forward", "backward": "back", "either": "forward or back"}[eff["dir"]]
        s = "square" if eff["steps"] == 1 else "squares"
        return f"{who[eff['who']]} moves {eff['steps']} {s} {d}"
    if do == "kenta":
        return "flip the Kenta disc or move the finish line one square"
    if do == "draw":
        return f"{who[eff['who']]} draws a card"
    if do == "discard":
        return f"{who[eff['who']]} discards a card"
    if eff["what"] == "this":
        return "give this card to the chosen player"
    return "give a card from your hand to the chosen player"


def card_text(key):
    c = CARDS[key]
    if c["stop"]:
        return "Cancel another player's action card; both are discarded and that player scores 1 point."
    parts = [_effect_text(e) for e in c["effects"]]
    text = "; then ".join(parts)
    text = text[0].upper() + text[1:] + "."
    if c["points"]:
        text += f" Worth {c['points']} point{'s' if c['points'] > 1 else ''} if held at the end."
    return text


def describe(e, names):
    t, d = e["type"], e["data"]
    say = DESCRIBE.get(t)
    return t if say is None else say(d, names)  # an unknown event type is logged by its name


def _nm(names: Any, p: Any) -> Any:
    """A seat's name in the log (``Seat p`` when the list has none for it)."""
    return names[p] if p is not None and 0 <= p < len(names) else f"Seat {p}"


def _cn(k: Any) -> str:
    """A card's name in the log (its key when the card is unknown)."""
    return CARDS[k]["name"] if k in CARDS else str(k)


def _log_setup(d: dict[str, Any], names: Any) -> str:
    return (f"The race begins: the Kenta disc shows {d['disc']}, the finish line is on square "
            f"{d['line']}, and {_nm(names, d['first'])} starts.")


def _log_turn(d: dict[str, Any], names: Any) -> str:
    return f"It is {_nm(names, d['seat'])}'s turn."


def _log_roll(d: dict[str, Any], names: Any) -> str:
    txt = f"{_nm(names, d['seat'])} rolled black {ROMAN[d['black']]} and white {ROMAN[d['white']]}"
    if d["black"] == d["white"]:
        return txt + ": doubles! The disc flips and everyone votes on the finish line."
    return txt + "."


def _log_die(d: dict[str, Any], names: Any) -> str:
    return f"{_nm(names, d['seat'])} chose the {d['color']} die ({ROMAN[d['value']]}); the disc shows {d['color']}."


def _log_act(d: dict[str, Any], names: Any) -> str:
    if d["value"] <= 3:
        return f"{_nm(names, d['seat'])} moves {d['value']} square{'s' if d['value'] > 1 else ''}."
    return f"{_nm(names, d['seat'])} draws a card (IV)."


def _log_vote_open(d: dict[str, Any], names: Any) -> str:
    who = ", ".join(_nm(names, p) for p in d["voters"])
    if d["kind"] == "winner":
        return f"Tie for the win: {who} vote in secret for the winner."
    return f"Secret vote on the finish line: {who}."


def _log_vote(d: dict[str, Any], names: Any) -> str:
    if "marker" in d:  # the voter's own copy (``redact``)
        m = d["marker"]
        what = "no marker" if m == "none" else (f"a vote for {_nm(names, m)}" if _int(m) else f"the {m} marker")
        if d.get("timeout"):
            return f"{_nm(names, d['seat'])}'s time to vote ran out: no marker."
        return f"{_nm(names, d['seat'])} voted in secret ({what})."
    return f"{_nm(names, d['seat'])} voted in secret."


def _log_vote_reveal(d: dict[str, Any], names: Any) -> str:
    parts = []
    for p, b in enumerate(d["ballots"]):
        if b is None:
            continue
        parts.append(f"{_nm(names, p)}: "
                     + ("no marker (time ran out)" if b == "none" else (_nm(names, b) if _int(b) else b)))
    shown = "; ".join(parts) or "no votes"
    if d["kind"] == "line":
        return f"Votes revealed ({shown}): the finish line moves {d['delta']:+d} to square {d['line']}."
    return f"Votes revealed ({shown}): {' and '.join(_nm(names, w) for w in d['winners'])} win the tie."


def _log_move(d: dict[str, Any], names: Any) -> str:
    why = {"die": "", "card": " (card)", "arrow": " (active square arrow)"}.get(d["why"], "")
    parts = [f"{_nm(names, m['seat'])} {m['from']}→{m['to']}" for m in d["moves"]]
    return "Pawns move" + why + ": " + ", ".join(parts) + "."


def _log_hot(d: dict[str, Any], names: Any) -> str:
    who = ", ".join(f"{_nm(names, p)} +{pt}" for p, pt in zip(d["seats"], d["points"]))
    return f"Hot spot sprint on square {d['square']}: {who}."


def _log_draw(d: dict[str, Any], names: Any) -> str:
    if not d["kept"]:
        return f"{_nm(names, d['seat'])} already holds five cards: the drawn {_cn(d['card'])} is discarded."
    if "card" in d:
        return f"{_nm(names, d['seat'])} drew {_cn(d['card'])}."
    return f"{_nm(names, d['seat'])} drew a card."


def _log_reshuffle(d: dict[str, Any], names: Any) -> str:
    return ("The pile ran out: the discard pile is shuffled into a new pile of "
            f"{d.get('pile_count', len(d.get('pile', [])))} cards.")


def _log_hot_stop(d: dict[str, Any], names: Any) -> str:
    return (f"{_nm(names, d['seat'])} stopped on the hot spot sprint on square {d['square']} "
            "and moves the finish line.")


def _log_line(d: dict[str, Any], names: Any) -> str:
    return (f"{_nm(names, d['seat'])} moved the finish line {'forward' if d['delta'] > 0 else 'back'} "
            f"to square {d['line']}.")


def _log_disc(d: dict[str, Any], names: Any) -> str:
    return f"{_nm(names, d['seat'])} flipped the Kenta disc to {d['color']}."


def _log_cards(d: dict[str, Any], names: Any) -> str:
    return f"{_nm(names, d['seat'])} may now use up to two cards."


def _log_announce(d: dict[str, Any], names: Any) -> str:
    return f"{_nm(names, d['seat'])} plays {_cn(d['card'])}: {card_text(d['card'])}"


def _log_swap(d: dict[str, Any], names: Any) -> str:
    return f"{_nm(names, d['seat'])} discarded {_cn(d['card'])} to draw a new card."


def _log_pass(d: dict[str, Any], names: Any) -> str:
    return f"{_nm(names, d['seat'])} lets the card resolve."


def _log_stop(d: dict[str, Any], names: Any) -> str:
    return (f"{_nm(names, d['seat'])} played STOP: {_nm(names, d['against'])}'s {_cn(d['cancelled'])} is cancelled "
            f"and {_nm(names, d['against'])} scores 1 point.")


def _log_effect(d: dict[str, Any], names: Any) -> str:
    c = CARDS.get(d["card"])
    eff = c["effects"][d["step"]] if c and d["step"] < len(c["effects"]) else None
    txt = _effect_text(eff) if eff else "effect"
    if d.get("skipped"):
        return f"{_cn(d['card'])}: {txt}: nothing to do."
    if "target" in d:
        return f"{_cn(d['card'])}: {_nm(names, d['seat'])} chose {_nm(names, d['target'])}."
    if "choice" in d:
        return f"{_cn(d['card'])}: {_nm(names, d['seat'])} chose to " + {
            "flip": "flip the Kenta disc.", "forward": "move the finish line forward.",
            "back": "move the finish line back."}[d["choice"]]
    return f"{_cn(d['card'])}: {txt}."


def _log_dir(d: dict[str, Any], names: Any) -> str:
    whom = "their own pawn" if d["mover"] == d["seat"] else f"{_nm(names, d['mover'])}'s pawn"
    return f"{_nm(names, d['seat'])} will move {whom} {'forward' if d['dir'] == 'forward' else 'back'}."


def _log_discard(d: dict[str, Any], names: Any) -> str:
    return f"{_nm(names, d['seat'])} discarded {_cn(d['card'])}."


def _log_give(d: dict[str, Any], names: Any) -> str:
    what = _cn(d["card"]) if "card" in d else "a card"
    txt = f"{_nm(names, d['from'])} gave {what} to {_nm(names, d['to'])}"
    return txt + ("." if d["kept"] else ", who holds five cards, so it is discarded.")


def _log_done(d: dict[str, Any], names: Any) -> str:
    return f"{_nm(names, d['seat'])}'s {_cn(d['card'])} is resolved."


def _log_race_end(d: dict[str, Any], names: Any) -> str:
    why = {"pawn": "a pawn reached the finish line", "line": "the finish line reached the leading pawn",
           "pile": "the pile was drawn out for the second time"}.get(d["why"], d["why"])
    fin = ", ".join(f"{_nm(names, p)} {f}" for p, f in enumerate(d["final"]) if f is not None)
    return f"The race is over: {why}. Objectives revealed; final squares: {fin}."


def _log_game_over(d: dict[str, Any], names: Any) -> str:
    winners = d["winners"]
    return f"Game over: {' and '.join(_nm(names, w) for w in winners)} win{'s' if len(winners) == 1 else ''}."


def _log_resign(d: dict[str, Any], names: Any) -> str:
    return f"{_nm(names, d['seat'])} resigned."


DESCRIBE: Final[dict[str, Callable[[dict[str, Any], Any], str]]] = {
    "setup": _log_setup, "turn": _log_turn, "roll": _log_roll, "die": _log_die, "act": _log_act,
    "vote_open": _log_vote_open, "vote": _log_vote, "vote_reveal": _log_vote_reveal, "move": _log_move,
    "hot": _log_hot, "draw": _log_draw, "reshuffle": _log_reshuffle, "hot_stop": _log_hot_stop,
    "line": _log_line, "disc": _log_disc, "cards": _log_cards, "announce": _log_announce,
    "swap": _log_swap, "pass": _log_pass, "stop": _log_stop, "effect": _log_effect, "dir": _log_dir,
    "discard": _log_discard, "give": _log_give, "done": _log_done, "race_end": _log_race_end,
    "game_over": _log_game_over, "resign": _log_resign,
}
