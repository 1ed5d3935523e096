"""Kinapa (SBG Editions): the Emperor's bluffing card game, for 2 and 4 to 8 players.

Interpretations and filled gaps are in RULES.md next to this file.

Cards are strings: "A7" is the animal card 7, "S7" the shelter card 7; a pair
is the animal and the shelter of one number. Object cards are indexes k
(covering the numbers 2k+1 and 2k+2) lying face down at positions 0..n-1.

Holders: indexes 0..n-1 are the players' hands; in the 2-player game the
indexes n..2n-1 are the BOT decks (n + seat is the BOT of that seat).
"""

from __future__ import annotations

import functools
import json
import os
from collections.abc import Callable
from typing import Any, Final

from games.engine import RESIGN, IllegalAction, event, seat_ref

SLUG = "kinapa"
NAME = "Kinapa"
MIN_PLAYERS = 2
MAX_PLAYERS = 8

DATA_DIR = os.path.join(os.path.dirname(__file__), "data")


# --------------------------------------------------------------------------- data


def load_cards(path: str) -> dict:
    """Load and validate the card list; ValueError naming the file and the problem."""
    name = os.path.basename(path)

    def bad(problem):
        raise ValueError(f"{name}: {problem}")

    try:
        with open(path, encoding="utf-8") as fh:
            data = json.load(fh)
    except OSError as exc:
        raise ValueError(f"{name}: cannot be read ({exc})") from exc
    except json.JSONDecodeError as exc:
        raise ValueError(f"{name}: is not valid JSON ({exc})") from exc
    if not isinstance(data, dict):
        bad("must be a JSON object")
    for kind in ("animals", "shelters"):
        cards = data.get(kind)
        if not isinstance(cards, list):
            bad(f'"{kind}" must be a list')
        if len(cards) != 2 * MAX_PLAYERS:
            bad(f'"{kind}" must hold {2 * MAX_PLAYERS} cards, found {len(cards)}')
        for i, card in enumerate(cards):
            if not isinstance(card, dict) or not isinstance(card.get("name"), str) or not card["name"].strip():
                bad(f'"{kind}"[{i}] needs a non-empty "name"')
            if card.get("number") != i + 1 or isinstance(card.get("number"), bool):
                bad(f'"{kind}"[{i}] must have "number": {i + 1}')
    objects = data.get("objects")
    if not isinstance(objects, list) or len(objects) != MAX_PLAYERS:
        bad(f'"objects" must be a list of {MAX_PLAYERS} object cards')
    for k, obj in enumerate(objects):
        if not isinstance(obj, dict) or not isinstance(obj.get("name"), str) or not obj["name"].strip():
            bad(f'"objects"[{k}] needs a non-empty "name"')
        if obj.get("numbers") != [2 * k + 1, 2 * k + 2]:
            bad(f'"objects"[{k}] must have "numbers": [{2 * k + 1}, {2 * k + 2}]')
    for key, need in (("emperor", 1), ("ministers", 2), ("game_aid", 2)):
        if data.get(key) != need:
            bad(f'"{key}" must be {need}')
    sheep = data.get("sheep")
    if not isinstance(sheep, int) or isinstance(sheep, bool) or sheep < MAX_PLAYERS:
        bad(f'"sheep" must be a whole number of at least {MAX_PLAYERS}')
    return data


CARDS = load_cards(os.path.join(DATA_DIR, "cards.json"))
ANIMALS = [c["name"] for c in CARDS["animals"]]
SHELTERS = [c["name"] for c in CARDS["shelters"]]
OBJECTS = [o["name"] for o in CARDS["objects"]]

OPTIONS_SCHEMA: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "properties": {
        "window_seconds": {
            "type": ["integer", "null"],
            "minimum": 3,
            "maximum": 86400,
            "default": None,
            "title": "Hand-raising window (seconds)",
            "description": "The Emperor's \"1-2-3\": how long the other players have to raise a hand "
                           "or do nothing after an announcement. Doing nothing is the default. "
                           "Empty: as long as a move.",
        },
        "round_limit": {
            "type": "integer",
            "minimum": 10,
            "maximum": 2000,
            "default": 200,
            "title": "Round limit",
            "description": "Safety rule: if nobody has won after this many rounds, the game ends "
                           "and players are ranked by the pairs they have put down.",
        },
    },
}

DEFAULTS = {k: v["default"] for k, v in OPTIONS_SCHEMA["properties"].items()}

RECENT: Final = 3  # events kept in the state for the view's "what just happened"


# --------------------------------------------------------------------------- helpers


# Every card of the game and its sort key, looked up instead of parsed (this runs per event).
_NUMBERS: Final[dict[str, int]] = {f"{k}{i}": i for i in range(1, 2 * MAX_PLAYERS + 1) for k in "AS"}
_ORDER: Final[dict[str, int]] = {c: 2 * i + (c[0] == "S") for c, i in _NUMBERS.items()}  # (number, kind) as one int: faster to compare


def num(card: str) -> int:
    found = _NUMBERS.get(card)
    return int(card[1:]) if found is None else found


def card_name(card: str) -> str:
    n = num(card)
    if card[0] == "A":
        return f"{n} {ANIMALS[n - 1]}"
    return f"{n} {SHELTERS[n - 1]}"


def object_numbers(k: int) -> list[int]:
    return [2 * k + 1, 2 * k + 2]


def object_name(k: int) -> str:
    a, b = object_numbers(k)
    return f"{a}-{b} {OBJECTS[k]}"


def sort_cards(cards: Any) -> list[Any]:
    # ``sorted(cards, key=_ORDER.__getitem__)`` as an insertion sort over the cached keys (the
    # hands are short and mostly sorted already): equal keys are equal cards, so the same list.
    items: list[Any] = list(cards)
    out: list[Any] = []
    keys: list[int] = []
    for c in items:
        k: int = _ORDER.get(c, -1) if isinstance(c, str) else -1
        if k < 0:  # not a card of the game: the same order, computed
            return _sort_computed(items)
        i = len(keys)
        while i > 0 and keys[i - 1] > k:
            i -= 1
        keys.insert(i, k)
        out.insert(i, c)
    return out


def _sort_computed(items: list[Any]) -> list[Any]:
    return sorted(items, key=lambda c: (num(c), c[0]))


def _options(options):
    opts = dict(DEFAULTS)
    if options:
        for key, value in options.items():
            if key not in DEFAULTS:
                raise IllegalAction(f"Unknown option “{key}”.")
            spec = OPTIONS_SCHEMA["properties"][key]
            if value is None and key == "window_seconds":  # the platform's window clock applies
                opts[key] = None  # not ``value``: compiled (mypyc), a narrowed None local does not build
                continue
            if not isinstance(value, int) or isinstance(value, bool) or not spec["minimum"] <= value <= spec["maximum"]:
                raise IllegalAction(f"Option “{key}” must be a whole number from {spec['minimum']} to {spec['maximum']}.")
            opts[key] = value
    return opts


def check_players(n, options=None):
    if n == 3:
        raise IllegalAction("Kinapa has no rules for three players: play with 2 players (with the BOT decks) "
                            "or with 4 to 8 players.")
    if not isinstance(n, int) or n < MIN_PLAYERS or n > MAX_PLAYERS:
        raise IllegalAction("Kinapa is played by 2 players, or by 4 to 8 players.")
    _options(options)


def punished(state: dict[str, Any], seat: int) -> bool:
    n: int = state["n"]
    if seat >= n:
        return False
    foxes: list[Any] = state["foxes"]
    return bool(foxes[seat] > 0)


def public_cards(state, seat):
    """The cards of a punished player's hand that lie face up (all but the hidden one)."""
    hand = list(state["hands"][seat])
    if state["hidden"][seat] in hand:
        hand.remove(state["hidden"][seat])
    return sort_cards(hand)


def _silent_order(state: dict[str, Any]) -> list[int]:
    """Holders other than the Emperor, clockwise from the Emperor."""
    n: int = state["n"]
    emp: int = state["emperor"]
    return [(emp + i) % n for i in range(1, n)]


def _running(state: Any) -> bool:
    if not state:
        return False
    s: dict[str, Any] = state
    phase = s.get("phase")
    return phase is not None and phase != "over"


def _face_down(state: dict[str, Any]) -> list[int]:
    pairs: list[Any] = state["pairs"]
    return [p for p in range(len(pairs)) if pairs[p] is None]


def _pair_number(state: dict[str, Any], seat: int, k: int) -> Any:
    """The lowest number of object k whose pair the seat holds, else None."""
    cards: list[Any] = state["hands"][seat]
    hand: list[int] = [num(c) for c in cards]
    for number in object_numbers(k):
        if hand.count(number) >= 2:
            return number
    return None


def next_candidates(state: dict[str, Any]) -> list[Any]:
    """The players the Emperor may pass the Emperor card to (empty: the Emperor stays)."""
    emp = state["emperor"]
    active: list[Any] = state["active"]
    if state.get("switched"):
        return [s for s in _silent_order(state) if active[s]]
    raised: list[Any] = [s for s in state["raised"] if active[s] and s != emp]
    if not raised:
        return []
    sheep: list[Any] = state["sheep"]
    liar = state.get("liar")
    if liar is not None and liar in raised and not sheep[liar]:
        return [liar]
    free: list[Any] = [s for s in raised if not sheep[s]]
    return free or raised


def _target_candidates(state: dict[str, Any]) -> list[Any]:
    n: int = state["n"]
    active: list[Any] = state["active"]
    hands: list[Any] = state["hands"]
    return [h for h in state["silent"] if (h >= n or active[h]) and hands[h]]


# --------------------------------------------------------------------------- setup


def setup(n, options, rng):
    check_players(n, options)
    opts = _options(options)
    two = n == 2
    top = 8 if two else 2 * n
    cards = [f"{k}{i}" for i in range(1, top + 1) for k in "AS"]
    cards = rng.shuffled(cards)
    holders = 2 * n if two else n
    hands = [sort_cards(cards[4 * h:4 * h + 4]) for h in range(holders)]
    objects = rng.shuffled(range(top // 2))
    events = [
        # fox_rounds: in the 2-player game a Fox goes back every round, not on a change of
        # Emperor (RULES.md, Lying); streams recorded before it lack the flag and replay as they were.
        event("setup", players=n, two_player=two, numbers=top, options=opts, **({"fox_rounds": True} if two else {})),
        event("deal", hands=hands, objects=objects),
    ]
    if two and not any("A1" in hands[s] for s in range(n)):
        for s in range(n):
            events.append(event("switch", seat=s, hand=hands[n + s], laid=hands[s], setup=True, public=False))
        hands = hands[n:] + hands[:n]
    first = next(s for s in range(n) if "A1" in hands[s])
    events.append(event("emperor", seat=first, prev=None, reason="cat", sheep=True, sheep_reset=False))
    events.append(event("round", round=1, emperor=first))
    return events


# --------------------------------------------------------------------------- evolve


def _new_state(e: dict[str, Any]) -> dict[str, Any]:
    d = e["data"]
    n = d["players"]
    return {
        "n": n, "two": d["two_player"], "numbers": d["numbers"], "options": d["options"],
        "hands": [], "objects": [], "known": [], "pairs": [],
        "active": [True] * n, "resigned": [],
        "emperor": None, "sheep": [False] * n, "foxes": [0] * n, "fox_wait": [False] * n,
        "hidden": [None] * n, "placed": [0] * n,
        "round": 0, "phase": "setup", "announced": None,
        "answers": [None] * n, "waiting": [], "raised": [], "silent": [],
        "liar": None, "expose_give": False, "taken": None, "target": None, "taken_hidden": False,
        "flipped": None, "switched": False, "pair_shown": False,
        "end": None, "recent": [], "fox_rounds": bool(d.get("fox_rounds")),
    }


def _with(items: Any, i: int, value: Any) -> list[Any]:
    """A copy of ``items`` with one entry replaced.

    ``evolve`` never changes a list in place, it replaces it: so ``decide``'s working state can
    share every list with the state it was given (a shallow copy) and leave that state alone.
    """
    out: list[Any] = list(items)
    out[i] = value
    return out


def _move(state: dict[str, Any], card: Any, src: int, dst: int) -> None:
    hands: list[Any] = state["hands"]
    if card in hands[src]:
        hands = list(hands)
        hand: list[Any] = list(hands[src])
        hand.remove(card)
        hands[src] = hand
        hands[dst] = sort_cards(hands[dst] + [card])
        state["hands"] = hands
    n: int = state["n"]
    if src < n and state["hidden"][src] == card:
        state["hidden"] = _with(state["hidden"], src, None)


def _fox_turn(s: dict[str, Any]) -> None:
    """A turn of penalty has passed: each punished player gives back a Fox (not in the liar's own round)."""
    if not any(s["foxes"]):
        return
    foxes: list[int] = list(s["foxes"])
    wait: list[Any] = list(s["fox_wait"])
    hidden: list[Any] = list(s["hidden"])
    n: int = s["n"]
    for p in range(n):
        if foxes[p] > 0:
            if wait[p]:
                wait[p] = False
            else:
                foxes[p] -= 1
                if foxes[p] == 0:
                    hidden[p] = None
    s["foxes"], s["fox_wait"], s["hidden"] = foxes, wait, hidden


def evolve(state: Any, e: dict[str, Any]) -> Any:
    t: str = e["type"]
    d: dict[str, Any] = e["data"]
    if t == "setup":  # the one event that makes a state instead of changing one
        return _new_state(e)
    if not state:
        return state
    s: dict[str, Any] = state
    handler = EVOLVE.get(t)
    if handler is not None:  # an unknown event changes nothing but the recent events
        handler(s, d)
    if t != "deal":
        old: list[Any] = s["recent"]
        recent = old[1 - RECENT:]  # a new list: the last RECENT events
        recent.append(e)
        s["recent"] = recent
    return s


# The handlers of ``EVOLVE``: each changes the state ``s`` by one event's data ``d``, replacing
# (never changing in place) the lists it changes, as ``_with`` says why.


def _on_answer(s: dict[str, Any], d: dict[str, Any]) -> None:
    seat = d["seat"]
    if seat in s["waiting"]:
        waiting = s["waiting"] = list(s["waiting"])
        waiting.remove(seat)
    if "raise" in d:
        s["answers"] = _with(s["answers"], seat, bool(d["raise"]))


def _on_flip(s: dict[str, Any], d: dict[str, Any]) -> None:
    s["known"] = _with(s["known"], d["pos"], True)
    s["flipped"] = d["pos"]
    s["phase"] = "flipped"


def _on_round(s: dict[str, Any], d: dict[str, Any]) -> None:
    if s.get("fox_rounds"):
        _fox_turn(s)
    s["round"] = d["round"]
    s["emperor"] = d["emperor"]
    s["phase"] = "announce"
    s["announced"] = None
    s["answers"] = [None] * s["n"]
    s["waiting"], s["raised"], s["silent"] = [], [], []
    s["liar"], s["expose_give"], s["taken"], s["target"] = None, False, None, None
    s["flipped"], s["switched"], s["pair_shown"] = None, False, False


def _on_hide(s: dict[str, Any], d: dict[str, Any]) -> None:
    s["flipped"] = None
    s["phase"] = "next"


def _on_announce(s: dict[str, Any], d: dict[str, Any]) -> None:
    s["announced"] = d["number"]
    active: list[Any] = s["active"]
    foxes: list[Any] = s["foxes"]
    s["waiting"] = [p for p in _silent_order(s) if active[p] and foxes[p] == 0]
    s["phase"] = "window"


def _on_reveal(s: dict[str, Any], d: dict[str, Any]) -> None:
    s["raised"] = list(d["raised"])
    s["silent"] = list(d["silent"])
    answers = s["answers"] = list(s["answers"])
    for p in d["raised"]:
        answers[p] = True
    for p in d["silent"]:
        if p < s["n"]:
            answers[p] = False
    s["waiting"] = []
    s["phase"] = "resolve"


def _on_give(s: dict[str, Any], d: dict[str, Any]) -> None:
    _move(s, d["card"], d["emperor"], d["to"])
    if s["expose_give"] and d["to"] == s["liar"]:
        s["hidden"] = _with(s["hidden"], d["to"], d["card"])
    s["expose_give"] = False
    s["taken"] = None
    s["phase"] = "flip"


def _on_emperor(s: dict[str, Any], d: dict[str, Any]) -> None:
    seat, prev = d["seat"], d["prev"]
    if prev is not None and seat != prev and not s.get("fox_rounds"):
        _fox_turn(s)
    s["emperor"] = seat
    if d.get("sheep"):
        s["last_sheep"] = seat
    sheep = _with(s["sheep"], seat, True)
    active = s["active"]
    if all(sheep[p] for p in range(s["n"]) if active[p]):
        sheep = [p == seat for p in range(s["n"])]
    s["sheep"] = sheep


def _on_take(s: dict[str, Any], d: dict[str, Any]) -> None:
    src = d["from"]
    s["taken_hidden"] = src < s["n"] and s["hidden"][src] is not None and s["hidden"][src] == d["card"]
    _move(s, d["card"], src, d["emperor"])
    s["taken"], s["target"], s["phase"] = d["card"], d["from"], "give"


def _on_choose_target(s: dict[str, Any], d: dict[str, Any]) -> None:
    s["phase"] = "target"


def _on_demand(s: dict[str, Any], d: dict[str, Any]) -> None:
    s["taken_hidden"] = False
    _move(s, d["card"], d["from"], d["emperor"])
    s["taken"], s["target"], s["phase"] = d["card"], d["from"], "give"
    if d.get("liar"):
        liar = d["from"]
        s["foxes"] = [0] * s["n"]
        s["fox_wait"] = [False] * s["n"]
        s["hidden"] = [None] * s["n"]
        s["foxes"][liar] = 2
        s["fox_wait"][liar] = True
        s["liar"] = liar
        s["expose_give"] = True


def _on_place(s: dict[str, Any], d: dict[str, Any]) -> None:
    seat, pos, number = d["seat"], d["pos"], d["number"]
    hands = s["hands"] = list(s["hands"])
    hand = hands[seat] = list(hands[seat])
    for c in (f"A{number}", f"S{number}"):
        if c in hand:
            hand.remove(c)
        if s["hidden"][seat] == c:
            s["hidden"] = _with(s["hidden"], seat, None)
    s["pairs"] = _with(s["pairs"], pos, {"seat": seat, "number": number})
    s["placed"] = _with(s["placed"], seat, s["placed"][seat] + 1)
    s["flipped"] = None
    s["phase"] = "flip"


def _on_no_exchange(s: dict[str, Any], d: dict[str, Any]) -> None:
    s["phase"] = "flip"


def _on_show_pair(s: dict[str, Any], d: dict[str, Any]) -> None:
    s["pair_shown"] = True
    s["phase"] = "target"


def _on_switch(s: dict[str, Any], d: dict[str, Any]) -> None:
    seat, n = d["seat"], s["n"]
    hands = s["hands"] = list(s["hands"])
    hands[seat], hands[n + seat] = hands[n + seat], hands[seat]
    if s["hidden"][seat] not in hands[seat]:
        s["hidden"] = _with(s["hidden"], seat, None)
    if not d.get("setup"):
        s["switched"] = True
        s["phase"] = "flip"


def _on_deal(s: dict[str, Any], d: dict[str, Any]) -> None:
    s["hands"] = [list(h) for h in d["hands"]]
    s["objects"] = list(d["objects"])
    s["known"] = [False] * len(d["objects"])
    s["pairs"] = [None] * len(d["objects"])


def _on_resign(s: dict[str, Any], d: dict[str, Any]) -> None:
    seat = d["seat"]
    back = d.get("back")
    if back is not None and s.get("taken") in s["hands"][seat]:
        # the Emperor left in the middle of an exchange: the card just taken goes back
        card = s["taken"]
        _move(s, card, seat, back)
        if s.get("taken_hidden"):
            s["hidden"] = _with(s["hidden"], back, card)
    s["active"] = _with(s["active"], seat, False)
    s["resigned"] = s["resigned"] + [seat]
    if d.get("sheep_reset"):
        s["sheep"] = [p == d["sheep_kept"] for p in range(s["n"])]
    s["hands"] = _with(s["hands"], seat, [])
    s["hidden"] = _with(s["hidden"], seat, None)
    s["foxes"] = _with(s["foxes"], seat, 0)
    s["fox_wait"] = _with(s["fox_wait"], seat, False)
    if seat in s["waiting"]:
        s["waiting"] = [p for p in s["waiting"] if p != seat]
    if seat in s["silent"]:
        silent = s["silent"] = list(s["silent"])
        silent.remove(seat)
    if s["phase"] not in ("over", "setup"):
        if seat == s["emperor"]:
            s["phase"] = "emperor_gone"
        elif s["phase"] == "give" and s["target"] == seat:
            s["expose_give"] = False
            s["taken"] = None
            s["phase"] = "flip"


def _on_end(s: dict[str, Any], d: dict[str, Any]) -> None:
    s["phase"] = "over"
    s["end"] = dict(d)


# Every event type but "setup" (which makes the state: ``evolve``) and its handler.
EVOLVE: Final[dict[str, Callable[[dict[str, Any], dict[str, Any]], None]]] = {
    "answer": _on_answer,
    "flip": _on_flip,
    "round": _on_round,
    "hide": _on_hide,
    "announce": _on_announce,
    "reveal": _on_reveal,
    "give": _on_give,
    "emperor": _on_emperor,
    "take": _on_take,
    "choose_target": _on_choose_target,
    "demand": _on_demand,
    "place": _on_place,
    "no_exchange": _on_no_exchange,
    "show_pair": _on_show_pair,
    "switch": _on_switch,
    "deal": _on_deal,
    "resign": _on_resign,
    "end": _on_end,
}


# --------------------------------------------------------------------------- decide


def _end_event(s: dict[str, Any], reason: str, winner: Any = None) -> dict[str, Any]:
    return {"type": "end", "data": {"reason": reason, "winner": winner, "placed": list(s["placed"])}}


def _new_emperor_events(s: dict[str, Any], seat: Any, reason: str) -> list[dict[str, Any]]:
    sheep: list[Any] = s["sheep"]
    active: list[Any] = s["active"]
    n: int = s["n"]
    given = not sheep[seat]
    reset = given and all(sheep[p] or p == seat for p in range(n) if active[p])
    evs: list[dict[str, Any]] = [{"type": "emperor", "data": {"seat": seat, "prev": s["emperor"], "reason": reason,
                                                                "sheep": given, "sheep_reset": reset}}]
    return evs + _round_events(s, s["round"] + 1, seat)


def _round_events(s: dict[str, Any], number: Any, emperor: Any) -> list[dict[str, Any]]:
    if number > s["options"]["round_limit"]:
        return [_end_event(s, "rounds")]
    return [{"type": "round", "data": {"round": number, "emperor": emperor}}]


def _auto(s: dict[str, Any], rng: Any) -> list[dict[str, Any]]:
    """The events that follow by themselves from state ``s`` (no player choice)."""
    phase: str = s["phase"]
    if phase == "over" or phase == "setup":
        return []
    active: list[Any] = s["active"]
    if active.count(True) <= 1:
        n: int = s["n"]
        actives = [p for p in range(n) if active[p]]
        return [_end_event(s, "resign", actives[0] if actives else None)]
    if phase == "window" and s["waiting"] or phase == "announce" or phase == "give":
        return []  # the commonest cases: a player's move awaited (nothing below applies)
    follow = _AUTO.get(phase)
    return [] if follow is None else follow(s, rng)


# The handlers of ``_AUTO``: each gives the events that follow by themselves in one phase.


def _auto_emperor_gone(s: dict[str, Any], rng: Any) -> list[dict[str, Any]]:
    active: list[Any] = s["active"]
    order = [p for p in _silent_order(s) if active[p]]
    sheep: list[Any] = s["sheep"]
    free = [p for p in order if not sheep[p]]
    return _new_emperor_events(s, (free or order)[0], "resign")


def _auto_window(s: dict[str, Any], rng: Any) -> list[dict[str, Any]]:
    """Everybody has answered (``_auto`` returned before while anybody is waiting): the reveal."""
    n: int = s["n"]
    active: list[Any] = s["active"]
    answers: list[Any] = s["answers"]
    raised: list[int] = [p for p in _silent_order(s) if answers[p] is True and active[p]]
    silent = [p for p in _silent_order(s) if active[p] and p not in raised]
    if s["two"]:
        silent += [n + p for p in _silent_order(s)]
    return [{"type": "reveal", "data": {"number": s["announced"], "raised": raised, "silent": silent}}]


def _auto_resolve(s: dict[str, Any], rng: Any) -> list[dict[str, Any]]:
    emp = s["emperor"]
    hands: list[Any] = s["hands"]
    k = s["announced"]
    mine = [c for c in hands[emp] if num(c) == k]
    silent = _target_candidates(s)
    if len(mine) >= 2:
        evs = [event("show_pair", seat=emp, number=k, cards=sort_cards(mine))]
        if not silent:
            evs.append(event("no_exchange", reason="all_raised"))
        return evs
    if len(silent) >= 2:
        return [event("choose_target", seat=emp, candidates=silent)]
    for holder in silent + [p for p in s["raised"] if s["active"][p]]:
        have = [c for c in s["hands"][holder] if num(c) == k]
        if have:
            liar = holder in s["raised"]
            evs = [event("demand", emperor=emp, **{"from": holder}, card=have[0], number=k, liar=liar)]
            if liar:
                hand = list(s["hands"][holder])
                hand.remove(have[0])
                evs.append(event("exposed", seat=holder, hand=sort_cards(hand)))
            return evs
    return [event("no_exchange", reason="nobody")]


def _auto_target(s: dict[str, Any], rng: Any) -> list[dict[str, Any]]:
    cands = _target_candidates(s)
    if not cands:
        return [event("no_exchange", reason="nobody_left")]
    if len(cands) == 1:
        return [_take_event(s, cands[0], rng)]
    return []


def _auto_flip(s: dict[str, Any], rng: Any) -> list[dict[str, Any]]:
    emp = s["emperor"]
    # "The winner is the one who gets rid of their hand of cards first": after a Switch a second
    # pair need not empty the hand, so the 2-player game ends on the empty hand itself.
    if (not s["hands"][emp]) if s["two"] else s["placed"][emp] >= 2:
        return [_end_event(s, "win", emp)]
    if not _face_down(s):
        return [_end_event(s, "objects")]
    return []


def _auto_flipped(s: dict[str, Any], rng: Any) -> list[dict[str, Any]]:
    emp = s["emperor"]
    pos = s["flipped"]
    number = _pair_number(s, emp, s["objects"][pos])
    if number is not None:
        return [event("place", seat=emp, pos=pos, object=s["objects"][pos], number=number,
                      cards=[f"A{number}", f"S{number}"])]
    return [event("hide", pos=pos)]


def _auto_next(s: dict[str, Any], rng: Any) -> list[dict[str, Any]]:
    emp = s["emperor"]
    cands = next_candidates(s)
    if not cands:
        return _round_events(s, s["round"] + 1, emp)
    if len(cands) == 1:
        return _new_emperor_events(s, cands[0], "switch" if s["switched"] else "chosen")
    return []


# The phases in which events can follow by themselves, and their handler.
_AUTO: Final[dict[str, Callable[[dict[str, Any], Any], list[dict[str, Any]]]]] = {
    "emperor_gone": _auto_emperor_gone,
    "window": _auto_window,
    "resolve": _auto_resolve,
    "target": _auto_target,
    "flip": _auto_flip,
    "flipped": _auto_flipped,
    "next": _auto_next,
}


def _take_event(s: dict[str, Any], holder: Any, rng: Any) -> dict[str, Any]:
    hand: list[Any] = s["hands"][holder]
    card = hand[rng.randbelow(len(hand))]
    emp = s["emperor"]
    public = punished(s, emp) or (punished(s, holder) and s["hidden"][holder] != card)
    return {"type": "take", "data": {"emperor": emp, "from": holder, "card": card, "public": public}}


def _phase(s: dict[str, Any]) -> Any:
    """The effective phase (``resolve`` with 2+ silent players waits for the target choice)."""
    if s["phase"] == "resolve":
        return "target"
    return s["phase"]


def _holder_name(s, h):
    if h >= s["n"]:
        return f"{seat_ref(h - s['n'])}'s BOT"
    return seat_ref(h)


_ANSWERS: Final = ({"type": "answer", "raise": True}, {"type": "answer", "raise": False})


@functools.cache
def _announcements(numbers, two):
    return tuple([{"type": "announce", "number": k} for k in range(1, numbers + 1)]  # p.5: "then a number",
                 + ([{"type": "switch"}] if two else []))                           # even one already put down


def actions(state: Any, seat: Any) -> Any:
    """The actions of ``legal_actions``, in its order, without their texts (bots and ``decide``
    need no more). Shared lists: copy an action before handing it out."""
    if not _running(state) or seat is None or not (0 <= seat < state["n"]) or not state["active"][seat]:
        return ()
    return _actions(state, seat)


def _actions(s: dict[str, Any], seat: Any) -> Any:
    """``actions`` of a running game's active player."""
    phase: str = s["phase"]
    if phase == "window":
        return _ANSWERS if seat in s["waiting"] else ()
    if seat != s["emperor"]:
        return ()
    if phase == "announce":
        return _announcements(s["numbers"], s["two"])
    if phase == "target" or phase == "resolve":  # _phase's "target"
        return [_TAKES[h] if type(h) is int and 0 <= h < len(_TAKES) else {"type": "take", "from": h}
                for h in _target_candidates(s)]
    if phase == "give":
        taken = s["taken"]
        # a hand is always in order: setup deals sorted hands and _move sorts the hand it adds to
        hand: list[Any] = s["hands"][s["emperor"]]
        return [_GIVES.get(c) or {"type": "give", "card": c} for c in hand if c != taken]
    if phase == "flip":
        return [_FLIPS[p] if p < len(_FLIPS) else {"type": "flip", "pos": p} for p in _face_down(s)]
    if phase == "next":
        return [_NEXTS[p] if type(p) is int and 0 <= p < len(_NEXTS) else {"type": "next", "seat": p}
                for p in next_candidates(s)]
    return ()


# The actions of ``_actions``, built once (shared like ``_ANSWERS``: read-only).
_TAKES: Final[list[dict[str, Any]]] = [{"type": "take", "from": h} for h in range(2 * MAX_PLAYERS)]
_GIVES: Final[dict[str, dict[str, Any]]] = {c: {"type": "give", "card": c} for c in _ORDER}
_FLIPS: Final[list[dict[str, Any]]] = [{"type": "flip", "pos": p} for p in range(MAX_PLAYERS)]
_NEXTS: Final[list[dict[str, Any]]] = [{"type": "next", "seat": p} for p in range(MAX_PLAYERS)]


def _texts(s, a):
    """The notation and label of one of ``actions``."""
    t = a["type"]
    if t == "answer":
        if a["raise"]:
            return "raise", "Raise my hand (“I don't have it”)"
        return "nothing", "Do nothing (“maybe I have it…”)"
    if t == "announce":
        return f"kinapa {a['number']}", f"KINAPA a {a['number']}?"
    if t == "switch":
        return "switch", "Switch: lay down my hand and take my BOT deck"
    if t == "take":
        h = a["from"]
        note = f"take bot {h - s['n'] + 1}" if h >= s["n"] else f"take {h + 1}"
        return note, f"Take a card at random from {_holder_name(s, h)}"
    if t == "give":
        return f"give {a['card'].lower()}", f"Give {card_name(a['card'])}"
    if t == "flip":
        p = a["pos"]
        if s["known"][p]:
            return f"turn {p + 1}", f"Turn over object {p + 1} (it is {object_name(s['objects'][p])})"
        return f"turn {p + 1}", f"Turn over object {p + 1} (never seen)"
    return f"emperor {a['seat'] + 1}", f"Pass the Emperor card to {seat_ref(a['seat'])}"


def legal_actions(state, seat):
    out = []
    for a in actions(state, seat):
        notation, label = _texts(state, a)
        out.append({"notation": notation, "label": label, "action": dict(a)})
    return out


def decide(state, seat, action, rng):
    return decide_state(state, seat, action, rng)[0]


def decide_state(state, seat, action, rng):
    """``decide``'s events and the state after them (``games.engine``: optional contract): decide
    works that state out anyway, to find the automatic events, so the caller need not evolve
    every event a second time."""
    if not _running(state):
        raise IllegalAction("This game is over.")
    if not isinstance(action, dict) or not isinstance(action.get("type"), str):
        raise IllegalAction("That is not a Kinapa move.")
    if seat is None or not isinstance(seat, int) or not (0 <= seat < state["n"]):
        raise IllegalAction("Only a player of this game can do that.")
    if not state["active"][seat]:
        raise IllegalAction("You have left this game.")
    if action == RESIGN:
        data = {"seat": seat, "cards": len(state["hands"][seat])}
        target = state["target"]
        if (seat == state["emperor"] and state["phase"] == "give" and state["taken"] is not None
                and target is not None and target < state["n"] and state["active"][target]):
            data["back"] = target  # the card just taken goes back to its owner (RULES.md, Resign)
            data["cards"] -= 1
        others = [p for p in range(state["n"]) if state["active"][p] and p != seat]
        if len(others) >= 2 and not state["sheep"][seat] and all(state["sheep"][p] for p in others):
            # p.8: once everyone has a Sheep they go back at once, but the last one distributed
            kept = state.get("last_sheep")
            data["sheep_reset"] = True
            data["sheep_kept"] = kept if kept in others else state["emperor"]
        evs = [event("resign", **data)]
    else:
        legal = _actions(state, seat)  # the game runs and the seat plays: checked above
        try:
            action = legal[legal.index(action)]  # the canonical form (True is not 1 here)
        except ValueError:
            raise IllegalAction(_why_not(state, seat, action)) from None
        evs = _events_for(state, seat, action, rng)
    return _settle(dict(state), evs, rng)  # evolve replaces the lists it changes: a shallow working copy is enough


def _settle(s: dict[str, Any], evs: list[dict[str, Any]], rng: Any) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """``decide_state``'s end: ``evs`` applied to the working copy ``s``, then the automatic events."""
    for e in evs:
        s = evolve(s, e)
    for _ in range(50):
        more: list[dict[str, Any]] = _auto(s, rng)
        if not more:
            break
        for e in more:
            s = evolve(s, e)
        evs += more
    return evs, s


def _why_not(state, seat, action):
    t = action.get("type")
    phase = _phase(state)
    if phase == "window":
        if seat == state["emperor"]:
            return "The other players are deciding whether to raise a hand; wait for them."
        if seat not in state["waiting"]:
            if state["foxes"][seat] > 0:
                return "You are punished (you hold the Fox cards): you cannot raise your hand."
            return "You have already answered this announcement."
        return "Now you can only raise your hand or do nothing."
    if seat != state["emperor"]:
        return "Only the Emperor can act now."
    if t == "announce":
        return f"Announce a number from 1 to {state['numbers']}, when your turn begins."
    if t == "give":
        return "Give back one of your cards, but not the one you have just received."
    if t == "take":
        return "Take a card from one of the players who did not raise a hand."
    return "That move is not possible now."


def _events_for(s: dict[str, Any], seat: Any, action: dict[str, Any], rng: Any) -> list[dict[str, Any]]:
    events_of = DECIDE.get(action["type"])
    if events_of is None:
        raise IllegalAction("That is not a Kinapa move.")
    return events_of(s, seat, action, rng)


# The handlers of ``DECIDE``: each gives the events of one legal action of ``seat`` in state ``s``
# (the commonest, answer, built as a literal without event()'s keyword arguments).


def _decide_answer(s: dict[str, Any], seat: Any, action: dict[str, Any], rng: Any) -> list[dict[str, Any]]:
    return [{"type": "answer", "data": {"seat": seat, "raise": action["raise"]}}]


def _decide_announce(s: dict[str, Any], seat: Any, action: dict[str, Any], rng: Any) -> list[dict[str, Any]]:
    return [{"type": "announce", "data": {"seat": seat, "number": action["number"]}}]


def _decide_switch(s: dict[str, Any], seat: Any, action: dict[str, Any], rng: Any) -> list[dict[str, Any]]:
    return [event("switch", seat=seat, hand=sort_cards(s["hands"][s["n"] + seat]),
                  laid=sort_cards(s["hands"][seat]), setup=False, public=punished(s, seat))]


def _decide_take(s: dict[str, Any], seat: Any, action: dict[str, Any], rng: Any) -> list[dict[str, Any]]:
    return [_take_event(s, action["from"], rng)]


def _decide_give(s: dict[str, Any], seat: Any, action: dict[str, Any], rng: Any) -> list[dict[str, Any]]:
    to, card = s["target"], action["card"]
    fresh = s["expose_give"] and to == s["liar"]
    public = (not fresh and punished(s, to)) or (punished(s, seat) and s["hidden"][seat] != card)
    return [{"type": "give", "data": {"emperor": seat, "to": to, "card": card, "public": public}}]


def _decide_flip(s: dict[str, Any], seat: Any, action: dict[str, Any], rng: Any) -> list[dict[str, Any]]:
    pos = action["pos"]
    return [{"type": "flip", "data": {"seat": seat, "pos": pos, "object": s["objects"][pos]}}]


def _decide_next(s: dict[str, Any], seat: Any, action: dict[str, Any], rng: Any) -> list[dict[str, Any]]:
    return _new_emperor_events(s, action["seat"], "chosen")


# Every action type (but resign: ``decide_state``) and the handler that gives its events.
DECIDE: Final[dict[str, Callable[[dict[str, Any], Any, dict[str, Any], Any], list[dict[str, Any]]]]] = {
    "answer": _decide_answer,
    "announce": _decide_announce,
    "switch": _decide_switch,
    "take": _decide_take,
    "give": _decide_give,
    "flip": _decide_flip,
    "next": _decide_next,
}


# --------------------------------------------------------------------------- queries


def to_act(state: Any) -> dict[Any, Any]:
    if not state:
        return {}
    s: dict[str, Any] = state
    phase = s.get("phase")
    if phase == "window":
        # one entry for every waiting player (read-only, like every to_act entry): this runs per answer
        entry = {"kind": "window", "default": {"type": "answer", "raise": False},
                 "seconds": s["options"]["window_seconds"]}
        waiting: list[Any] = s["waiting"]
        return {p: entry for p in waiting}
    if phase in _TURNS:
        return {s["emperor"]: {"kind": "turn", "default": None, "seconds": None}}
    return {}


# The phases where the Emperor moves (as ``_phase`` names them, and "resolve" which it calls "target").
_TURNS: Final[frozenset[str]] = frozenset({"announce", "resolve", "target", "give", "flip", "next"})


def timers(state):
    return []


def result(state):
    if not state or state.get("phase") != "over":
        return None
    n = state["n"]
    end = state["end"] or {}
    winner = end.get("winner")
    scores = list(state["placed"])

    def key(p):
        if not state["active"][p]:
            return (0, state["resigned"].index(p), 0)
        return (1, 1 if p == winner else 0, scores[p])

    keys = [key(p) for p in range(n)]
    ranks = [1 + sum(1 for q in range(n) if keys[q] > keys[p]) for p in range(n)]
    winners = [p for p in range(n) if ranks[p] == 1]
    reason = end.get("reason")
    names = ", ".join(seat_ref(p) for p in winners)
    if reason == "win":
        summary = f"{seat_ref(winner)} put down a second pair and wins."
        if state["two"]:  # the 2-player goal is the empty hand (RULES.md, Two players)
            summary = f"{seat_ref(winner)} got rid of their hand and wins."
    elif reason == "resign":
        summary = f"Everybody else left the game: {names} wins." if winner is not None else "Everybody left the game."
    elif reason == "objects":
        summary = f"Every object card holds a pair and nobody has two: most pairs wins ({names})."
    else:
        summary = f"The round limit was reached: most pairs wins ({names})."
    return {"ranks": ranks, "scores": scores, "winners": winners, "summary": summary}


def view(state, seat):
    s = state
    if not s:
        return {}
    n = s["n"]
    me = seat if seat is not None and 0 <= seat < n else None
    players = []
    for p in range(n):
        info = {"seat": p, "count": len(s["hands"][p]), "active": s["active"][p], "sheep": s["sheep"][p],
                "foxes": s["foxes"][p], "placed": s["placed"][p], "punished": s["foxes"][p] > 0,
                "public": None, "hidden": 0}
        if s["foxes"][p] > 0:
            info["public"] = public_cards(s, p)
            info["hidden"] = len(s["hands"][p]) - len(info["public"])
        players.append(info)
    objects = []
    for p in range(len(s["objects"])):
        k = s["objects"][p] if (s["known"][p] or s["pairs"][p]) else None
        objects.append({"pos": p, "object": k, "numbers": object_numbers(k) if k is not None else None,
                        "name": object_name(k) if k is not None else None,
                        "pair": dict(s["pairs"][p]) if s["pairs"][p] else None, "face_up": s["pairs"][p] is not None or s["flipped"] == p})
    phase = _phase(s)
    v = {
        "seat": me, "players_count": n, "two_player": s["two"], "numbers": s["numbers"],
        "round": s["round"], "round_limit": s["options"]["round_limit"],
        "window_seconds": s["options"]["window_seconds"],
        "phase": phase, "emperor": s["emperor"], "announced": s["announced"],
        "players": players, "objects": objects,
        "hand": sort_cards(s["hands"][me]) if me is not None else None,
        "bots": [len(s["hands"][n + p]) for p in range(n)] if s["two"] else None,
        "waiting": list(s["waiting"]) if phase == "window" else [],
        "my_answer": s["answers"][me] if me is not None and phase == "window" else None,
        "raised": list(s["raised"]) if phase not in ("announce", "window") else [],
        "silent": list(s["silent"]) if phase not in ("announce", "window") else [],
        "liar": s["liar"], "pair_shown": s["pair_shown"], "target": s["target"],
        "taken": None,
        "to_act": sorted(to_act(s)),
        "moves": [item["notation"] for item in legal_actions(s, me)] if me is not None else [],
        "recent": [r for r in (redact(e, me) for e in s["recent"]) if r is not None],
        "result": result(s),
    }
    if me is not None and phase == "give" and s["taken"] is not None and me in (s["emperor"], s["target"]):
        v["taken"] = s["taken"]
    if phase == "window" and me is not None and me != s["emperor"]:
        v["my_answer"] = s["answers"][me]
    return v


def redact(e, seat):
    t, d = e["type"], e["data"]
    if t == "deal":
        hands = d["hands"]
        out = {"counts": [len(h) for h in hands], "objects": len(d["objects"])}
        if seat is not None and 0 <= seat < len(hands):
            out["hand"] = hands[seat]
            out["seat"] = seat
        return {"type": t, "data": out}
    if t == "switch":
        if d.get("public") or seat == d["seat"]:
            if seat == d["seat"]:
                return {"type": t, "data": dict(d)}
            return {"type": t, "data": {k: v for k, v in d.items() if k != "laid"}}
        return {"type": t, "data": {"seat": d["seat"], "setup": d.get("setup", False), "count": len(d["hand"])}}
    if t == "answer":
        if seat == d["seat"]:
            return {"type": t, "data": dict(d)}
        return {"type": t, "data": {"seat": d["seat"]}}
    if t in ("take", "give"):
        other = d["from"] if t == "take" else d["to"]
        if d.get("public") or seat is not None and seat in (d["emperor"], other):
            return {"type": t, "data": dict(d)}
        return {"type": t, "data": {k: v for k, v in d.items() if k != "card"}}
    return {"type": t, "data": dict(d)}


def _name(names, p):
    if names and 0 <= p < len(names):
        return str(names[p])
    return f"Player {p + 1}"


def describe(e, names):
    t, d = e["type"], e["data"]
    say = DESCRIBE.get(t)
    return t if say is None else say(d, names)


def _who(names: Any, h: Any) -> str:
    """Holder ``h`` in a log line: a player, or (2 players) a player's BOT deck."""
    n = len(names) if names else 0
    if n and h >= n:
        return f"{_name(names, h - n)}'s BOT"
    return _name(names, h)


def _cards(cards: Any) -> str:
    return ", ".join(card_name(c) for c in cards)


# The handlers of ``DESCRIBE``: each writes the log line of one event's data ``d`` (as redacted
# for the reader) with the players' ``names``.


def _say_setup(d: dict[str, Any], names: Any) -> str:
    return f"A game of Kinapa for {d['players']} players begins (cards 1 to {d['numbers']})."


def _say_deal(d: dict[str, Any], names: Any) -> str:
    if "hand" in d:
        return "The cards are dealt. Your hand: " + _cards(d["hand"]) + "."
    return "The cards are dealt, four to each hand; the object cards lie face down."


def _say_switch(d: dict[str, Any], names: Any) -> str:
    who = _who(names, d["seat"])
    if "hand" in d:
        text = f"{who} performs a Switch and picks up: " + _cards(d["hand"])
        if d.get("laid"):
            text += " (laying down " + _cards(d["laid"]) + ")"
        return text + "."
    return f"{who} performs a Switch: lays down their hand and picks up their BOT deck."


def _say_emperor(d: dict[str, Any], names: Any) -> str:
    who = _who(names, d["seat"])
    if d["reason"] == "cat":
        return f"{who} holds the Maneki-Neko and is the first Emperor."
    text = f"{who} becomes the Emperor"
    if d.get("prev") == d["seat"]:
        text = f"{who} stays the Emperor"
    if d.get("sheep"):
        text += " and takes a Sheep card"
    if d.get("sheep_reset"):
        text += "; everybody had a Sheep, so the others go back to the centre"
    return text + "."


def _say_round(d: dict[str, Any], names: Any) -> str:
    return f"Round {d['round']}: {_who(names, d['emperor'])} is the Emperor."


def _say_announce(d: dict[str, Any], names: Any) -> str:
    return f"{_who(names, d['seat'])}: “KINAPA a {d['number']}? 1-2-3!”"


def _say_answer(d: dict[str, Any], names: Any) -> str:
    if "raise" in d:
        return f"{_who(names, d['seat'])} chose to " + ("raise a hand." if d["raise"] else "do nothing.")
    return f"{_who(names, d['seat'])} has made a choice."


def _say_reveal(d: dict[str, Any], names: Any) -> str:
    r = ", ".join(_who(names, p) for p in d["raised"]) or "nobody"
    sl = ", ".join(_who(names, p) for p in d["silent"]) or "nobody"
    return f"Hands raised: {r}. Did nothing: {sl}."


def _say_choose_target(d: dict[str, Any], names: Any) -> str:
    return (f"{_who(names, d['seat'])} will take a card at random from one of: "
            + ", ".join(_who(names, h) for h in d["candidates"]) + ".")


def _say_show_pair(d: dict[str, Any], names: Any) -> str:
    return f"{_who(names, d['seat'])} shows their pair of {d['number']}."


_NO_EXCHANGE: Final[dict[str, str]] = {
    "all_raised": "Everybody raised a hand: no exchange this round.",
    "nobody": "Nobody else has that card: no exchange this round.",
    "nobody_left": "Nobody is left to exchange with this round.",
}


def _say_no_exchange(d: dict[str, Any], names: Any) -> str:
    return _NO_EXCHANGE.get(d["reason"], "No exchange.")


def _say_take(d: dict[str, Any], names: Any) -> str:
    if "card" in d:
        return f"{_who(names, d['emperor'])} takes {card_name(d['card'])} at random from {_who(names, d['from'])}."
    return f"{_who(names, d['emperor'])} takes a card at random from {_who(names, d['from'])}."


def _say_demand(d: dict[str, Any], names: Any) -> str:
    if d.get("liar"):
        return (f"Liar! {_who(names, d['from'])} raised a hand but held {card_name(d['card'])}, "
                f"hands it to {_who(names, d['emperor'])} and takes the two Fox cards.")
    return f"{_who(names, d['from'])} hands {card_name(d['card'])} to {_who(names, d['emperor'])}."


def _say_exposed(d: dict[str, Any], names: Any) -> str:
    return f"{_who(names, d['seat'])}'s cards are laid face up: " + (_cards(d["hand"]) or "none") + "."


def _say_give(d: dict[str, Any], names: Any) -> str:
    if "card" in d:
        return f"{_who(names, d['emperor'])} gives {card_name(d['card'])} to {_who(names, d['to'])}."
    return f"{_who(names, d['emperor'])} gives a card to {_who(names, d['to'])}."


def _say_flip(d: dict[str, Any], names: Any) -> str:
    return f"{_who(names, d['seat'])} turns over object {d['pos'] + 1}: {object_name(d['object'])}."


def _say_place(d: dict[str, Any], names: Any) -> str:
    return f"{_who(names, d['seat'])} puts the pair of {d['number']} on {object_name(d['object'])}."


def _say_hide(d: dict[str, Any], names: Any) -> str:
    return f"No matching pair: object {d['pos'] + 1} is turned face down again."


def _say_resign(d: dict[str, Any], names: Any) -> str:
    who = _who(names, d["seat"])
    if d.get("back") is not None:
        return (f"{who} resigns; the card they had just taken goes back to {_who(names, d['back'])}, "
                "their other cards leave the game.")
    text = f"{who} resigns; their cards leave the game"
    if d.get("sheep_reset"):
        text += f". Everybody left has a Sheep: all but {_who(names, d['sheep_kept'])}'s go back to the centre"
    return text + "."


def _say_end(d: dict[str, Any], names: Any) -> str:
    if d["reason"] == "win":
        if len(d.get("placed") or []) == 2:  # two players: the empty hand wins
            return f"{_who(names, d['winner'])} has got rid of their hand and wins!"
        return f"{_who(names, d['winner'])} has put down a second pair and wins!"
    if d["reason"] == "resign":
        return f"Only {_who(names, d['winner'])} remains and wins." if d.get("winner") is not None else "The game ends."
    if d["reason"] == "objects":
        return "Every object card holds a pair: the game ends."
    return "The round limit is reached: the game ends."


# Every event type and the handler that writes its log line (an unknown type: its name).
DESCRIBE: Final[dict[str, Callable[[dict[str, Any], Any], str]]] = {
    "setup": _say_setup,
    "deal": _say_deal,
    "switch": _say_switch,
    "emperor": _say_emperor,
    "round": _say_round,
    "announce": _say_announce,
    "answer": _say_answer,
    "reveal": _say_reveal,
    "choose_target": _say_choose_target,
    "show_pair": _say_show_pair,
    "no_exchange": _say_no_exchange,
    "take": _say_take,
    "demand": _say_demand,
    "exposed": _say_exposed,
    "give": _say_give,
    "flip": _say_flip,
    "place": _say_place,
    "hide": _say_hide,
    "resign": _say_resign,
    "end": _say_end,
}
