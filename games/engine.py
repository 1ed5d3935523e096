"""The rules contract every game implements (docs/architecture.md#the-rules-contract).

A game is a module ``games/<slug>/rules.py`` of plain functions over plain,
JSON-serialisable data. No Django, no clock, no I/O, no ``random`` module:
randomness comes only from the ``Rng`` passed in (``games.rng``).

Module attributes and functions (``games.registry`` checks them at start-up):

    SLUG, NAME                      "knonsters", "Knonsters"
    MIN_PLAYERS, MAX_PLAYERS        ints
    OPTIONS_SCHEMA                  JSON schema (draft 2020-12) of the options
                                    object; every property has a "default".
    check_players(n, options)       raise IllegalAction if n players cannot play
                                    with these options (e.g. Kinapa refuses 3).
    setup(n, options, rng) -> [event]
    decide(state, seat, action, rng) -> [event]
                                    seat is an int, or None for the system
                                    (timers). Raises IllegalAction(reason).
                                    Never mutates ``state``.
    evolve(state, event) -> state   May update ``state`` in place and return it
                                    (replay speed). Starts from ``{}``. Never
                                    fails on a stored event, never draws.
    view(state, seat | None) -> dict
    redact(event, seat | None) -> event | None
    legal_actions(state, seat) -> [{"notation", "label", "action"}]
    to_act(state) -> {seat: {"kind": "turn" | "choice" | "window",
                             "default": action | None,
                             "seconds": int | None}}
    timers(state) -> [{"key", "seconds", "action"}]   (wall-clock game timers)
    result(state) -> None | {"ranks": [...], "scores": [...],
                             "winners": [...], "summary": str}
    describe(event, names) -> str   one line for the log, from a redacted event

Optional: ``decide_state(state, seat, action, rng) -> ([event], state)``: ``decide``'s events
and the state after them, for an engine that works that state out while deciding (a scratch
copy, to check moves and find automatic events). It must equal ``evolve`` of the events over
``state`` (``tests/games/harness.py`` checks) and leave ``state`` untouched; it may share
unchanged lists and dicts with it, since ``evolve`` replaces what it changes. Callers use it
through ``decide_and_evolve`` below, so every event is not evolved twice.

Optional: ``EVENT_VERSIONS`` ({type: version}, default 1) with ``upcast_<type>_vN_vN+1(data)``
steps, and ``RULES_VERSION`` (default 1), raised with every change of the rules: see ``games.schema``.

and ``games/<slug>/bots.py`` with ``random_bot(state, seat, rng)`` and
``heuristic_bot(state, seat, rng)`` returning an action from
``legal_actions``; ``games/<slug>/render.py`` with ``render(view, seat, names)``
returning the SVG/HTML fragment of the board for the web page and emails.

Events are dicts ``{"type": str, "data": dict}``. Actions are dicts with a
``"type"`` key. Seats are ints ``0..n-1``. Every game accepts
``{"type": "resign"}`` from any seat still playing while the game runs (the
resign endpoint and the "forfeit" timeout policy use it).

The platform stores a few events of its own in a game's stream
(``PLATFORM_EVENTS``, e.g. "timed_out"); they never reach an engine: fold stored
events with ``replay``/``evolve`` below, not ``rules.evolve``.

Text shown to players (legal-action labels, ``result()["summary"]``, ``describe``
lines) names a seat with the placeholder ``{seatN}`` (N the seat index, from 0,
``seat_ref``); ``games.selectors.named`` and ``Kind.render`` put in the player's
name on every channel (engines stay pure: they never see names but in
``describe`` and ``render``).
"""

from __future__ import annotations

import copy
import json
import json.encoder
import marshal
import re
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

if TYPE_CHECKING:
    from games.rng import Rng

# The plain data engines exchange with the platform (JSON-serialisable dicts).
State = dict[str, Any]
Event = dict[str, Any]
Action = dict[str, Any]
Options = dict[str, Any]


class Rules(Protocol):
    """The rules contract above, as a type: ``games/<slug>/rules.py`` modules conform to it
    (``games.registry`` has mypy check each one)."""

    SLUG: str
    NAME: str
    MIN_PLAYERS: int
    MAX_PLAYERS: int
    OPTIONS_SCHEMA: dict[str, Any]

    def check_players(self, n: int, options: Options) -> None: ...
    def setup(self, n: int, options: Options, rng: Rng) -> list[Event]: ...
    def decide(self, state: State, seat: int | None, action: Action, rng: Rng) -> list[Event]: ...
    def evolve(self, state: State, e: Event) -> State: ...
    def view(self, state: State, seat: int | None) -> dict[str, Any]: ...
    def redact(self, e: Event, seat: int | None) -> Event | None: ...
    def legal_actions(self, state: State, seat: int) -> list[dict[str, Any]]: ...
    def to_act(self, state: State) -> dict[int, dict[str, Any]]: ...
    def timers(self, state: State) -> list[dict[str, Any]]: ...
    def result(self, state: State) -> dict[str, Any] | None: ...
    def describe(self, e: Event, names: list[str]) -> str: ...


class Bots(Protocol):
    """``games/<slug>/bots.py``: each bot returns one of ``legal_actions``' actions."""

    def random_bot(self, state: State, seat: int, rng: Rng) -> Action: ...
    def heuristic_bot(self, state: State, seat: int, rng: Rng) -> Action: ...


class Renderer(Protocol):
    """``games/<slug>/render.py``: the board of a view as HTML (pages, emails) and as text. The
    view may carry "_out_of_time" (games.selectors.board_view): the seats a platform forfeit
    took out, which the rules saw resign; the board says "out of time" at those seats."""

    def render(self, view: dict[str, Any], seat: int | None, names: list[str]) -> str: ...
    def render_text(self, view: dict[str, Any], seat: int | None, names: list[str]) -> str: ...

RESIGN = {"type": "resign"}

# Events the platform writes into a stream: not rules, so engines never see them.
PLATFORM_EVENTS = frozenset({"timed_out", "forfeited"})

# Plain words a player may type (by email) for a reaction window's default answer
# ("let it resolve", "do nothing") whatever the game's own notation for it.
DEFAULT_ANSWER_WORDS = frozenset({"resolve", "nothing", "pass", "abstain", "no"})


def seat_ref(seat: int) -> str:
    """The placeholder that text for players uses for a seat (see the module's docs)."""
    return f"{{seat{seat}}}"


SEAT_REF = re.compile(r"\{seat(\d+)\}")


def fill_seats(data: Any, names: list[str]) -> Any:
    """``data`` (text, or lists/dicts of it) with each seat placeholder replaced by its name."""
    if isinstance(data, (list, dict)):
        try:  # most views hold no placeholder: one C-speed look instead of a rebuilt copy
            if b"{seat" not in marshal.dumps(data):
                return data
        except ValueError:
            pass
        return _fill(data, names)
    return _fill(data, names)


def _fill(data: Any, names: list[str]) -> Any:
    if isinstance(data, str):
        if "{seat" not in data:
            return data
        return SEAT_REF.sub(lambda m: names[int(m.group(1))] if int(m.group(1)) < len(names) else m.group(0), data)
    if isinstance(data, list):
        return [_fill(x, names) for x in data]
    if isinstance(data, dict):
        return {k: _fill(v, names) for k, v in data.items()}
    return data


class IllegalAction(Exception):
    """An action the rules refuse; ``reason`` is shown to the player as is."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


def event(type_: str, **data: Any) -> Event:
    return {"type": type_, "data": data}


T = TypeVar("T")


def clone(state: T) -> T:
    """A deep copy: ``evolve`` may update a state in place.

    States are plain data, so marshal copies them exactly and far more cheaply than
    ``copy.deepcopy`` (this runs before every bot move and every simulated decision).
    """
    try:
        return marshal.loads(marshal.dumps(state))  # type: ignore[arg-type]  # plain data, checked below
    except ValueError:  # not plain data after all: still correct, only slower
        return copy.deepcopy(state)


def evolve(rules: Rules, state: State, e: Event) -> State:
    """One stored event applied: the rules' evolve, or nothing for a platform event."""
    return state if e["type"] in PLATFORM_EVENTS else rules.evolve(state, e)


def replay(rules: Rules, events: Iterable[Event], state: State | None = None) -> State:
    """Fold ``evolve`` over stored events (from ``{}`` unless a state is given)."""
    state = {} if state is None else state
    evolve_ = rules.evolve
    for e in events:
        if e["type"] not in PLATFORM_EVENTS:
            state = evolve_(state, e)
    return state


def decide_and_evolve(rules: Rules, state: State, seat: int | None, action: Action,
                      rng: Rng) -> tuple[list[Event], State]:
    """``decide``'s events and the state after them, from the engine's ``decide_state`` when it
    has one (see the module's docs). Like ``evolve``, may update ``state`` in place: use only
    the state returned."""
    decide_state = getattr(rules, "decide_state", None)
    if decide_state is not None:
        new, after = decide_state(state, seat, action, rng)
        return new, after
    new = rules.decide(state, seat, action, rng)
    evolve_ = rules.evolve
    for e in new:
        state = evolve_(state, e)
    return new, state


def apply(rules: Rules, state: State, events: Iterable[Event]) -> State:
    """The state after ``events``, leaving ``state`` untouched."""
    return replay(rules, events, clone(state))


def canonical(data: Any) -> str:
    """One text for equal data: used to compare states and events."""
    if _C_CANONICAL is None:
        return _CANONICAL.encode(data)
    return "".join(_C_CANONICAL(data, 0))


# json.dumps(data, sort_keys=True, separators=(",", ":")) without building an encoder per call
# (Karenza's evolve writes one text per event). JSONEncoder.encode still sets up its C encoder
# in Python on every call, so that encoder is built here once, with encode's own arguments but
# no circular-reference check (plain data is a tree; a cycle would still fail, by recursion).
# The C encoder is CPython's json internals: without it, encode as before.
_CANONICAL = json.JSONEncoder(sort_keys=True, separators=(",", ":"))
_C_MAKE_ENCODER: Any = getattr(json.encoder, "c_make_encoder", None)
_C_CANONICAL: Any = _C_MAKE_ENCODER and _C_MAKE_ENCODER(
    None, _CANONICAL.default, json.encoder.encode_basestring_ascii, None, ":", ",", True, False, True)


def find_legal(rules: Rules, state: State, seat: int, *, action: Action | None = None,
               notation: str | None = None) -> Action | None:
    """The legal action matching an action dict or a notation text.

    Notation matching ignores case and repeated spaces, so a reply typed in an
    email matches the button's text.
    """
    legal = rules.legal_actions(state, seat)
    if notation is not None:
        wanted = " ".join(str(notation).split()).lower()
        for item in legal:
            if " ".join(item["notation"].split()).lower() == wanted:
                return item["action"]
        entry = rules.to_act(state).get(seat) or {}
        if wanted in DEFAULT_ANSWER_WORDS and entry.get("kind") == "window" and entry.get("default") in [i["action"] for i in legal]:
            return entry["default"]
        raise IllegalAction(f"“{notation}” is not one of your moves now.")
    return action


def only_default(rules: Rules, state: State, seat: int) -> bool:
    """Whether ``seat`` is in a reaction window where it cannot do anything but the
    window's default answer (resigning aside): e.g. no STOP card in hand."""
    entry = rules.to_act(state).get(seat)
    if not entry or entry.get("kind") != "window" or entry.get("default") is None:
        return False
    return all(item["action"] in (entry["default"], RESIGN) for item in rules.legal_actions(state, seat))
