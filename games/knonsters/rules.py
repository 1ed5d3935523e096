"""Knonsters: a race of four Knonsters, players bet on two secret favourites.

Pure rules (games/engine.py contract). Interpretations: games/knonsters/RULES.md.
"""

from __future__ import annotations

import json
import marshal
from collections.abc import Callable
from itertools import permutations
from pathlib import Path
from typing import Any, Final, NoReturn, final

from games.engine import IllegalAction, clone, event, fill_seats, seat_ref

SLUG = "knonsters"
NAME = "Knonsters"
MIN_PLAYERS = 2
MAX_PLAYERS = 4

OPTIONS_SCHEMA = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "additionalProperties": False,
    "properties": {
        "win_bet": {
            "type": "boolean",
            "default": False,
            "title": "Win Bet",
            "description": "When choosing favourites, also predict which of the two wins the race: +15 points if it finishes first.",
        },
        "superpowers": {
            "type": "boolean",
            "default": False,
            "title": "Superpowers",
            "description": "Each Knonster has a superpower, usable once per game by a player who reveals that Knonster as a favourite.",
        },
    },
}

DATA_DIR = Path(__file__).parent / "data"
POWER_KINDS = {"back_then_forward", "follow", "double", "reverse"}


# --------------------------------------------------------------------------- data


def load_deck(path: Path) -> dict:
    """Load and validate the deck file; ValueError naming the file and the problem."""
    name = str(path)
    raw = _read_json(path, name)
    _check_rules(raw, name)
    knonsters = raw["knonsters"]
    cards: dict[str, dict[str, Any]] = {}
    counts: dict[str, int] = {}
    _knonster_cards(raw, name, knonsters, cards, counts)
    _rank_cards(raw, name, cards, counts)
    playing = sum(counts.values())
    _check_box(raw, name, playing)
    deck = []
    for code in cards:
        deck += [code] * counts[code]
    return {
        "knonsters": list(knonsters), "powers": dict(raw["powers"]), "cards": cards, "deck": deck,
        "deal": {int(k): v for k, v in raw["deal"].items()}, "points": list(raw["points"]),
        "win_bet_points": raw["win_bet_points"], "finish": raw["finish_after"] + 1,
        "hand_limit": raw["hand_limit"],
    }


def _bad(name: str, msg: str) -> NoReturn:
    raise ValueError(f"{name}: {msg}")


def _need_int(name: str, obj: Any, key: str, where: str, minimum: int = 0) -> Any:
    v = obj.get(key) if isinstance(obj, dict) else None
    if not isinstance(v, int) or isinstance(v, bool) or v < minimum:
        _bad(name, f"{where}: '{key}' must be an integer >= {minimum}")
    return v


def _read_json(path: Path, name: str) -> Any:
    try:
        with open(path, encoding="utf-8") as fh:
            raw = json.load(fh)
    except (OSError, json.JSONDecodeError) as exc:
        raise ValueError(f"{name}: cannot be read as JSON ({exc})") from exc
    if not isinstance(raw, dict):
        _bad(name, "the top level must be an object")
    return raw


def _check_rules(raw: Any, name: str) -> None:
    """The deck's numbers, Knonsters, deal, points and powers (all but its cards)."""
    for key in ("box_total", "star_cards_per_player", "max_players", "finish_after", "hand_limit", "win_bet_points"):
        _need_int(name, raw, key, "top level", 1)
    knonsters = raw.get("knonsters")
    if (not isinstance(knonsters, list) or len(knonsters) != 4
            or not all(isinstance(k, str) and k.isalpha() for k in knonsters) or len(set(knonsters)) != 4):
        _bad(name, "'knonsters' must list four different names (letters only)")
    if raw["star_cards_per_player"] != len(knonsters):
        _bad(name, "'star_cards_per_player' must equal the number of Knonsters (one star card each)")
    deal = raw.get("deal")
    if not isinstance(deal, dict) or set(deal) != {"2", "3", "4"}:
        _bad(name, "'deal' must give the deal size for \"2\", \"3\" and \"4\" players")
    for k in deal:
        _need_int(name, deal, k, "deal", 1)
    points = raw.get("points")
    if not isinstance(points, list) or len(points) != 3 or not all(isinstance(p, int) and p >= 0 for p in points):
        _bad(name, "'points' must be three non-negative integers (ranks 1, 2, 3)")
    powers = raw.get("powers")
    if not isinstance(powers, dict) or set(powers) != set(knonsters) or set(powers.values()) != POWER_KINDS:
        _bad(name, f"'powers' must give each Knonster one different power of {sorted(POWER_KINDS)}")


def _knonster_cards(raw: Any, name: str, knonsters: list[str], cards: dict[str, dict[str, Any]],
                    counts: dict[str, int]) -> None:
    """Each entry of "knonster_cards": one card per Knonster, into ``cards`` and ``counts``."""
    kc = raw.get("knonster_cards")
    if not isinstance(kc, list) or not kc:
        _bad(name, "'knonster_cards' must be a non-empty list")
    for i, c in enumerate(kc):
        where = f"knonster_cards[{i}]"
        if not isinstance(c, dict):
            _bad(name, f"{where} must be an object")
        kind = c.get("kind")
        if kind not in ("plus", "upto", "triple"):
            _bad(name, f"{where}: 'kind' must be plus, upto or triple")
        suffix = c.get("suffix")
        if not isinstance(suffix, str) or not suffix or " " in suffix:
            _bad(name, f"{where}: 'suffix' must be a short text without spaces")
        per = _need_int(name, c, "per_knonster", where, 1)
        spec = {"kind": kind}
        if kind in ("plus", "upto"):
            spec["steps"] = _need_int(name, c, "steps", where, 1)
        if kind == "upto":
            spec["behind"] = _need_int(name, c, "behind", where, 0)
        for k in knonsters:
            code = f"{k}{suffix}"
            if code in cards:
                _bad(name, f"{where}: card {code} defined twice")
            cards[code] = dict(spec, knonster=k, code=code)
            counts[code] = per


def _rank_cards(raw: Any, name: str, cards: dict[str, dict[str, Any]], counts: dict[str, int]) -> None:
    """Each entry of "rank_cards", into ``cards`` and ``counts``."""
    rc = raw.get("rank_cards")
    if not isinstance(rc, list):
        _bad(name, "'rank_cards' must be a list")
    for i, c in enumerate(rc):
        where = f"rank_cards[{i}]"
        if not isinstance(c, dict):
            _bad(name, f"{where} must be an object")
        code = c.get("code")
        if not isinstance(code, str) or not code or " " in code or code in cards:
            _bad(name, f"{where}: 'code' must be a new short text without spaces")
        rank = _need_int(name, c, "rank", where, 1)
        if rank > 4:
            _bad(name, f"{where}: 'rank' must be 1..4")
        spec = {"kind": "rank", "rank": rank, "steps": _need_int(name, c, "steps", where, 1), "code": code,
                "knonster": None}
        if "ahead" in c:
            spec["ahead"] = _need_int(name, c, "ahead", where, 0)
        cards[code] = spec
        counts[code] = _need_int(name, c, "count", where, 1)


def _check_box(raw: Any, name: str, playing: int) -> None:
    """The playing and star cards make the box; every deal fits in the playing cards."""
    stars = raw["star_cards_per_player"] * raw["max_players"]
    if playing + stars != raw["box_total"]:
        _bad(name, f"{playing} playing cards + {stars} star cards do not make the {raw['box_total']} cards of the box")
    deal = raw["deal"]
    for n in (2, 3, 4):
        if deal[str(n)] * n > playing:
            _bad(name, f"cannot deal {deal[str(n)]} cards to {n} players from {playing} cards")


DECK = load_deck(DATA_DIR / "deck.json")
KNONSTERS: Final[list[str]] = DECK["knonsters"]
CARDS: Final[dict[str, dict[str, Any]]] = DECK["cards"]
POWERS: Final = DECK["powers"]
GOAL: Final[int] = DECK["finish"]          # the first square past the finish line (61)
FINISHED_FOR_END: Final = 3
HAND_LIMIT: Final[int] = DECK["hand_limit"]

POWER_TEXT = {
    "back_then_forward": "moves back 5, plays its up-to-20 card or a card of its rank, then moves 5 forward",
    "follow": "follows a Knonster within 5 steps that the card moves, by as many steps",
    "double": "doubles a +5 or +7 card",
    "reverse": "plays the +5 or +7 card of another Knonster backwards",
}


def card_label(code: str) -> str:
    if code in _LABELS:
        return _LABELS[code]
    return _card_label(code)


def _card_label(code: str) -> str:
    c = CARDS.get(code)
    if c is None:
        return code
    k = c["knonster"]
    if c["kind"] == "plus":
        return f"{k} +{c['steps']}"
    if c["kind"] == "upto":
        return f"{k} up to {c['steps']}"
    if c["kind"] == "triple":
        return f"Triple {k}'s lead"
    extra = f" (at most {c['ahead']} ahead of rank 1)" if "ahead" in c else ""
    return f"Rank {c['rank']} +{c['steps']}{extra}"


_LABELS = {code: _card_label(code) for code in CARDS}


def card_text(code: str) -> str:
    c = CARDS[code]
    k = c["knonster"]
    if c["kind"] == "plus":
        return f"Move {k} {c['steps']} steps forward."
    if c["kind"] == "upto":
        return f"Move {k} at most {c['steps']} steps forward (no further than {c['behind']} steps behind the Knonster(s) with rank 1)."
    if c["kind"] == "triple":
        return f"Triple the lead of {k} (no effect unless {k} alone has rank 1)."
    if "ahead" in c:
        return f"Move the Knonster with rank {c['rank']} {c['steps']} steps forward, but at most {c['ahead']} step ahead of the Knonster(s) with rank 1."
    return f"Move the Knonster with rank {c['rank']} {c['steps']} steps forward."


# --------------------------------------------------------------------------- race mechanics


def ranks(pos: dict, podium: list) -> dict:
    """Knonster -> rank: how many are in front (finished ones count) plus one."""
    out = {}
    base = len(podium) + 1
    # in the running positions sorted best first, a position's first index is how many are in front
    running = sorted([pos[k] for k in KNONSTERS if k not in podium], reverse=True)
    for k in KNONSTERS:
        if k in podium:
            out[k] = podium.index(k) + 1
        else:
            out[k] = base + running.index(pos[k])
    return out


def with_rank(pos: dict[str, int], podium: list[str], rank: int) -> str | None:
    """The only Knonster with this rank, or None if there is none or several."""
    if rank <= len(podium):
        return podium[rank - 1] if rank >= 1 else None
    # the same answer as looking ``rank`` up in ``ranks``, without building them all (a rank
    # card asks this on every move): the running Knonster with rank - len(podium) - 1 in front
    running: list[int]
    if podium:
        running = sorted([p for k, p in pos.items() if k not in podium], reverse=True)
    else:
        running = sorted(pos.values(), reverse=True)
    ahead: int = rank - len(podium) - 1
    if ahead >= len(running):
        return None
    p: int = running[ahead]
    if (ahead and running[ahead - 1] == p) or (ahead + 1 < len(running) and running[ahead + 1] == p):
        return None  # nobody has this rank (a tie in front of it), or several share it
    for k, q in pos.items():  # the one running Knonster there
        if q == p and k not in podium:
            return k
    return None


def leader_pos(pos: dict[str, int], podium: list[str]) -> int:
    if podium:
        return GOAL
    return max(pos.values())


def card_effect(pos: dict[str, int], podium: list[str], code: str) -> tuple[str | None, int]:
    """(knonster, steps) the card moves under the regular rules; steps 0 = no effect."""
    e = _EFFECT[code]
    kind: str = e.kind
    steps: int = e.steps
    limit: int = e.limit
    if kind == "plus":
        k: str = e.knonster
        return k, 0 if k in podium else steps
    if kind == "rank":
        r = with_rank(pos, podium, e.rank)
        if r is None or r in podium:
            return r, 0
        if e.has_limit:  # at most ``limit`` steps ahead of rank 1
            room: int = leader_pos(pos, podium) + limit - pos[r]
            return r, _up_to(steps, room)
        return r, steps
    k = e.knonster
    if k in podium:
        return k, 0
    if kind == "upto":  # at most to ``limit`` steps behind rank 1
        return k, _up_to(steps, leader_pos(pos, podium) - limit - pos[k])
    # triple: only the sole rank-1 Knonster; its lead over rank 2 becomes three times as big.
    # Rank 1 alone means nobody finished (a finished one holds rank 1) and strictly in front.
    if podium:
        return k, 0
    second: int = max([p for o, p in pos.items() if o != k])
    mine: int = pos[k]
    if mine <= second:
        return k, 0
    return k, 2 * (mine - second)


def _up_to(steps: int, room: int) -> int:
    """``max(0, min(steps, room))``, without the builtins' slower calls (a card per move)."""
    if room <= 0:
        return 0
    return steps if steps < room else room


@final
class _Effect:
    """card_effect's reading of a card: its kind, its Knonster ("" for a rank card), steps, the
    rank a rank card moves (0 for the others), the "ahead" or "behind" limit (has_limit: whether
    the card has one; limit 0 when not)."""

    __slots__ = ("kind", "knonster", "steps", "rank", "has_limit", "limit")

    def __init__(self, c: dict[str, Any]) -> None:
        self.kind: str = c["kind"]
        self.knonster: str = c["knonster"] or ""
        self.steps: int = c.get("steps", 0)
        self.rank: int = c.get("rank", 0)
        lim = c.get("ahead", c.get("behind"))
        self.has_limit: bool = lim is not None
        self.limit: int = lim if lim is not None else 0


# card_effect's reading of each card in one look-up
_EFFECT: Final[dict[str, _Effect]] = {code: _Effect(c) for code, c in CARDS.items()}


class _Race:
    """A scratch copy of the track that records every movement."""

    def __init__(self, pos, podium):
        self.pos = dict(pos)
        self.podium = list(podium)
        self.moves = []

    def over(self):
        return len(self.podium) >= FINISHED_FOR_END

    def move(self, k, steps):
        if self.over() or k in self.podium or steps == 0:
            return 0
        old = self.pos[k]
        new = max(0, min(GOAL, old + steps))
        if new == old:
            return 0
        self.pos[k] = new
        place = None
        if new >= GOAL:
            self.podium.append(k)
            place = len(self.podium)
        self.moves.append({"knonster": k, "from": old, "to": new, "place": place})
        return new - old


def _power_fits(power, card):
    """A quick filter: can this kind of card be affected by the power at all?"""
    kind = POWERS.get(power)
    if kind in ("double", "reverse"):
        return card["kind"] == "plus"
    if kind == "back_then_forward":
        return card["kind"] == "rank" or (card["kind"] == "upto" and card["knonster"] == power)
    return kind == "follow"


def has_effect(pos: dict[str, int], podium: list[str], code: str) -> bool:
    """Whether playing ``code`` (no superpower) moves anything: ``bool(simulate(...))``."""
    return len(podium) < FINISHED_FOR_END and card_effect(pos, podium, code)[1] > 0


def simulate(pos: dict[str, int], podium: list[str], code: str,
             power: str | None = None) -> list[dict[str, Any]] | None:
    """The moves of playing ``code`` (with ``power``: a Knonster's superpower).

    Returns the list of moves (empty: the card has no effect) or None when the
    superpower cannot be used with this card.
    """
    if power is None:
        if len(podium) >= FINISHED_FOR_END:
            return []
        k, steps = card_effect(pos, podium, code)
        if steps <= 0 or k is None:
            return []
        old: int = pos[k]
        new: int = old + steps
        if new >= GOAL:
            return [{"knonster": k, "from": old, "to": GOAL, "place": len(podium) + 1}]
        return [{"knonster": k, "from": old, "to": new, "place": None}]
    c = CARDS[code]
    if not _power_fits(power, c):
        return None
    race = _Race(pos, podium)
    kind = POWERS[power]
    if kind == "double":
        if c["kind"] != "plus" or c["knonster"] in race.podium:
            return None
        race.move(c["knonster"], 2 * c["steps"])
        return race.moves
    if kind == "reverse":
        k = c["knonster"]
        if c["kind"] != "plus" or k == power or k in race.podium or race.pos[k] < 1:
            return None
        race.move(k, -c["steps"])
        return race.moves
    if kind == "follow":
        if power in race.podium:
            return None
        k, steps = card_effect(race.pos, race.podium, code)
        if k is None or k == power or k in race.podium or steps <= 0 or abs(race.pos[k] - race.pos[power]) > 5:
            return None
        moved = race.move(k, steps)
        race.move(power, moved)
        return race.moves
    # back_then_forward
    if power in race.podium or race.pos[power] < 5:
        return None
    race.move(power, -5)
    if c["kind"] == "upto" and c["knonster"] == power:
        pass
    elif c["kind"] == "rank" and with_rank(race.pos, race.podium, c["rank"]) == power:
        pass
    else:
        return None
    k, steps = card_effect(race.pos, race.podium, code)
    race.move(power, steps)
    race.move(power, 5)
    return race.moves


# --------------------------------------------------------------------------- scoring


def _flag(state: dict[str, Any], key: str) -> bool:
    """Whether the game's option ``key`` is on (``bool(state["options"].get(key))``)."""
    options: dict[str, Any] = state["options"]
    return bool(options.get(key))


def scores(state: dict[str, Any], podium: list[str] | None = None) -> list[int]:
    pod: list[str] = state["podium"] if podium is None else podium
    n: int = state["n"]
    resigned: list[Any] = state["resigned"]
    favs: list[Any] = state["favs"]
    points: list[int] = DECK["points"]
    pts: list[int] = [0] * n
    active: list[int] = [s for s in range(n) if not resigned[s] and favs[s]]
    for place, k in enumerate(pod[:3]):
        choosers: list[int] = [s for s in active if k in favs[s]]
        for s in choosers:
            pts[s] += points[place] // len(choosers)  # 48/24/12 divide by 1..4 exactly
    if _flag(state, "win_bet") and pod:
        bets: list[Any] = state["bets"]
        for s in active:
            if bets[s] == pod[0]:
                pts[s] += DECK["win_bet_points"]
    return pts


def hidden_stars(state: dict[str, Any], seat: int) -> int:
    favs = state["favs"][seat] or []
    return len([k for k in favs if k not in state["revealed"][seat]])


def player_ranks(state: dict[str, Any], podium: list[str] | None = None) -> list[int]:
    """Rank per seat: points, then (Superpowers) hidden star cards; resigned seats last."""
    pts = scores(state, podium)
    n: int = state["n"]
    resigned: list[Any] = state["resigned"]
    sp = _flag(state, "superpowers")
    # each seat's sort key (points, hidden star cards or 0), compared as the tuple it was
    hidden: list[int] = [hidden_stars(state, s) if sp and not resigned[s] else 0 for s in range(n)]
    active: list[int] = [s for s in range(n) if not resigned[s]]
    out: list[int] = [0] * n
    for s in active:
        p: int = pts[s]
        h: int = hidden[s]
        above: int = 0
        for o in active:
            q: int = pts[o]
            if q > p or (q == p and hidden[o] > h):
                above += 1
        out[s] = 1 + above
    for s in range(n):
        if resigned[s]:
            out[s] = len(active) + 1
    return out


def is_decided(state: dict[str, Any]) -> bool:
    """True when no way the race can still end changes the ranking of the players."""
    podium: list[str] = state["podium"]
    resigned: list[Any] = state["resigned"]
    if not podium:
        # nobody finished yet: "nobody ever finishes" ties everyone, while a Knonster
        # chosen by some players only separates them
        chosen: list[Any] | None = None
        for s, favs in enumerate(state["favs"]):
            if not resigned[s]:
                mine: list[Any] = favs or []
                if chosen is None:
                    chosen = mine
                elif not _same_choice(mine, chosen):
                    return False
    # the answer only changes when a Knonster finishes, a player resigns or a power is used,
    # and the race asks after every move: answers are kept by everything they depend on
    # (marshal: the key in one C call; version 2 writes equal data as equal bytes, no back-references)
    options: dict[str, Any] = state["options"]
    key: bytes = marshal.dumps((
        state["n"], bool(options.get("win_bet")), bool(options.get("superpowers")), podium, resigned,
        state["favs"], state["bets"], state["powers_used"], state["revealed"]), 2)
    known = _DECIDED.get(key)
    if known is None:
        if len(_DECIDED) >= 4096:  # bounded, like the lru_cache(4096) this was: answers only save time
            _DECIDED.clear()
        known = _decided(key)
        _DECIDED[key] = known
    return known


def _same_choice(a: list[Any], b: list[Any]) -> bool:
    """``sorted(a) == sorted(b)``, without sorting the usual pairs of favourites."""
    if len(a) == 2 and len(b) == 2:
        return (a[0] == b[0] and a[1] == b[1]) or (a[0] == b[1] and a[1] == b[0])
    return sorted(a) == sorted(b)


# is_decided's answers by their marshalled key (see there)
_DECIDED: Final[dict[bytes, bool]] = {}


def _decided(key: bytes) -> bool:
    n, win_bet, superpowers, podium, resigned, favs, bets, powers_used, revealed = marshal.loads(key)
    state = {"n": n, "options": {"win_bet": win_bet, "superpowers": superpowers}, "podium": podium,
             "resigned": resigned, "favs": [list(f) if f else None for f in favs], "bets": bets,
             "powers_used": powers_used, "revealed": revealed}
    return _is_decided(state, [s for s in range(n) if not resigned[s]])


def _is_decided(state: dict[str, Any], active: list[int]) -> bool:
    podium: list[str] = state["podium"]
    rest = [k for k in KNONSTERS if k not in podium]
    outcomes = []
    for length in range(0, FINISHED_FOR_END - len(podium) + 1):
        for order in permutations(rest, length):
            outcomes.append(list(podium) + list(order))
    seen = None
    sp = bool(state["options"].get("superpowers"))
    # Rithle's and Aristas's powers need their own Knonster still racing; Celya's and
    # Elaari's act on another Knonster's card, so they stay usable after their owner finished
    powers_left = sp and any(
        k not in state["powers_used"] and k in (state["favs"][s] or [])
        and not (k in podium and POWERS[k] in ("back_then_forward", "follow"))
        for s in range(state["n"]) if not state["resigned"][s] for k in KNONSTERS
    )
    for pod in outcomes:
        r = player_ranks(state, pod)
        if powers_left:
            pts = scores(state, pod)
            if len({pts[s] for s in active}) < len(active):
                return False  # a tie that a later superpower (revealing a star) could break
        if seen is None:
            seen = r
        elif r != seen:
            return False
    return True


# --------------------------------------------------------------------------- setup and evolve


def check_players(n, options):
    if not isinstance(n, int) or not MIN_PLAYERS <= n <= MAX_PLAYERS:
        raise IllegalAction("Knonsters is played by 2 to 4 players.")
    _options(options)


def _options(options):
    options = dict(options or {})
    unknown = set(options) - set(OPTIONS_SCHEMA["properties"])
    if unknown:
        raise IllegalAction(f"Unknown option(s): {', '.join(sorted(unknown))}. Allowed: win_bet, superpowers.")
    out = {}
    for key, prop in OPTIONS_SCHEMA["properties"].items():
        v = options.get(key, prop["default"])
        if not isinstance(v, bool):
            raise IllegalAction(f"Option {key} must be true or false.")
        out[key] = v
    return out


def _deal(n, rng):
    deck = rng.shuffled(DECK["deck"])
    size = DECK["deal"][n]
    hands = [sorted(deck[i * size:(i + 1) * size]) for i in range(n)]
    return hands, rng.randbelow(n)


def setup(n, options, rng):
    check_players(n, options)
    opts = _options(options)
    hands, first = _deal(n, rng)
    return [event("setup", n=n, options=opts, hands=hands, first=first)]


def _fresh_deal(state, hands, first, deal_no):
    n = state["n"]
    state["hands"] = [list(h) for h in hands]
    # the deck less the cards dealt, sorted (counted rather than removed one by one)
    left = dict(_DECK_COUNTS)
    for h in hands:
        for c in h:
            if left.get(c):
                left[c] -= 1
    state["pile"] = [c for c in _DECK_CODES for _ in range(left[c])]
    state["pos"] = {k: 0 for k in KNONSTERS}
    state["podium"] = []
    state["favs"] = [None] * n
    state["bets"] = [None] * n
    state["revealed"] = [[] for _ in range(n)]
    state["powers_used"] = []
    state["moved"] = [[0] * 4 for _ in range(n)]
    state["phase"] = "choose"
    state["first"] = first
    state["turn"] = first
    state["deal_no"] = deal_no
    state["last"] = None


_DECK_CODES: Final[list[str]] = sorted(set(DECK["deck"]))
_DECK_COUNTS: Final[dict[str, int]] = {c: DECK["deck"].count(c) for c in _DECK_CODES}


def _on_setup(state: dict[str, Any], d: dict[str, Any]) -> None:
    n = d["n"]
    state.clear()
    state.update({
        "n": n, "options": dict(d["options"]), "resigned": [False] * n, "auto": [False] * n,
        "offer": None, "offered": False, "result": None, "ended": None,
    })
    _fresh_deal(state, d["hands"], d["first"], 1)


def _on_restarted(state: dict[str, Any], d: dict[str, Any]) -> None:
    _fresh_deal(state, d["hands"], d["first"], state["deal_no"] + 1)


def _on_chosen(state: dict[str, Any], d: dict[str, Any]) -> None:
    _replaced(state, "favs")[d["seat"]] = list(d["knonsters"])
    _replaced(state, "bets")[d["seat"]] = d.get("bet")


def _on_race_started(state: dict[str, Any], d: dict[str, Any]) -> None:
    state["phase"] = "race"
    state["turn"] = d["first"]


def _on_played(state: dict[str, Any], d: dict[str, Any]) -> None:
    # the commonest event: replacements written out rather than through _replaced
    seat: int = d["seat"]
    card: str = d["card"]
    moves: list[dict[str, Any]] = d["moves"]
    power = d["power"]
    hands: list[list[str]] = state["hands"]
    if card in hands[seat]:
        hand: list[str] = hands[seat].copy()
        hand.remove(card)
        hands = hands.copy()
        state["hands"] = hands
        hands[seat] = hand
    if moves:
        pos: dict[str, int] = state["pos"]
        pos = pos.copy()
        state["pos"] = pos
        moved_all: list[list[int]] = state["moved"]
        moved_all = moved_all.copy()
        state["moved"] = moved_all
        moved: list[int] = moved_all[seat].copy()
        moved_all[seat] = moved
        for m in moves:
            k: str = m["knonster"]
            to: int = m["to"]
            pos[k] = to
            if m["place"] is not None and k not in state["podium"]:
                _replaced(state, "podium").append(k)
            i: int = _INDEX[k]
            moved[i] += to - m["from"]
    if power:
        _replaced(state, "powers_used").append(power)
        if power not in state["revealed"][seat]:
            revealed = _replaced(state, "revealed")
            revealed[seat] = revealed[seat] + [power]
    state["turn"] = d["next"]
    state["last"] = {"seat": seat, "card": card, "power": power, "moves": moves, "auto": d["auto"]}


def _on_drew(state: dict[str, Any], d: dict[str, Any]) -> None:
    seat: int = d["seat"]
    card: str = d["card"]
    hands: list[list[str]] = state["hands"]
    hands = hands.copy()
    state["hands"] = hands
    hand: list[str] = hands[seat] + [card]
    hands[seat] = hand
    hand.sort()
    pile: list[str] = state["pile"]
    if card in pile:
        pile = pile.copy()
        state["pile"] = pile
        pile.remove(card)


def _on_offered(state: dict[str, Any], d: dict[str, Any]) -> None:
    state["offered"] = True
    state["offer"] = list(d["queue"]) or None


def _on_answered(state: dict[str, Any], d: dict[str, Any]) -> None:
    if state["offer"] and d["seat"] in state["offer"]:
        _replaced(state, "offer").remove(d["seat"])
    state["offer"] = state["offer"] or None
    if d["accept"]:
        _replaced(state, "auto")[d["seat"]] = True


def _on_resigned(state: dict[str, Any], d: dict[str, Any]) -> None:
    seat = d["seat"]
    _replaced(state, "resigned")[seat] = True
    _replaced(state, "auto")[seat] = False
    if state["offer"] and seat in state["offer"]:
        _replaced(state, "offer").remove(seat)
        state["offer"] = state["offer"] or None
    if d.get("next") is not None:
        state["turn"] = d["next"]


def _on_ended(state: dict[str, Any], d: dict[str, Any]) -> None:
    state["phase"] = "over"
    state["offer"] = None
    state["ended"] = dict(d)
    state["result"] = {
        "ranks": list(d["ranks"]), "scores": list(d["scores"]), "winners": list(d["winners"]),
        "summary": d["summary"],
    }


# how each event type changes the state (a type not listed changes nothing)
EVOLVE: Final[dict[str, Callable[[dict[str, Any], dict[str, Any]], None]]] = {
    "setup": _on_setup,
    "restarted": _on_restarted,
    "chosen": _on_chosen,
    "race_started": _on_race_started,
    "played": _on_played,
    "drew": _on_drew,
    "offered": _on_offered,
    "answered": _on_answered,
    "resigned": _on_resigned,
    "ended": _on_ended,
}


def evolve(state: dict[str, Any], ev: dict[str, Any]) -> dict[str, Any]:
    """The state after ``ev``. Every list or dict of the state that changes is replaced by a
    changed copy (``_replaced``), never changed in place, so decide's scratch state (``_copy``)
    can share all the others with the state it was given."""
    t: str = ev["type"]
    d: dict[str, Any] = ev["data"]
    handler = EVOLVE.get(t)
    if handler is not None:
        handler(state, d)
    return state


def _replaced(state, key):
    """``state[key]``, replaced by a copy of its own to change (see ``evolve``)."""
    value = state[key] = state[key].copy()
    return value


_INDEX: Final[dict[str, int]] = {k: i for i, k in enumerate(KNONSTERS)}


# --------------------------------------------------------------------------- who acts


def _active(state: dict[str, Any]) -> list[int]:
    return [s for s in range(state["n"]) if not state["resigned"][s]]


def _next_seat(state: dict[str, Any], seat: int) -> int:
    n: int = state["n"]
    resigned: list[bool] = state["resigned"]
    s: int = seat + 1 if seat + 1 < n else 0
    if not resigned[s]:  # nearly always: nobody resigned
        return s
    for i in range(2, n + 1):
        s = (seat + i) % n
        if not resigned[s]:
            return s
    return seat


AUTO_NO: Final[dict[str, Any]] = {"type": "auto", "accept": False}
AUTO_YES: Final[dict[str, Any]] = {"type": "auto", "accept": True}


def to_act(state: Any) -> dict[int, dict[str, Any]]:
    if not state or state["phase"] == "over":
        return {}
    if state["phase"] == "choose":
        return {s: {"kind": "choice", "default": None, "seconds": None}
                for s in _active(state) if state["favs"][s] is None}
    if state["offer"]:
        return {state["offer"][0]: {"kind": "window", "default": dict(AUTO_NO), "seconds": None}}
    return {state["turn"]: {"kind": "turn", "default": None, "seconds": None}}


def timers(state):
    return []


def result(state):
    return state.get("result") if state else None


def _fav_notation(favs, bet):
    text = f"favourites {favs[0]} {favs[1]}"
    return text + (f" bet {bet}" if bet else "")


def _favourite_choices(win_bet):
    out = []
    for a, b in permutations(KNONSTERS, 2):
        if win_bet:
            out.append({"notation": _fav_notation([a, b], a),
                        "label": f"Favourites {a} and {b}, {a} wins",
                        "action": {"type": "favourites", "knonsters": [a, b], "bet": a}})
        elif KNONSTERS.index(a) < KNONSTERS.index(b):
            out.append({"notation": _fav_notation([a, b], None),
                        "label": f"Favourites {a} and {b}",
                        "action": {"type": "favourites", "knonsters": [a, b]}})
    return out


# the choice of favourites, without and with the win bet (legal_actions hands out copies)
_FAVOURITES: Final[dict[bool, list[dict[str, Any]]]] = {False: _favourite_choices(False), True: _favourite_choices(True)}
_FAVOURITE_ACTIONS: Final[dict[bool, list[dict[str, Any]]]] = {
    wb: [item["action"] for item in items] for wb, items in _FAVOURITES.items()}


def hand_choices(state: dict[str, Any], seat: int) -> tuple[list[str], list[tuple[str, str]]]:
    """A turn's moves in ``legal_actions``' order, lean (for the random bot: no labels, no card
    simulated for the play/discard choice until one is picked): the cards, each once, to play
    or discard (``card_action``), then the (card, Knonster) pairs of each usable superpower
    with each card it works with (``power_action``)."""
    hand: list[str] = state["hands"][seat]
    # sorted(set(hand)): evolve keeps every hand sorted, so its distinct cards in order are
    # sorted(set(hand)) already (checked on the way; any other list is sorted here)
    codes: list[str] = []
    for c in hand:
        if codes:
            last: str = codes[-1]
            if c == last:
                continue
            if c < last:
                codes = sorted(set(hand))
                break
        codes.append(c)
    powered: list[tuple[str, str]] = []
    if _flag(state, "superpowers"):
        pos: dict[str, int] = state["pos"]
        podium: list[str] = state["podium"]
        for k in state["favs"][seat] or []:
            if k in state["powers_used"]:
                continue
            powered += [(code, k) for code in codes if simulate(pos, podium, code, k) is not None]
    return codes, powered


def card_action(state: dict[str, Any], code: str) -> dict[str, Any]:
    """Play the card, or discard it when it has no effect: the only way to use it."""
    if has_effect(state["pos"], state["podium"], code):
        return {"type": "play", "card": code}
    return {"type": "discard", "card": code}


def power_action(code: str, k: str) -> dict[str, Any]:
    return {"type": "power", "knonster": k, "card": code}


def _hand_plays(state, seat):
    codes, powered = hand_choices(state, seat)
    out = []
    for code in codes:
        a = card_action(state, code)
        if a["type"] == "play":
            out.append({"notation": f"play {code}", "label": f"Play {card_label(code)}", "action": a})
        else:
            out.append({"notation": f"discard {code}", "label": f"Discard {card_label(code)} (no effect)",
                        "action": a})
    for code, k in powered:
        out.append({"notation": f"power {k} {code}",
                    "label": f"Reveal {k} and use its superpower with {card_label(code)}",
                    "action": power_action(code, k)})
    return out


def favourite_actions(state: dict[str, Any]) -> list[dict[str, Any]]:
    """The actions of ``legal_actions`` in the choice of favourites, in its order (shared: hand
    out copies)."""
    return _FAVOURITE_ACTIONS[_flag(state, "win_bet")]


def legal_actions(state, seat):
    acting = to_act(state)
    if seat not in acting:
        return []
    if state["phase"] == "choose":
        return clone(_FAVOURITES[bool(state["options"].get("win_bet"))])
    if acting[seat]["kind"] == "window":
        return [
            {"notation": "auto yes", "label": "Yes, let the system finish the game for me",
             "action": dict(AUTO_YES)},
            {"notation": "auto no", "label": "No, I keep playing", "action": dict(AUTO_NO)},
        ]
    return _hand_plays(state, seat)


# --------------------------------------------------------------------------- decide


def _summary(state, ranks_, pts, winners, reason):
    names = ", ".join(seat_ref(s) for s in winners)
    return f"{reason} Podium: {', '.join(state['podium']) or 'nobody'}. Winner{'s' if len(winners) > 1 else ''}: {names} with {pts[winners[0]] if winners else 0} points."


def _end_event(st, reason):
    pts = scores(st)
    rk = player_ranks(st)
    winners = [s for s in range(st["n"]) if rk[s] == 1]
    text = {
        "third": "The third Knonster crossed the finish line.",
        "pile": "The draw pile ran out before three Knonsters finished.",
        "resign": "Only one player is left in the game.",
    }[reason]
    return event("ended", reason=reason, favourites=[list(f) if f else None for f in st["favs"]],
                 bets=list(st["bets"]), podium=list(st["podium"]), scores=pts, ranks=rk,
                 winners=winners, summary=_summary(st, rk, pts, winners, text))


def _copy(state: dict[str, Any]) -> dict[str, Any]:
    """decide's scratch state: a shallow copy, since ``evolve`` replaces every list and dict it
    changes instead of changing it, and a whole deep copy would be a large part of
    the engine's time."""
    return state.copy()


@final
class _Out:
    """decide's events and the scratch state they lead to."""

    __slots__ = ("st", "events")

    def __init__(self, state: dict[str, Any]) -> None:
        self.st: dict[str, Any] = _copy(state)
        self.events: list[dict[str, Any]] = []

    def emit(self, ev: dict[str, Any]) -> None:
        self.events.append(ev)
        evolve(self.st, ev)


def _check_choices_complete(out, rng):
    st = out.st
    active = _active(st)
    if st["phase"] != "choose" or any(st["favs"][s] is None for s in active):
        return
    if len(active) <= 1:
        return
    same = len({tuple(sorted(st["favs"][s])) for s in active}) == 1
    if same and st["options"].get("win_bet"):
        same = len({st["bets"][s] for s in active}) == 1
    if same:
        hands, first = _deal(st["n"], rng)
        # resigned seats keep an empty hand
        hands = [[] if st["resigned"][s] else h for s, h in enumerate(hands)]
        if st["resigned"][first]:
            first = _next_seat(st, first)
        out.emit(event("restarted", reason="All players chose the same favourites.", hands=hands, first=first))
        return
    first = st["first"] if not st["resigned"][st["first"]] else _next_seat(st, st["first"])
    out.emit(event("race_started", first=first))


def _play(out: _Out, seat: int, code: str, power: str | None, rng: Any, auto: bool = False,
          moves: list[dict[str, Any]] | None = None) -> None:
    st = out.st
    if moves is None:
        moves = simulate(st["pos"], st["podium"], code, power)
    nxt: int = _next_seat(st, seat)
    out.emit({"type": "played", "data": {"seat": seat, "card": code, "power": power, "moves": moves or [],
                                         "discarded": not moves, "auto": auto, "next": nxt}})
    if len(st["podium"]) >= FINISHED_FOR_END:
        out.emit(_end_event(st, "third"))
        return
    hands: list[list[str]] = st["hands"]
    if len(hands[seat]) < HAND_LIMIT:
        pile: list[str] = st["pile"]
        if not pile:
            out.emit(_end_event(st, "pile"))
            return
        out.emit({"type": "drew", "data": {"seat": seat, "card": rng.choice(pile)}})


def _after(out: _Out, rng: Any) -> None:
    """System steps after any action: the offer to finish automatically, auto-played turns."""
    st = out.st
    for _ in range(1000):
        if st["phase"] != "race":
            return
        resigned: list[bool] = st["resigned"]
        if resigned.count(False) <= 1:
            out.emit(_end_event(st, "resign"))
            return
        if not st["offered"] and is_decided(st):
            rk = player_ranks(st)
            queue = sorted(_active(st), key=lambda s: (rk[s], (s - st["turn"]) % st["n"]))
            out.emit(event("offered", queue=queue))
        if st["offer"]:
            return
        seat: int = st["turn"]
        if not st["auto"][seat]:
            return
        code: str = rng.choice(st["hands"][seat])
        _play(out, seat, code, None, rng, auto=True)


def decide(state, seat, action, rng):
    return decide_state(state, seat, action, rng)[0]


def decide_state(state: Any, seat: Any, action: Any, rng: Any) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """``decide``'s events and the state after them (``games.engine``: optional contract), which
    decide works out anyway: the caller need not evolve every event a second time."""
    if not state:
        raise IllegalAction("The game has not started.")
    if not isinstance(action, dict) or not isinstance(action.get("type"), str):
        raise IllegalAction("That is not a move of Knonsters.")
    if state["phase"] == "over":
        raise IllegalAction("The game is over.")
    if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < state["n"]:
        raise IllegalAction("Only a player of this game can act.")
    if state["resigned"][seat]:
        raise IllegalAction("You have left this game.")
    kind: str = action["type"]
    if kind == "resign":
        return _decide_resign(state, seat, rng)
    clean = _normalise(state, action) if kind == "favourites" else action
    moves = _legal_moves(state, seat, clean)
    if moves is None:
        raise IllegalAction(_why(state, seat, action))
    out = _Out(state)
    DECIDE[kind](out, seat, clean, moves, rng)
    _after(out, rng)
    return out.events, out.st


def _decide_resign(state: dict[str, Any], seat: int, rng: Any) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """A resignation, which is legal whenever the seat is still in the game."""
    out = _Out(state)
    st = out.st
    nxt = None
    if st["phase"] == "race" and st["turn"] == seat:
        nxt = _next_seat(st, seat)
    out.emit(event("resigned", seat=seat, next=nxt))
    if len(_active(st)) <= 1:
        out.emit(_end_event(st, "resign"))
        return out.events, out.st
    if st["phase"] == "choose":
        _check_choices_complete(out, rng)
    _after(out, rng)
    return out.events, out.st


def _decide_favourites(out: _Out, seat: int, action: dict[str, Any], moves: list[dict[str, Any]], rng: Any) -> None:
    out.emit(event("chosen", seat=seat, knonsters=list(action["knonsters"]), bet=action.get("bet")))
    _check_choices_complete(out, rng)


def _decide_auto(out: _Out, seat: int, action: dict[str, Any], moves: list[dict[str, Any]], rng: Any) -> None:
    out.emit(event("answered", seat=seat, accept=bool(action["accept"])))


def _decide_card(out: _Out, seat: int, action: dict[str, Any], moves: list[dict[str, Any]], rng: Any) -> None:
    """Play, discard, or play with a superpower (``moves``: what the card does, worked out by the check)."""
    power = action.get("knonster") if action["type"] == "power" else None
    _play(out, seat, action["card"], power, rng, moves=moves)


# the events of each legal action type but resign (the moves: those _legal_moves worked out)
DECIDE: Final[dict[str, Callable[[_Out, int, dict[str, Any], list[dict[str, Any]], Any], None]]] = {
    "favourites": _decide_favourites,
    "auto": _decide_auto,
    "play": _decide_card,
    "discard": _decide_card,
    "power": _decide_card,
}


def _legal_moves(state: dict[str, Any], seat: int, action: dict[str, Any]) -> list[dict[str, Any]] | None:
    """None unless ``action in legal_actions(state, seat)`` (computed directly); else the
    moves a played card makes (simulated once, for the check and the event), [] for others."""
    kind = action.get("type")
    if state["phase"] == "race" and not state["offer"]:  # to_act: a turn, the commonest case
        if seat != state["turn"]:
            return None
        where = "turn"
    else:
        acting = to_act(state)
        if seat not in acting:
            return None
        where = acting[seat]["kind"]
    if where == "choice":
        return [] if action in _FAVOURITE_ACTIONS[_flag(state, "win_bet")] else None
    if where != "turn" or kind not in ("play", "discard", "power"):
        return [] if action in [item["action"] for item in legal_actions(state, seat)] else None
    code = action.get("card")
    if not isinstance(code, str) or code not in state["hands"][seat]:
        return None
    pos: dict[str, int] = state["pos"]
    podium: list[str] = state["podium"]
    if kind == "power":
        k = action.get("knonster")
        if set(action) != {"type", "card", "knonster"} or not _flag(state, "superpowers"):
            return None
        if not isinstance(k, str) or k not in (state["favs"][seat] or []) or k in state["powers_used"]:
            return None
        return simulate(pos, podium, code, k)
    if len(action) != 2:  # anything but its type and card
        return None
    moves = simulate(pos, podium, code)
    return moves if (kind == "play") == bool(moves) else None


def _normalise(state, action):
    """The same choice of favourites in another order is the same action."""
    clean = dict(action)
    if clean.get("type") == "favourites" and isinstance(clean.get("knonsters"), list):
        ks = list(clean["knonsters"])
        if all(k in KNONSTERS for k in ks) and len(ks) == 2:
            bet = clean.get("bet")
            if state["options"].get("win_bet") and bet in ks:
                ks = [bet] + [k for k in ks if k != bet]
            elif not state["options"].get("win_bet"):
                ks = sorted(ks, key=KNONSTERS.index)
                if clean.get("bet") is None:
                    clean.pop("bet", None)
            clean["knonsters"] = ks
    return clean


def _why(state, seat, action):
    acting = to_act(state)
    if seat not in acting:
        if state["phase"] == "choose":
            return "You have already chosen your favourites; wait for the others."
        return "It is not your turn."
    kind = action.get("type")
    where = acting[seat]["kind"]
    if where == "choice":
        if kind != "favourites":
            return "Choose your two favourites first."
        return "Choose two different Knonsters" + (" and bet on one of them." if state["options"].get("win_bet") else ".")
    if where == "window":
        return "Answer whether the system may finish the game for you: auto yes or auto no."
    card = action.get("card")
    if kind not in ("play", "discard", "power"):
        return "Play or discard one of your cards."
    if card not in state["hands"][seat]:
        return "You do not have that card."
    if kind == "power":
        if not state["options"].get("superpowers"):
            return "This game is played without superpowers."
        k = action.get("knonster")
        if k in state["powers_used"]:
            return f"The superpower of {k} has already been used."
        if k not in (state["favs"][seat] or []):
            return "You can only use the superpower of one of your favourites."
        return f"The superpower of {k} cannot be used with that card now."
    if kind == "play":
        return "That card has no effect now: discard it instead."
    return "That card has an effect: you must play it."


# --------------------------------------------------------------------------- what a seat sees


def view(state, seat):
    if not state:
        return {}
    n = state["n"]
    over = state["phase"] == "over"
    mine = seat is not None and 0 <= seat < n
    v = {
        "slug": SLUG, "n": n, "options": dict(state["options"]), "phase": state["phase"],
        "deal_no": state["deal_no"], "knonsters": list(KNONSTERS), "goal": GOAL,
        "positions": dict(state["pos"]), "podium": list(state["podium"]),
        "ranks": ranks(state["pos"], state["podium"]),
        "turn": state["turn"] if state["phase"] == "race" else None,
        "first": state["first"],
        "hand_counts": [len(h) for h in state["hands"]],
        "pile_count": len(state["pile"]),
        "chosen": [state["favs"][s] is not None for s in range(n)],
        "revealed": [list(r) for r in state["revealed"]],
        "powers": dict(POWERS), "powers_used": list(state["powers_used"]),
        "power_texts": {k: POWER_TEXT[POWERS[k]] for k in KNONSTERS},
        "moved": [list(m) for m in state["moved"]],
        "resigned": list(state["resigned"]), "auto": list(state["auto"]),
        "asking": state["offer"][0] if state["offer"] else None,
        "last": clone(state["last"]) if state["last"] else None,
        "to_act": sorted(to_act(state)),
        "result": clone(state["result"]) if state["result"] else None,
        "seat": seat if mine else None,
    }
    if mine:
        v["hand"] = list(state["hands"][seat])
        v["favourites"] = list(state["favs"][seat]) if state["favs"][seat] else None
        v["bet"] = state["bets"][seat]
    if over:
        v["all_favourites"] = [list(f) if f else None for f in state["favs"]]
        v["all_bets"] = list(state["bets"])
    return v


def redact(ev, seat):
    t, d = ev["type"], ev["data"]
    if t in ("setup", "restarted"):
        data = {k: v for k, v in d.items() if k != "hands"}
        data["hand_counts"] = [len(h) for h in d["hands"]]
        if seat is not None and 0 <= seat < len(d["hands"]):
            data["hand"] = list(d["hands"][seat])
        return {"type": t, "data": data}
    if t == "chosen":
        if seat == d["seat"]:
            return clone(ev)
        return {"type": t, "data": {"seat": d["seat"]}}
    if t == "drew":
        if seat == d["seat"]:
            return clone(ev)
        return {"type": t, "data": {"seat": d["seat"]}}
    return clone(ev)


def _nm(names: Any, s: Any) -> str:
    return names[s] if s is not None and 0 <= s < len(names) else f"Seat {s}"


def _describe_setup(d: dict[str, Any], names: Any) -> str:
    counts = d.get("hand_counts") or [len(h) for h in d.get("hands", [])]
    return (f"The cards are dealt ({counts[0] if counts else '?'} each); {_nm(names, d['first'])} will start. "
            "Everyone chooses two favourites.")


def _describe_restarted(d: dict[str, Any], names: Any) -> str:
    return ("Everyone chose the same favourites: the game restarts with a new deal. "
            + f"{_nm(names, d['first'])} will start.")


def _describe_chosen(d: dict[str, Any], names: Any) -> str:
    if "knonsters" in d:
        bet = f", betting on {d['bet']}" if d.get("bet") else ""
        return f"{_nm(names, d['seat'])} chose {d['knonsters'][0]} and {d['knonsters'][1]} as favourites{bet}."
    return f"{_nm(names, d['seat'])} has chosen their favourites."


def _describe_race_started(d: dict[str, Any], names: Any) -> str:
    return f"The race starts. {_nm(names, d['first'])} plays first."


def _describe_played(d: dict[str, Any], names: Any) -> str:
    who = _nm(names, d["seat"]) + (" (automatic)" if d.get("auto") else "")
    card = card_label(d["card"])
    if not d["moves"]:
        return f"{who} discarded {card}: no effect."
    parts = []
    for m in d["moves"]:
        steps = m["to"] - m["from"]
        word = "forward" if steps > 0 else "back"
        p = f"{m['knonster']} {abs(steps)} {word} to {m['to']}"
        if m["place"]:
            p += f" and onto the podium, place {m['place']}"
        parts.append(p)
    power = f" revealed {d['power']} as a favourite and used its superpower with" if d.get("power") else " played"
    return f"{who}{power} {card}: " + "; ".join(parts) + "."


def _describe_drew(d: dict[str, Any], names: Any) -> str:
    if "card" in d:
        return f"{_nm(names, d['seat'])} drew {card_label(d['card'])}."
    return f"{_nm(names, d['seat'])} drew a card."


def _describe_offered(d: dict[str, Any], names: Any) -> str:
    return ("The ranking of the players can no longer change: "
            "each player is asked whether the system may finish the game for them.")


def _describe_answered(d: dict[str, Any], names: Any) -> str:
    return f"{_nm(names, d['seat'])} " + ("lets the system play for them." if d["accept"] else "keeps playing.")


def _describe_resigned(d: dict[str, Any], names: Any) -> str:
    return f"{_nm(names, d['seat'])} resigned and takes the last place."


def _describe_ended(d: dict[str, Any], names: Any) -> str:
    fav = "; ".join(
        f"{_nm(names, s)}: {' and '.join(f) if f else '—'}" + (f" (bet {d['bets'][s]})" if d["bets"][s] else "")
        for s, f in enumerate(d["favourites"]))
    return f"Game over. {fill_seats(d['summary'], names)} Favourites: {fav}. Points: " + ", ".join(
        f"{_nm(names, s)} {p}" for s, p in enumerate(d["scores"])) + "."


# the log line of each event type (a type not listed is shown as its name)
DESCRIBE: Final[dict[str, Callable[[dict[str, Any], Any], str]]] = {
    "setup": _describe_setup,
    "restarted": _describe_restarted,
    "chosen": _describe_chosen,
    "race_started": _describe_race_started,
    "played": _describe_played,
    "drew": _describe_drew,
    "offered": _describe_offered,
    "answered": _describe_answered,
    "resigned": _describe_resigned,
    "ended": _describe_ended,
}


def describe(ev, names):
    t, d = ev["type"], ev["data"]
    handler = DESCRIBE.get(t)
    return handler(d, names) if handler is not None else t
