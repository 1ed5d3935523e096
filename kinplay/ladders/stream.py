"""A ladder's history folded into its state: the ranking, the members, the open challenges and
when each pair last met.

Pure (no Django), as kinplay.tournaments.stream: the live projection and ``rebuild`` use the same
fold, so a replay of the events gives the same ranking. Players are user ids (JSON keys: their
text). Events are facts: a result says whether the challenger took the loser's place
(``result``, decided when it is written), and every challenge event names both players, so the
history reads each event alone. The state stays small whatever the ladder's age: closed
challenges leave it, and a pair's last meeting is kept only while it still bars a rematch.

Events: created, joined, left, challenged, accepted, declined, lapsed, cancelled, result.
"""

from __future__ import annotations

from datetime import datetime, timedelta

OPEN = ("invited", "accepted")  # a challenge not yet decided: it counts against the limits
CLOSING = ("declined", "lapsed", "cancelled", "result")


def fold(events) -> dict:
    state: dict = {}
    for e in events:
        state = evolve(state, e["type"], e["data"])
    return state


def evolve(state: dict, type_: str, d: dict) -> dict:
    if type_ == "created":
        return {"name": d["name"], "kind": d["kind"], "options": d["options"], "config": d["config"],
                "organiser": d["organiser"], "ranking": [], "players": {}, "challenges": {}, "met": {}}
    s = state
    if type_ == "joined":
        s["players"][str(d["player"])] = {"id": d["player"], "name": d["name"]}
        s["ranking"].append(d["player"])  # a newcomer starts at the bottom
    elif type_ == "left":
        s["ranking"].remove(d["player"])  # everyone below moves up one
    elif type_ == "challenged":
        s["challenges"][str(d["game"])] = {k: d[k] for k in ("game", "challenger", "challenged", "at", "answer_by", "places")}
        s["challenges"][str(d["game"])]["status"] = "invited"
        _met(s, d["challenger"], d["challenged"], d["at"])
    elif type_ == "accepted":
        s["challenges"][str(d["game"])]["status"] = "accepted"
    elif type_ in CLOSING:
        s["challenges"].pop(str(d["game"]))
        if type_ == "result" and d["moved"]:
            s["ranking"].remove(d["challenger"])
            s["ranking"].insert(s["ranking"].index(d["challenged"]), d["challenger"])
    return s


def _pair(a: int, b: int) -> str:
    return f"{min(a, b)}-{max(a, b)}"


def _met(s, a, b, at: str) -> None:
    """The pair's last challenge is now; meetings that no longer bar a rematch are dropped."""
    now, days = datetime.fromisoformat(at), timedelta(days=s["config"]["repeat_days"])
    s["met"] = {k: v for k, v in s["met"].items() if datetime.fromisoformat(v) + days > now}
    s["met"][_pair(a, b)] = at


# ---------------------------------------------------------------- deciding


def result(s, game: int, winner: int | None) -> dict:
    """The ``result`` event of a challenge's game: the challenger who won takes the loser's place
    (everyone between moves down one), unless either has left the ladder or the challenger
    already stands above; any other result (the challenged player won, a draw) moves nobody."""
    c = s["challenges"][str(game)]
    a, b = c["challenger"], c["challenged"]
    moved = winner == a and a in s["ranking"] and b in s["ranking"] and s["ranking"].index(a) > s["ranking"].index(b)
    return {"game": game, "challenger": a, "challenged": b, "winner": winner, "moved": moved}


def refusal(s, challenger: int, challenged: int, now: datetime) -> str | None:
    """Why ``challenger`` may not challenge ``challenged`` now (None: they may). The rules, in
    the order a player meets them: both on the ladder; up to ``reach`` places above; at most
    ``max_out`` open challenges made and ``max_in`` received; not the same pair again within
    ``repeat_days`` of their last challenge (either way round)."""
    cfg = s["config"]
    mine, theirs = place(s, challenger), place(s, challenged)
    if mine is None:
        return "Join the ladder first."
    if theirs is None:
        return "That player is not on this ladder."
    if challenger == challenged:
        return "You cannot challenge yourself."
    if theirs >= mine:
        return "You can only challenge players above you."
    if mine - theirs > cfg["reach"]:
        return f"You can challenge players up to {cfg['reach']} place{'s' if cfg['reach'] != 1 else ''} above you."
    out = sum(1 for c in open_challenges(s, challenger) if c["challenger"] == challenger)
    if out >= cfg["max_out"]:
        return (f"You already have {out} open challenge: finish it first." if cfg["max_out"] == 1
                else f"You already have {out} open challenges (at most {cfg['max_out']}).")
    incoming = sum(1 for c in open_challenges(s, challenged) if c["challenged"] == challenged)
    if incoming >= cfg["max_in"]:
        return f"{s['players'][str(challenged)]['name']} already has an open challenge to answer."
    last = s["met"].get(_pair(challenger, challenged))
    if last is not None:
        again = datetime.fromisoformat(last) + timedelta(days=cfg["repeat_days"])
        if now < again:
            return f"You met this player in a challenge recently: you can challenge them again from {again:%Y-%m-%d %H:%M} UTC."
    return None


# ---------------------------------------------------------------- reading the state


def place(s, player) -> int | None:
    """1 is the top; None for a player not on the ladder."""
    return s["ranking"].index(player) + 1 if player in s["ranking"] else None


def open_challenges(s, player=None) -> list[dict]:
    return [c for c in s["challenges"].values() if player is None or player in (c["challenger"], c["challenged"])]
