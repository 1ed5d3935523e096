"""A tiny card game that follows the rules contract, so the web pages can be tested
without depending on one real game's details (the real kinds are covered too).

Every seat is dealt secret cards; in turn, each plays one card and scores its value.
When every hand is empty the highest score wins. Hands are hidden information.
"""

from games.engine import IllegalAction, event

SLUG, NAME = "tiny", "Tiny"
MIN_PLAYERS, MAX_PLAYERS = 2, 3
OPTIONS_SCHEMA = {
    "type": "object",
    "additionalProperties": False,
    "properties": {
        "cards": {"type": "integer", "minimum": 1, "maximum": 5, "default": 2,
                  "title": "Cards per player", "description": "How many cards each player is dealt."},
        "double_last": {"type": "boolean", "default": False, "title": "Double last card",
                        "description": "The last card played scores twice."},
        "pace": {"type": "string", "enum": ["calm", "wild"], "default": "calm", "title": "Pace"},
        "colours": {"type": "array", "items": {"type": "string", "enum": ["red", "blue", "green"]},
                    "minItems": 2, "maxItems": 2, "default": ["red", "blue"], "title": "Colours"},
        "limit": {"type": ["integer", "null"], "minimum": 1, "default": None, "title": "Score limit"},
    },
}


def check_players(n, options):
    if options.get("pace") == "wild" and n == 3:
        raise IllegalAction("Wild pace is for 2 players only.")


def setup(n, options, rng):
    hands = [[rng.randint(1, 9) for _ in range(options.get("cards", 2))] for _ in range(n)]
    return [event("dealt", hands=hands)]


def evolve(state, e):
    d = e["data"]
    if e["type"] == "dealt":
        n = len(d["hands"])
        state.update(hands=d["hands"], scores=[0] * n, turn=0, over=False, resigned=[])
    elif e["type"] == "played":
        s = d["seat"]
        state["hands"][s].remove(d["card"])
        state["scores"][s] += d["card"]
        state["turn"] = _next(state, s)
    elif e["type"] == "resigned":
        state["resigned"].append(d["seat"])
        if state["turn"] == d["seat"]:
            state["turn"] = _next(state, d["seat"])
    if all(not h for i, h in enumerate(state["hands"]) if i not in state["resigned"]) or \
            len(state["resigned"]) >= len(state["hands"]) - 1:
        state["over"] = True
    return state


def _next(state, s):
    n = len(state["hands"])
    for k in range(1, n + 1):
        t = (s + k) % n
        if t not in state["resigned"] and state["hands"][t]:
            return t
    return s


def decide(state, seat, action, rng):
    if action.get("type") == "resign":
        return [event("resigned", seat=seat)]
    if action.get("type") != "play":
        raise IllegalAction("You can only play a card.")
    if seat != state["turn"]:
        raise IllegalAction("It is not your turn.")
    if action.get("card") not in state["hands"][seat]:
        raise IllegalAction("You do not hold that card.")
    return [event("played", seat=seat, card=action["card"])]


def view(state, seat):
    return {
        "scores": state["scores"], "turn": state["turn"],
        "hand": state["hands"][seat] if seat is not None else None,
        "hand_sizes": [len(h) for h in state["hands"]],
    }


def redact(e, seat):
    if e["type"] == "dealt":
        return event("dealt", hands=[h if i == seat else None for i, h in enumerate(e["data"]["hands"])])
    return e


def legal_actions(state, seat):
    if state.get("over") or seat != state["turn"] or seat in state["resigned"]:
        return []
    return [{"notation": f"play {c}", "label": f"Play the {c}", "action": {"type": "play", "card": c}}
            for c in sorted(set(state["hands"][seat]))]


def to_act(state):
    if state.get("over"):
        return {}
    return {state["turn"]: {"kind": "turn", "default": None, "seconds": None}}


def timers(state):
    return []


def result(state):
    if not state.get("over"):
        return None
    scores = [-1 if i in state["resigned"] else s for i, s in enumerate(state["scores"])]
    best = max(scores)
    order = sorted(set(scores), reverse=True)
    return {"ranks": [order.index(s) + 1 for s in scores], "scores": state["scores"],
            "winners": [i for i, s in enumerate(scores) if s == best],
            "summary": "Highest score wins."}


def describe(e, names):
    d = e["data"]
    if e["type"] == "dealt":
        return "The cards were dealt."
    if e["type"] == "played":
        return f"{names[d['seat']]} played a {d['card']}."
    if e["type"] == "resigned":
        return f"{names[d['seat']]} resigned."
    return ""


# ------------------------------------------------------------------ bots and rendering

def random_bot(state, seat, rng):
    legal = legal_actions(state, seat)
    return rng.choice(legal)["action"] if legal else {"type": "resign"}


heuristic_bot = random_bot


def render(view, seat, names):
    cards = "".join(
        f'<g data-notation="play {c}" class="tiny-card"><rect x="{10 + i * 50}" y="10" width="40" height="60" rx="6"/>'
        f'<text x="{30 + i * 50}" y="48">{c}</text></g>' for i, c in enumerate(view["hand"] or []))
    scores = " · ".join(f"{n}: {s}" for n, s in zip(names, view["scores"]))
    return f'<div class="tiny"><p>{scores}</p><svg viewBox="0 0 300 80" role="img">{cards}</svg></div>'


def render_text(view, seat, names):
    scores = ", ".join(f"{n}: {s}" for n, s in zip(names, view["scores"]))
    return f"Scores: {scores}. Your hand: {', '.join(map(str, view['hand'] or [])) or 'no cards'}"


class TinyKind:
    """Looks like games.registry.Kind to the code that uses it."""

    slug, name = SLUG, NAME

    def __init__(self):
        import sys

        self.rules = sys.modules[__name__]
        self.bots = self.rules
        self.render = render
        self.render_text = render_text

    def bot(self, name):
        return {"random": random_bot, "heuristic": heuristic_bot}[name]
