"""Karenza: a two-player sword duel with character decks (rules contract).

See games/karenza/RULES.md for every interpretation of the rulebook.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any, Final

from games.engine import IllegalAction, canonical, event, seat_ref

SLUG = "karenza"
NAME = "Karenza"
MIN_PLAYERS = 2
MAX_PLAYERS = 2

HAND_SIZE = 7
DECK_SIZE = 32
CORNERS = ["TL", "TR", "BL", "BR"]
CORNER_NAMES = {"TL": "top-left", "TR": "top-right", "BL": "bottom-left", "BR": "bottom-right"}
ARROWS = {"TL": "↖", "TR": "↗", "BL": "↙", "BR": "↘"}

RECENT = 6  # public events kept in the state for the view ("what just happened")

DATA_DIR = Path(__file__).parent / "data"

ADDON_OPS = {"add", "multiply", "at_least", "copy_opponent", "ignore_chain"}
ADDON_VALUED = {"add", "multiply", "at_least"}
TRICK_OPS = {"draw": "immediate", "recall": "immediate", "no_attack": "next_turn", "attack_mod": "next_turn"}
ATTACK_EFFECTS = {"min_defence": int, "no_extra_turn": bool}
DEFENCE_EFFECTS = {"always_extra_turn": bool, "next_attack_bonus": int}


# --------------------------------------------------------------------------- data


def _fail(path, problem):
    raise ValueError(f"{Path(path).name}: {problem}")


def _is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def validate_deck(data, path="deck.json"):
    """Check one character deck; return {"character", "name", "style", "cards": {code: card}, "list": [codes]}."""
    character = _check_top_level(data, path)
    cards, order, total = {}, [], 0
    kinds = set()
    for i, c in enumerate(data["cards"]):
        card, kind = _check_card(c, i, path, character, cards)
        total += card["copies"]
        kinds.add(kind)
        cards[card["code"]] = card
        order.append(card["code"])
    if total != DECK_SIZE:
        _fail(path, f"the deck has {total} cards, it must have {DECK_SIZE}")
    for need in ("technique-attack", "technique-defence"):
        if need not in kinds:
            _fail(path, f"the deck has no {need.replace('-', ' ')} card")
    return {"character": character, "name": data["name"], "style": data.get("style", ""),
            "cards": cards, "list": order}


def _check_top_level(data, path):
    """The deck's fields but its cards; returns its character."""
    if not isinstance(data, dict):
        _fail(path, "the file must hold a JSON object")
    for key in ("character", "name", "cards"):
        if key not in data:
            _fail(path, f"missing top-level field “{key}”")
    character = data["character"]
    if not isinstance(character, str) or not character or character == "random":
        _fail(path, "“character” must be a non-empty slug other than “random”")
    if Path(path).suffix == ".json" and Path(path).stem != character:
        _fail(path, f"“character” is “{character}” but the file is named {Path(path).name}")
    if not isinstance(data["name"], str) or not data["name"]:
        _fail(path, "“name” must be a non-empty string")
    if not isinstance(data["cards"], list) or not data["cards"]:
        _fail(path, "“cards” must be a non-empty list")
    return character


def _check_card(c, i, path, character, cards):
    """Card number ``i`` (from 0) of the deck; returns (card, its kind: "technique-attack", ...)."""
    where = f"card #{i + 1}"
    if not isinstance(c, dict):
        _fail(path, f"{where} must be an object")
    code = c.get("code")
    if not isinstance(code, str) or not code or " " in code or code != code.lower():
        _fail(path, f"{where}: “code” must be a lower-case word without spaces")
    where = f"card “{code}”"
    if code in cards:
        _fail(path, f"{where} appears twice")
    if not isinstance(c.get("name"), str) or not c["name"]:
        _fail(path, f"{where}: “name” must be a non-empty string")
    if not _is_int(c.get("copies")) or c["copies"] < 1:
        _fail(path, f"{where}: “copies” must be a positive integer")
    kind = c.get("type")
    card = {"code": code, "name": c["name"], "type": kind, "copies": c["copies"], "character": character}
    if kind == "technique":
        return card, _check_technique(c, card, where, path)
    if kind == "ability":
        return card, _check_ability(c, card, where, path)
    _fail(path, f"{where}: “type” must be “technique” or “ability”")


def _check_technique(c, card, where, path):
    if c.get("function") not in ("attack", "defence"):
        _fail(path, f"{where}: a technique's “function” must be “attack” or “defence”")
    traj = c.get("trajectory")
    if (not isinstance(traj, list) or len(traj) != 2 or traj[0] not in CORNERS
            or traj[1] not in CORNERS or traj[0] == traj[1]):
        _fail(path, f"{where}: “trajectory” must be two different corners among {', '.join(CORNERS)}")
    if not _is_int(c.get("power")) or c["power"] < 0:
        _fail(path, f"{where}: “power” must be a non-negative integer")
    card.update(function=c["function"], trajectory=list(traj), power=c["power"])
    return "technique-" + c["function"]


def _check_ability(c, card, where, path):
    ability = c.get("ability")
    if ability not in ("attack", "defence", "addon", "trick"):
        _fail(path, f"{where}: “ability” must be attack, defence, addon or trick")
    if not isinstance(c.get("text"), str) or not c["text"].strip():
        _fail(path, f"{where}: an ability needs its rules “text”")
    effect = c.get("effect")
    if not isinstance(effect, dict):
        _fail(path, f"{where}: an ability needs an “effect” object")
    card.update(ability=ability, text=c["text"], effect=dict(effect))
    if ability in ("attack", "defence"):
        _check_attack_or_defence(c, card, effect, where, path)
    elif ability == "addon":
        _check_addon(c, card, effect, where, path)
    else:
        _check_trick(c, card, effect, where, path)
    return "ability-" + ability


def _check_attack_or_defence(c, card, effect, where, path):
    ability = card["ability"]
    if not _is_int(c.get("power")) or c["power"] < 0:
        _fail(path, f"{where}: “power” must be a non-negative integer")
    card["function"] = ability
    card["power"] = c["power"]
    allowed = ATTACK_EFFECTS if ability == "attack" else DEFENCE_EFFECTS
    for k, v in effect.items():
        if k not in allowed:
            _fail(path, f"{where}: unknown {ability} effect “{k}” (known: {', '.join(allowed)})")
        if allowed[k] is int and not _is_int(v):
            _fail(path, f"{where}: effect “{k}” must be an integer")
        if allowed[k] is bool and not isinstance(v, bool):
            _fail(path, f"{where}: effect “{k}” must be true or false")


def _check_addon(c, card, effect, where, path):
    if c.get("applies_to") not in ("any", "attack", "defence"):
        _fail(path, f"{where}: “applies_to” must be any, attack or defence")
    card["applies_to"] = c["applies_to"]
    op = effect.get("op")
    if op not in ADDON_OPS:
        _fail(path, f"{where}: unknown add-on op “{op}” (known: {', '.join(sorted(ADDON_OPS))})")
    if op in ADDON_VALUED and not _is_int(effect.get("value")):
        _fail(path, f"{where}: add-on op “{op}” needs an integer “value”")


def _check_trick(c, card, effect, where, path):
    op = effect.get("op")
    if op not in TRICK_OPS:
        _fail(path, f"{where}: unknown trick op “{op}” (known: {', '.join(sorted(TRICK_OPS))})")
    if c.get("timing") != TRICK_OPS[op]:
        _fail(path, f"{where}: a “{op}” trick has timing “{TRICK_OPS[op]}”")
    if op in ("draw", "attack_mod") and not _is_int(effect.get("value")):
        _fail(path, f"{where}: trick op “{op}” needs an integer “value”")
    if op == "draw" and effect["value"] < 1:
        _fail(path, f"{where}: a draw trick must draw at least 1 card")
    card["timing"] = c["timing"]


def load_decks(directory=DATA_DIR):
    decks, codes = {}, {}
    files = sorted(Path(directory).glob("*.json"))
    if not files:
        raise ValueError(f"{directory}: no character deck files")
    for path in files:
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except json.JSONDecodeError as exc:
            raise ValueError(f"{path.name}: not valid JSON ({exc})") from exc
        deck = validate_deck(data, path)
        if deck["character"] in decks:
            _fail(path, f"character “{deck['character']}” is defined twice")
        for code in deck["list"]:
            if code in codes:
                _fail(path, f"card code “{code}” is already used by {codes[code]}.json")
            codes[code] = deck["character"]
        decks[deck["character"]] = deck
    return decks


DECKS = load_decks()
CARDS: Final[dict[Any, dict[str, Any]]] = {code: card for deck in DECKS.values() for code, card in deck["cards"].items()}
CHARACTER_CHOICES = ["random"] + list(DECKS)

OPTIONS_SCHEMA = {
    "type": "object",
    "additionalProperties": False,
    "properties": {
        "characters": {
            "type": "array",
            "title": "Characters",
            "description": ("The character deck of the first and of the second player: "
                            + ", ".join(DECKS[c]["name"] for c in DECKS)
                            + ", or random. Both players may use the same character."),
            "items": {"type": "string", "enum": CHARACTER_CHOICES},
            "minItems": 2,
            "maxItems": 2,
            "default": ["random", "random"],
        },
    },
}


def deck_cards(character):
    deck = DECKS[character]
    return [code for code in deck["list"] for _ in range(deck["cards"][code]["copies"])]


# --------------------------------------------------------------------------- set-up


def _characters(options):
    options = options or {}
    if not isinstance(options, dict):
        raise IllegalAction("The options must be an object.")
    extra = set(options) - {"characters"}
    if extra:
        raise IllegalAction(f"Unknown option: {', '.join(sorted(extra))}.")
    chars = options.get("characters", ["random", "random"])
    if not isinstance(chars, list) or len(chars) != 2 or any(c not in CHARACTER_CHOICES for c in chars):
        raise IllegalAction("“characters” must list two choices among " + ", ".join(CHARACTER_CHOICES) + ".")
    return chars


def check_players(n, options):
    if n != 2:
        raise IllegalAction("Karenza is a duel: it needs exactly 2 players.")
    _characters(options)


def setup(n, options, rng):
    check_players(n, options)
    chars = [c if c != "random" else rng.choice(list(DECKS)) for c in _characters(options)]
    first = rng.randbelow(2)
    events = [event("started", characters=chars, first=first)]
    decks = []
    for seat in range(2):
        deck = rng.shuffled(deck_cards(chars[seat]))
        decks.append(deck)
        events.append(event("deck", seat=seat, cards=deck, count=len(deck)))
    for seat in range(2):
        events.append(event("drew", seat=seat, cards=decks[seat][:HAND_SIZE], count=HAND_SIZE, reason="deal"))
    events.append(event("turn", seat=first, extra=False))
    return events


# --------------------------------------------------------------------------- evolve


def _public_text(e: dict[str, Any]) -> str:
    """The spectator's version of an event, as JSON text (no copy needed: it is serialised at once)."""
    t = e["type"]
    if t == "drew" or t == "deck":
        e = redact(e, None)
    return canonical(e)


def _on_started(state: dict[str, Any], d: dict[str, Any]) -> None:
    state.clear()
    state.update({
        "characters": list(d["characters"]),
        "first": d["first"],
        "players": [{"character": c, "deck": "", "hand": [], "discard": "", "sequence": [],
                     "score": 0, "pending": {}, "current": {}} for c in d["characters"]],
        "turn": None,
        "turn_no": 0,
        "attack": None,
        "discard_pending": None,
        "last_hand": False,
        "last_hand_by": None,
        "passes": 0,
        "finished": None,
        "recent": [],
    })


def _on_deck(state: dict[str, Any], d: dict[str, Any]) -> None:
    state["players"][d["seat"]]["deck"] = " ".join(d["cards"])


def _on_turn(state: dict[str, Any], d: dict[str, Any]) -> None:
    players: list[dict[str, Any]] = state["players"]
    prev = state["turn"]
    if prev is not None:
        players[prev]["current"] = {}
    p: dict[str, Any] = players[d["seat"]]
    p["current"] = p["pending"]
    p["pending"] = {}
    state["turn"] = d["seat"]
    state["turn_no"] += 1


def _on_passed(state: dict[str, Any], d: dict[str, Any]) -> None:
    state["passes"] += 1


def _on_played(state: dict[str, Any], d: dict[str, Any]) -> None:
    seat = d["seat"]
    p: dict[str, Any] = state["players"][seat]
    hand: list[Any] = p["hand"]
    hand.remove(d["card"])
    for a in d["addons"]:
        hand.remove(a)
    role = d["role"]
    if role == "trick":
        p["discard"] = _put(p["discard"], [d["card"]])
    else:
        p["sequence"].append({"card": d["card"], "addons": list(d["addons"]), "role": role,
                              "power": d["power"], "start": d["start"], "end": d["end"]})
        if role == "attack":
            state["attack"] = {"by": seat, "power": d["power"], "card": d["card"],
                               "min_defence": d.get("min_defence", 0),
                               "no_extra_turn": d.get("no_extra_turn", False)}
        else:
            state["attack"] = None
    for g in d.get("grants", ()):
        pend = state["players"][g["seat"]]["pending"]
        if g["key"] == "attack_mod":
            pend["attack_mod"] = pend.get("attack_mod", 0) + g["value"]
        else:
            pend[g["key"]] = g["value"]
    state["passes"] = 0


def _on_sequence_ended(state: dict[str, Any], d: dict[str, Any]) -> None:
    for p in state["players"]:
        if p["sequence"]:
            p["discard"] = _put(p["discard"], [c for entry in p["sequence"] for c in [entry["card"], *entry["addons"]]])
            p["sequence"] = []
    state["attack"] = None


def _on_drew(state: dict[str, Any], d: dict[str, Any]) -> None:
    p: dict[str, Any] = state["players"][d["seat"]]
    n = d["count"]
    deck: list[str] = p["deck"].split()
    p["hand"].extend(deck[:n])
    p["deck"] = " ".join(deck[n:])
    if d["reason"] == "draw":
        state["passes"] = 0
    if d["reason"] in ("draw", "trick") and len(p["hand"]) > HAND_SIZE:
        state["discard_pending"] = d["seat"]


def _on_scored(state: dict[str, Any], d: dict[str, Any]) -> None:
    state["players"][d["seat"]]["score"] += d["points"]


def _on_discarded(state: dict[str, Any], d: dict[str, Any]) -> None:
    p: dict[str, Any] = state["players"][d["seat"]]
    p["hand"].remove(d["card"])
    p["discard"] = _put(p["discard"], [d["card"]])
    state["discard_pending"] = None


def _on_recalled(state: dict[str, Any], d: dict[str, Any]) -> None:
    p: dict[str, Any] = state["players"][d["seat"]]
    pile = p["discard"].split()
    pile.remove(d["card"])
    p["discard"] = " ".join(pile)
    p["hand"].append(d["card"])


def _on_last_hand(state: dict[str, Any], d: dict[str, Any]) -> None:
    state["last_hand"] = True
    state["last_hand_by"] = d["seat"]
    state["passes"] = 0


def _on_ended(state: dict[str, Any], d: dict[str, Any]) -> None:
    state["finished"] = {"reason": d["reason"], "winners": list(d["winners"]), "resigned": None}


def _on_resigned(state: dict[str, Any], d: dict[str, Any]) -> None:
    state["finished"] = {"reason": "resign", "winners": [1 - d["seat"]], "resigned": d["seat"]}


# how each event type changes the state (a type not listed changes nothing but "recent")
EVOLVE: Final[dict[str, Callable[[dict[str, Any], dict[str, Any]], None]]] = {
    "started": _on_started,
    "deck": _on_deck,
    "turn": _on_turn,
    "passed": _on_passed,
    "played": _on_played,
    "sequence_ended": _on_sequence_ended,
    "drew": _on_drew,
    "scored": _on_scored,
    "discarded": _on_discarded,
    "recalled": _on_recalled,
    "last_hand": _on_last_hand,
    "ended": _on_ended,
    "resigned": _on_resigned,
}


def evolve(state: dict[str, Any], e: dict[str, Any]) -> dict[str, Any]:
    t: str = e["type"]
    d: dict[str, Any] = e["data"]
    handler = EVOLVE.get(t)
    if handler is not None:
        handler(state, d)
    if t == "turn" or t == "deck":
        return state
    # every other event kept as JSON text: cheap to copy, decoded by view()
    recent: list[Any] = state.get("recent", [])
    state["recent"] = (recent + [_public_text(e)])[-RECENT:]
    return state


# --------------------------------------------------------------------------- helpers


def deck_of(player: dict[str, Any]) -> list[str]:
    """A player's face-down deck, top card first (stored as one space-separated text: cheap to copy)."""
    return player["deck"].split()


def discard_of(player: dict[str, Any]) -> list[str]:
    """A player's face-up discard pile, oldest first (stored like the deck)."""
    return player["discard"].split()


def _put(text, cards):
    return " ".join(([text] if text else []) + list(cards))


def other(seat):
    return 1 - seat


def in_sequence(state: dict[str, Any]) -> bool:
    p0: dict[str, Any]
    p1: dict[str, Any]
    p0, p1 = state["players"]
    return bool(p0["sequence"] or p1["sequence"])


def under_attack(state: dict[str, Any], seat: Any) -> bool:
    a: dict[str, Any] | None = state["attack"]
    return a is not None and a["by"] != seat


def chain_end(player: dict[str, Any]) -> Any:
    """The corner the next technique must start from (None: any corner)."""
    seq: list[dict[str, Any]] = player["sequence"]
    i = len(seq) - 1
    while i >= 0:
        end = seq[i]["end"]
        if end is not None:
            return end
        i -= 1
    return None


def card_power(state: dict[str, Any], seat: Any, card: dict[str, Any], addons: Any, role: str) -> Any:
    """The power of a technique/ability as played: base, add-ons bottom-up, then turn modifiers."""
    power = card["power"]
    opp: dict[str, Any] = state["players"][other(seat)]
    for code in addons:
        eff: dict[str, Any] = CARDS[code]["effect"]
        op: str = eff["op"]
        if op == "add":
            power += eff["value"]
        elif op == "multiply":
            power *= eff["value"]
        elif op == "at_least":
            power = max(power, eff["value"])
        elif op == "copy_opponent":
            power = opp["sequence"][-1]["power"] if opp["sequence"] else 0
    if role == "attack":
        power += state["players"][seat]["current"].get("attack_mod", 0)
    return max(0, power)


def _counts(hand: list[Any]) -> dict[Any, int]:
    counts: dict[Any, int] = {}
    for code in hand:
        counts[code] = counts[code] + 1 if code in counts else 1
    return counts


def _addon_sequences(counts, role):
    """Every distinct ordered pile of add-ons (bottom first) from the hand, for a technique of ``role``."""
    addons = _ADDONS[role]
    usable = sorted(c for c in counts if c in addons)
    out = [[]]
    if not usable:
        return out

    def grow(prefix, left):
        for code in usable:
            if left[code] > 0:
                left[code] -= 1
                pile = prefix + [code]
                out.append(pile)
                grow(pile, left)
                left[code] += 1

    grow([], {c: counts[c] for c in usable})
    return out


# the add-on cards that may go on a technique of each role
_ADDONS = {role: frozenset(c for c, card in CARDS.items() if card["type"] == "ability" and card["ability"] == "addon"
                           and card["applies_to"] in ("any", role))
           for role in ("attack", "defence")}


def _fits_chain(player, card, addons):
    if card["type"] != "technique":
        return True
    if any(CARDS[a]["effect"]["op"] == "ignore_chain" for a in addons):
        return True
    end = chain_end(player)
    return end is None or card["trajectory"][0] == end


def _traj(card):
    if card["type"] != "technique":
        return "any trajectory"
    a, b = card["trajectory"]
    return f"{a}→{b}"


# --------------------------------------------------------------------------- legal actions


def _notation_play(verb, card, addons):
    return " ".join([verb, card] + [f"+ {a}" for a in addons])


def _label_play(verb, card, addons, power):
    c = CARDS[card]
    text = f"{verb} with {c['name']} ({_traj(c)}, power {power})"
    if addons:
        text += " with " + ", then ".join(CARDS[a]["name"] for a in addons)
    return text


def _plays(state: dict[str, Any], seat: Any, role: str, full: bool = True) -> list[Any]:
    """Legal attack/defend actions for ``seat``: items with notation and label, or (not ``full``)
    the bare actions."""
    p: dict[str, Any] = state["players"][seat]
    counts = _counts(p["hand"])
    out: list[Any] = []
    verb: str = "attack" if role == "attack" else "defend"
    min_defence = state["attack"]["min_defence"] if role == "defence" else None
    addon_piles = free_piles = None  # the same for every technique of the hand (add-ons are never techniques)
    end = chain_end(p)
    for code in sorted(counts.keys() & _PLAYABLE[role]):
        card: dict[str, Any] = CARDS[code]
        if card["type"] == "technique":
            if addon_piles is None:
                addon_piles = _addon_sequences(counts, role)
            if end is None or card["trajectory"][0] == end:
                piles = addon_piles
            else:  # off the chain (_fits_chain): only with an add-on that ignores it
                if free_piles is None:
                    free_piles = [pile for pile in addon_piles
                                  if any(CARDS[a]["effect"]["op"] == "ignore_chain" for a in pile)]
                piles = free_piles
        else:
            piles = _NO_ADDONS
        for pile in piles:
            if min_defence is not None or full:  # attacks have no minimum power
                power = card_power(state, seat, card, pile, role)
                if min_defence is not None and power < min_defence:
                    continue
            pile = list(pile)  # each action its own list
            if not full:
                out.append({"type": verb, "card": code, "addons": pile})
                continue
            out.append({"notation": _notation_play(verb, code, pile),
                        "label": _label_play(verb.capitalize(), code, pile, power),
                        "action": {"type": verb, "card": code, "addons": pile}})
    return out


_NO_ADDONS = ((),)
# the techniques and abilities that attack, that defend
_PLAYABLE = {role: frozenset(c for c, card in CARDS.items() if card.get("function") == role)
             for role in ("attack", "defence")}
_TRICK_CARDS = frozenset(c for c, card in CARDS.items() if card["type"] == "ability" and card["ability"] == "trick")


def _tricks(state: dict[str, Any], seat: Any) -> list[Any]:
    p: dict[str, Any] = state["players"][seat]
    out: list[Any] = []
    for code in sorted(_TRICK_CARDS.intersection(p["hand"])):
        card = CARDS[code]
        op = card["effect"]["op"]
        if op == "draw":
            if state["last_hand"] or not p["deck"]:
                continue
        if op == "recall":
            for target in sorted({c for c in discard_of(p) if CARDS[c]["type"] == "technique"}):
                out.append({"notation": f"trick {code} {target}",
                            "label": f"Play {card['name']}: take {CARDS[target]['name']} back",
                            "action": {"type": "trick", "card": code, "target": target}})
            continue
        out.append({"notation": f"trick {code}", "label": f"Play {card['name']}",
                    "action": {"type": "trick", "card": code}})
    return out


def legal_actions(state, seat):
    if not state or state.get("finished") or seat is None or seat != state["turn"]:
        return []
    p = state["players"][seat]
    resign = {"notation": "resign", "label": "Resign", "action": {"type": "resign"}}
    if state["discard_pending"] == seat:
        return [{"notation": f"discard {c}", "label": f"Discard {CARDS[c]['name']}",
                 "action": {"type": "discard", "card": c}} for c in sorted(set(p["hand"]))] + [resign]
    out = []
    if under_attack(state, seat):
        out += _plays(state, seat, "defence")
        out.append({"notation": "pass",
                    "label": f"Pass (your opponent lands a clean strike worth {state['attack']['power']})",
                    "action": {"type": "pass"}})
    else:
        if not p["current"].get("no_attack"):
            out += _plays(state, seat, "attack")
        out += _tricks(state, seat)
        if not in_sequence(state) and not state["last_hand"] and p["deck"]:
            out.append({"notation": "draw", "label": "Draw a card", "action": {"type": "draw"}})
        out.append({"notation": "pass",
                    "label": "Pass (ends the sequence)" if in_sequence(state) else "Pass",
                    "action": {"type": "pass"}})
    out.append(resign)
    return out


def _actions(state: dict[str, Any], seat: Any) -> list[Any]:
    """The actions of ``legal_actions`` but resign, in its order, without their texts (for the bots)."""
    if not state or state.get("finished") or seat is None or seat != state["turn"]:
        return []
    p: dict[str, Any] = state["players"][seat]
    if state["discard_pending"] == seat:
        return [{"type": "discard", "card": c} for c in sorted(set(p["hand"]))]
    if under_attack(state, seat):
        out = _plays(state, seat, "defence", False)
        out.append({"type": "pass"})
        return out
    out = [] if p["current"].get("no_attack") else _plays(state, seat, "attack", False)
    out += [item["action"] for item in _tricks(state, seat)]
    if not in_sequence(state) and not state["last_hand"] and p["deck"]:
        out.append({"type": "draw"})
    out.append({"type": "pass"})
    return out


# --------------------------------------------------------------------------- decide


KNOWN = {"draw", "discard", "attack", "defend", "trick", "pass", "resign"}


def _why_not_play(state, seat, action, role):
    """A player-readable reason an attack/defend action is refused (or None)."""
    p = state["players"][seat]
    code, addons = action.get("card"), action.get("addons", [])
    if not isinstance(addons, list) or not all(isinstance(a, str) for a in addons):
        return "Add-ons must be given as a list of card codes."
    if code not in CARDS:
        return "There is no such card."
    hand = p["hand"]
    if (code not in hand if not addons
            else any(hand.count(c) < n for c, n in _counts([code] + addons).items())):
        return "You do not have those cards in your hand."
    card = CARDS[code]
    verb = "attack" if role == "attack" else "defence"
    if card.get("function") != role:
        return f"{card['name']} is not an {verb}." if role == "attack" else f"{card['name']} is not a defence."
    for a in addons:
        ac = CARDS[a]
        if ac["type"] != "ability" or ac["ability"] != "addon":
            return f"{ac['name']} is not an add-on."
        if card["type"] != "technique":
            return "Add-ons can only be played on top of technique cards."
        if ac["applies_to"] not in ("any", role):
            return f"{ac['name']} can only be played on an {ac['applies_to']} technique."
    if not _fits_chain(p, card, addons):
        return (f"Trajectory chain rule: your next technique must start at the "
                f"{CORNER_NAMES[chain_end(p)]} corner.")
    if role == "defence":
        power = card_power(state, seat, card, addons, role)
        if power < state["attack"]["min_defence"]:
            return f"This attack can only be blocked by a defence of power {state['attack']['min_defence']} or more."
    return None


KEYS = {"draw": {"type"}, "pass": {"type"}, "discard": {"type", "card"}, "attack": {"type", "card", "addons"},
        "defend": {"type", "card", "addons"}}


def _refuse(state: dict[str, Any], seat: Any, action: dict[str, Any]) -> None:
    """Raise IllegalAction with the best reason, or return if the action is legal.

    Exactly the actions of ``legal_actions`` pass (a test checks the equivalence)."""
    t = action["type"]
    if t == "trick":
        card = action.get("card")
        op = CARDS[card].get("effect", {}).get("op") if isinstance(card, str) and card in CARDS else None
        keys = {"type", "card", "target"} if op == "recall" else {"type", "card"}
    else:
        keys = KEYS[t]
    if set(action) != keys:
        raise IllegalAction("That move is not written the way the game understands it.")
    for k in keys - {"type", "addons"}:
        if not isinstance(action[k], str):
            raise IllegalAction("Cards are named by their codes.")
    if state["discard_pending"] == seat and t != "discard":
        raise IllegalAction("You have 8 cards: discard one first.")
    check = REFUSE.get(t)
    if check is not None:
        check(state, seat, action)


def _refuse_discard(state: dict[str, Any], seat: Any, action: dict[str, Any]) -> None:
    if state["discard_pending"] != seat:
        raise IllegalAction("You only discard after drawing an eighth card.")
    if action.get("card") not in state["players"][seat]["hand"]:
        raise IllegalAction("You do not have that card in your hand.")


def _refuse_draw(state: dict[str, Any], seat: Any, action: dict[str, Any]) -> None:
    if under_attack(state, seat):
        raise IllegalAction("You are under attack: defend or pass.")
    if in_sequence(state):
        raise IllegalAction("You cannot draw while in sequence.")
    if state["last_hand"] or not state["players"][seat]["deck"]:
        raise IllegalAction("It is the last hand: nobody can draw any more.")


def _refuse_attack(state: dict[str, Any], seat: Any, action: dict[str, Any]) -> None:
    if under_attack(state, seat):
        raise IllegalAction("You are under attack: you must defend first (or pass).")
    if state["players"][seat]["current"].get("no_attack"):
        raise IllegalAction("You cannot attack this turn (a trick of your opponent's forbids it).")
    why = _why_not_play(state, seat, action, "attack")
    if why:
        raise IllegalAction(why)


def _refuse_defend(state: dict[str, Any], seat: Any, action: dict[str, Any]) -> None:
    if not under_attack(state, seat):
        raise IllegalAction("You can only defend when you are under attack.")
    why = _why_not_play(state, seat, action, "defence")
    if why:
        raise IllegalAction(why)


def _refuse_trick(state: dict[str, Any], seat: Any, action: dict[str, Any]) -> None:
    p: dict[str, Any] = state["players"][seat]
    code = action.get("card")
    if code not in p["hand"]:
        raise IllegalAction("You do not have that card in your hand.")
    if CARDS[code]["type"] != "ability" or CARDS[code]["ability"] != "trick":
        raise IllegalAction(f"{CARDS[code]['name']} is not a trick.")
    if under_attack(state, seat):
        raise IllegalAction("You are under attack: defend or pass.")
    op = CARDS[code]["effect"]["op"]
    if op == "draw" and (state["last_hand"] or not p["deck"]):
        raise IllegalAction("It is the last hand: nobody can draw any more.")
    if op == "recall" and (action["target"] not in discard_of(p) or CARDS[action["target"]]["type"] != "technique"):
        raise IllegalAction("Name a technique card from your discard pile.")


# _refuse's checks of each action type after those of its shape (a pass needs none)
REFUSE: Final[dict[str, Callable[[dict[str, Any], Any, dict[str, Any]], None]]] = {
    "discard": _refuse_discard,
    "draw": _refuse_draw,
    "attack": _refuse_attack,
    "defend": _refuse_defend,
    "trick": _refuse_trick,
}


def _normalise(action):
    action = dict(action)
    if action.get("type") in ("attack", "defend") and "addons" not in action:
        action["addons"] = []
    return action


def _refill(state):
    """Events for both players drawing up to seven; declares the last hand if a deck runs out."""
    events, emptied = [], None
    for s in range(2):
        p = state["players"][s]
        deck = deck_of(p)
        n = min(max(0, HAND_SIZE - len(p["hand"])), len(deck))
        if n:
            events.append(event("drew", seat=s, cards=deck[:n], count=n, reason="refill"))
            if n == len(deck) and emptied is None:
                emptied = s
    if emptied is not None and not state["last_hand"]:
        events.append(event("last_hand", seat=emptied))
    return events


def _end(scores, reason):
    best = max(scores)
    winners = [s for s in range(2) if scores[s] == best]
    return event("ended", reason=reason, scores=list(scores), winners=winners)


def _turn(seat, extra):
    # written out: a turn event ends almost every move
    return {"type": "turn", "data": {"seat": seat, "extra": extra}}


def decide(state, seat, action, rng):
    if not isinstance(action, dict) or not isinstance(action.get("type"), str) or action["type"] not in KNOWN:
        raise IllegalAction("That is not a Karenza move.")
    if not state or state.get("finished"):
        raise IllegalAction("The game is over.")
    if seat not in (0, 1):
        raise IllegalAction("Only the two duellists can act.")
    t = action["type"]
    if t == "resign":
        return [event("resigned", seat=seat)]
    if seat != state["turn"]:
        raise IllegalAction("It is not your turn.")
    action = _normalise(action)
    _refuse(state, seat, action)
    return DECIDE[t](state, seat, action)


def _decide_discard(state: dict[str, Any], seat: Any, action: dict[str, Any]) -> list[dict[str, Any]]:
    return [event("discarded", seat=seat, card=action["card"]), _turn(other(seat), False)]


def _decide_draw(state: dict[str, Any], seat: Any, action: dict[str, Any]) -> list[dict[str, Any]]:
    p: dict[str, Any] = state["players"][seat]
    deck = deck_of(p)
    events = [event("drew", seat=seat, cards=deck[:1], count=1, reason="draw")]
    if len(deck) == 1:
        events.append(event("last_hand", seat=seat))
    if len(p["hand"]) + 1 <= HAND_SIZE:
        events.append(_turn(other(seat), False))
    return events


def _played_data(state: dict[str, Any], seat: Any, card: dict[str, Any], addons: list[Any], role: str) -> dict[str, Any]:
    """The data of the "played" event of an attack or a defence (its role's own keys come after)."""
    power = card_power(state, seat, card, addons, role)
    return {"seat": seat, "role": role, "card": card["code"], "addons": list(addons), "power": power,
            "start": card["trajectory"][0] if card["type"] == "technique" else None,
            "end": card["trajectory"][1] if card["type"] == "technique" else None,
            "grants": []}


def _ability_effect(card: dict[str, Any]) -> dict[str, Any]:
    return card.get("effect", {}) if card["type"] == "ability" else {}


def _decide_attack(state: dict[str, Any], seat: Any, action: dict[str, Any]) -> list[dict[str, Any]]:
    card = CARDS[action["card"]]
    data = _played_data(state, seat, card, action["addons"], "attack")
    eff = _ability_effect(card)
    data["min_defence"] = eff.get("min_defence", 0)
    data["no_extra_turn"] = eff.get("no_extra_turn", False)
    return [{"type": "played", "data": data}, _turn(other(seat), False)]


def _decide_defend(state: dict[str, Any], seat: Any, action: dict[str, Any]) -> list[dict[str, Any]]:
    card = CARDS[action["card"]]
    data = _played_data(state, seat, card, action["addons"], "defence")
    eff = _ability_effect(card)
    attack = state["attack"]
    extra = (data["power"] > attack["power"] or eff.get("always_extra_turn", False)) and not attack["no_extra_turn"]
    data["attack_power"] = attack["power"]
    data["extra_turn"] = extra
    if eff.get("next_attack_bonus"):
        data["grants"].append({"seat": seat, "key": "attack_mod", "value": eff["next_attack_bonus"]})
    return [{"type": "played", "data": data}, _turn(seat if extra else other(seat), extra)]


def _decide_trick(state: dict[str, Any], seat: Any, action: dict[str, Any]) -> list[dict[str, Any]]:
    p: dict[str, Any] = state["players"][seat]
    opp = other(seat)
    card = CARDS[action["card"]]
    eff = card["effect"]
    data = {"seat": seat, "role": "trick", "card": card["code"], "addons": [], "power": None,
            "start": None, "end": None, "grants": [], "timing": card["timing"]}
    events = [{"type": "played", "data": data}]
    hand_after = len(p["hand"]) - 1
    if eff["op"] == "no_attack":
        data["grants"].append({"seat": opp, "key": "no_attack", "value": True})
    elif eff["op"] == "attack_mod":
        data["grants"].append({"seat": opp, "key": "attack_mod", "value": eff["value"]})
    elif eff["op"] == "recall":
        events.append(event("recalled", seat=seat, card=action["target"]))
        hand_after += 1
    elif eff["op"] == "draw":
        deck = deck_of(p)
        n = min(eff["value"], len(deck))
        events.append(event("drew", seat=seat, cards=deck[:n], count=n, reason="trick"))
        hand_after += n
        if n == len(deck):
            events.append(event("last_hand", seat=seat))
    if hand_after <= HAND_SIZE:
        events.append(_turn(opp, False))
    return events


def _decide_pass(state: dict[str, Any], seat: Any, action: dict[str, Any]) -> list[dict[str, Any]]:
    if under_attack(state, seat):
        return _pass_under_attack(state, seat)
    events = [event("passed", seat=seat, under_attack=False)]
    if in_sequence(state):
        events.append(event("sequence_ended"))
    if state["last_hand"] and state["passes"] + 1 >= 2:
        return events + [_end([pl["score"] for pl in state["players"]], "two passes in a row in the last hand")]
    return events + [_turn(other(seat), False)]


def _pass_under_attack(state: dict[str, Any], seat: Any) -> list[dict[str, Any]]:
    """The attack lands: a clean strike for the opponent, and the sequence ends."""
    opp = other(seat)
    attack = state["attack"]
    scores = [pl["score"] for pl in state["players"]]
    scores[opp] += attack["power"]
    events = [event("passed", seat=seat, under_attack=True),
              event("scored", seat=opp, points=attack["power"], card=attack["card"]),
              event("sequence_ended")]
    if state["last_hand"]:
        return events + [_end(scores, "clean strike in the last hand")]
    # the hands are unchanged by the end of the sequence (its cards go to the discard piles)
    events += _refill(state)
    return events + [_turn(seat, False)]


# the events of each action type but resign, once _refuse has let it through
DECIDE: Final[dict[str, Callable[[dict[str, Any], Any, dict[str, Any]], list[dict[str, Any]]]]] = {
    "discard": _decide_discard,
    "draw": _decide_draw,
    "attack": _decide_attack,
    "defend": _decide_defend,
    "trick": _decide_trick,
    "pass": _decide_pass,
}


# --------------------------------------------------------------------------- queries


def to_act(state):
    if not state or state.get("finished") or state.get("turn") is None:
        return {}
    seat = state["turn"]
    if state["discard_pending"] == seat:
        return {seat: {"kind": "turn", "default": None, "seconds": None}}
    # Doing nothing means passing; outside a sequence it means drawing (so that a game whose
    # players never come back still runs its decks out and ends).
    p = state["players"][seat]
    can_draw = not in_sequence(state) and not state["last_hand"] and p["deck"]
    return {seat: {"kind": "turn", "default": {"type": "draw" if can_draw else "pass"}, "seconds": None}}


def timers(state):
    return []


def result(state):
    if not state or not state.get("finished"):
        return None
    f = state["finished"]
    scores = [p["score"] for p in state["players"]]
    winners = list(f["winners"])
    ranks = [1 if s in winners else 2 for s in range(2)]
    name = [DECKS[c]["name"] for c in state["characters"]]
    if f["reason"] == "resign":
        w = winners[0]
        summary = f"{seat_ref(f['resigned'])} ({name[f['resigned']]}) resigned; {seat_ref(w)} ({name[w]}) wins."
    elif len(winners) == 2:
        summary = f"A draw at {scores[0]}–{scores[1]} after the last hand."
    else:
        w = winners[0]
        summary = f"{seat_ref(w)} ({name[w]}) wins {scores[w]}–{scores[1 - w]} ({f['reason']})."
    return {"ranks": ranks, "scores": scores, "winners": winners, "summary": summary}


def card_info(code):
    c = CARDS[code]
    info = {k: v for k, v in c.items() if k != "copies"}
    info.pop("effect", None)
    return info


CARD_INFO = {code: card_info(code) for code in CARDS}


def _copy_info(info):
    out = dict(info)
    if "trajectory" in out:
        out["trajectory"] = list(out["trajectory"])
    return out


def view(state, seat):
    if not state:
        return {}
    v = seat_view(state, seat)
    chars = sorted(set(state["characters"]))
    v["cards"] = {code: _copy_info(CARD_INFO[code]) for ch in chars for code in DECKS[ch]["list"]}
    if seat in (0, 1):
        v["moves"] = [item["notation"] for item in legal_actions(state, seat)]
    return v


def seat_view(state, seat):
    """The view without the card catalogue (what the bots read)."""
    players = []
    for _s, p in enumerate(state["players"]):
        players.append({
            "character": p["character"],
            "character_name": DECKS[p["character"]]["name"],
            "score": p["score"],
            "hand_count": len(p["hand"]),
            "deck_count": len(deck_of(p)),
            "discard": discard_of(p),
            "sequence": [dict(entry) for entry in p["sequence"]],
            "chain_end": chain_end(p),
            "this_turn": dict(p["current"]),
            "next_turn": dict(p["pending"]),
        })
    v = {
        "you": seat,
        "turn": state["turn"],
        "turn_no": state["turn_no"],
        "first": state["first"],
        "players": players,
        "attack": dict(state["attack"]) if state["attack"] else None,
        "under_attack": other(state["attack"]["by"]) if state["attack"] else None,
        "in_sequence": in_sequence(state),
        "last_hand": state["last_hand"],
        "last_hand_by": state["last_hand_by"],
        "passes": state["passes"],
        "discard_pending": state["discard_pending"],
        "recent": [json.loads(r) for r in state.get("recent", [])],
        "finished": dict(state["finished"]) if state["finished"] else None,
        "result": result(state),
    }
    if seat in (0, 1):
        v["hand"] = list(state["players"][seat]["hand"])
    return v


def redact(e, seat):
    t, d = e["type"], e["data"]
    if t == "deck":
        return {"type": t, "data": {"seat": d["seat"], "count": d["count"]}}
    if t == "drew" and seat != d["seat"]:
        return {"type": t, "data": {"seat": d["seat"], "count": d["count"], "reason": d["reason"]}}
    return {"type": t, "data": json.loads(json.dumps(d))}


def _cname(code):
    return CARDS[code]["name"] if code in CARDS else str(code)


def _who(names: Any, s: Any) -> str:
    return names[s] if s is not None and s < len(names) else f"Player {s + 1}"


def _describe_started(d: dict[str, Any], names: Any) -> str:
    chars = ", ".join(f"{_who(names, s)} plays {DECKS[c]['name'] if c in DECKS else c}"
                      for s, c in enumerate(d["characters"]))
    return f"The duel begins: {chars}. {_who(names, d['first'])} opens."


def _describe_deck(d: dict[str, Any], names: Any) -> str:
    return f"{_who(names, d['seat'])} shuffled a deck of {d['count']} cards."


def _describe_drew(d: dict[str, Any], names: Any) -> str:
    what = ", ".join(_cname(c) for c in d["cards"]) if "cards" in d else None
    n = d["count"]
    cards = f"{n} card{'s' if n != 1 else ''}"
    verb = "was dealt" if d["reason"] == "deal" else "drew"
    tail = " to refill their hand" if d["reason"] == "refill" else ""
    return f"{_who(names, d['seat'])} {verb} {cards}{tail}" + (f" ({what})." if what else ".")


def _describe_discarded(d: dict[str, Any], names: Any) -> str:
    return f"{_who(names, d['seat'])} discarded {_cname(d['card'])}."


def _describe_played(d: dict[str, Any], names: Any) -> str:
    who = _who(names, d["seat"])
    name = _cname(d["card"])
    if d["role"] == "trick":
        return f"{who} played the trick {name}."
    pile = f" with {', then '.join(_cname(a) for a in d['addons'])}" if d["addons"] else ""
    if d["role"] == "attack":
        return f"{who} attacked with {name}{pile}: power {d['power']}."
    extra = " and earned an extra turn" if d.get("extra_turn") else ""
    return f"{who} defended with {name}{pile} (power {d['power']}){extra}."


def _describe_recalled(d: dict[str, Any], names: Any) -> str:
    return f"{_who(names, d['seat'])} took {_cname(d['card'])} back from the discard pile."


def _describe_passed(d: dict[str, Any], names: Any) -> str:
    return f"{_who(names, d['seat'])} passed" + (" while under attack." if d.get("under_attack") else ".")


def _describe_scored(d: dict[str, Any], names: Any) -> str:
    points = f"{d['points']} point{'s' if d['points'] != 1 else ''}"
    return f"{_who(names, d['seat'])} landed a clean strike with {_cname(d['card'])}: {points}."


def _describe_sequence_ended(d: dict[str, Any], names: Any) -> str:
    return "The sequence ends; the played cards go to the discard piles."


def _describe_last_hand(d: dict[str, Any], names: Any) -> str:
    return f"{_who(names, d['seat'])} drew the last card of their deck: last hand!"


def _describe_turn(d: dict[str, Any], names: Any) -> str:
    who = _who(names, d["seat"])
    return f"{who} plays an extra turn." if d.get("extra") else f"{who} to play."


def _describe_ended(d: dict[str, Any], names: Any) -> str:
    if len(d["winners"]) == 2:
        return f"The duel ends in a draw, {d['scores'][0]}–{d['scores'][1]} ({d['reason']})."
    w = d["winners"][0]
    return f"{_who(names, w)} wins {d['scores'][w]}–{d['scores'][1 - w]} ({d['reason']})."


def _describe_resigned(d: dict[str, Any], names: Any) -> str:
    return f"{_who(names, d['seat'])} resigned."


# the log line of each event type (a type not listed is shown as its name)
DESCRIBE: Final[dict[str, Callable[[dict[str, Any], Any], str]]] = {
    "started": _describe_started,
    "deck": _describe_deck,
    "drew": _describe_drew,
    "discarded": _describe_discarded,
    "played": _describe_played,
    "recalled": _describe_recalled,
    "passed": _describe_passed,
    "scored": _describe_scored,
    "sequence_ended": _describe_sequence_ended,
    "last_hand": _describe_last_hand,
    "turn": _describe_turn,
    "ended": _describe_ended,
    "resigned": _describe_resigned,
}


def describe(e, names):
    t, d = e["type"], e["data"]
    handler = DESCRIBE.get(t)
    return handler(d, names) if handler is not None else t
