"""Reads of ladders: the list, the ranking with what the caller may do, the open challenges and
the history (the stream itself, newest first); the API's <ladder>."""

from __future__ import annotations

from django.utils import timezone

from kinplay.ladders import stream
from kinplay.ladders.models import Ladder, LadderEvent

HISTORY = 50  # events on the ladder's page and in <ladder>; the history page shows more


def ladders():
    return Ladder.objects.select_related("organiser").order_by("-created_at")


def _me(user) -> int | None:
    return user.pk if user is not None and user.is_authenticated else None


def summary(ladder: Ladder, user) -> dict:
    s = ladder.state
    return {"id": ladder.pk, "name": ladder.name, "kind": ladder.kind, "players": len(s["ranking"]),
            "open_challenges": len(stream.open_challenges(s)), "place": stream.place(s, _me(user))}


def ranking(ladder: Ladder, user) -> list[dict]:
    """Every player, top first, with their open challenges and whether the caller may challenge
    them now (``challenge``: true, or the reason they may not, for players within reach)."""
    s = ladder.state
    me, now = _me(user), timezone.now()
    mine = stream.place(s, me)
    busy: dict[int, dict] = {}
    for c in stream.open_challenges(s):
        busy.setdefault(c["challenger"], c)
        busy.setdefault(c["challenged"], c)
    names = _names(s)
    out = []
    for i, p in enumerate(s["ranking"], start=1):
        row: dict = {"place": i, "player": names[p], "challenge": False, "refused": None, "in_challenge": None}
        if me is not None and mine is not None and mine - s["config"]["reach"] <= i < mine:
            why = stream.refusal(s, me, p, now)
            row["challenge"], row["refused"] = why is None, why
        playing = busy.get(p)
        if playing:
            against = playing["challenged"] if playing["challenger"] == p else playing["challenger"]
            row["in_challenge"] = {"game": playing["game"], "against": names[against], "status": playing["status"]}
        out.append(row)
    return out


def _names(s) -> dict[int, str]:
    return {int(k): m["name"] for k, m in s["players"].items()}


def challenges(ladder: Ladder) -> list[dict]:
    """The open challenges, oldest first."""
    names = _names(ladder.state)
    return [{"game": c["game"], "challenger": names[c["challenger"]], "challenged": names[c["challenged"]],
             "status": c["status"], "at": c["at"], "answer_by": c["answer_by"], "places": c["places"]}
            for c in sorted(stream.open_challenges(ladder.state), key=lambda c: c["at"])]


def history(ladder: Ladder, limit: int = HISTORY) -> list[dict]:
    """The stream, newest first, each event in words (``text``) and as data."""
    names = _names(ladder.state)
    rows = LadderEvent.objects.filter(ladder=ladder).exclude(type="created").order_by("-seq")[:limit]
    return [{"seq": e.seq, "at": e.at.isoformat(), "event": e.type, "game": e.data.get("game"),
             "text": _text(e.type, e.data, names)} for e in rows]


def _text(type_, d, names) -> str:
    if type_ == "joined":
        return f"{names[d['player']]} joined at the bottom"
    if type_ == "left":
        return f"{names[d['player']]} left the ladder; the players below moved up one"
    a, b = names[d["challenger"]], names[d["challenged"]]
    if type_ == "challenged":
        return f"{a} (number {d['places'][0]}) challenged {b} (number {d['places'][1]})"
    if type_ == "accepted":
        return f"{b} accepted {a}'s challenge"
    if type_ == "declined":
        return f"{b} declined {a}'s challenge: nothing moves"
    if type_ == "lapsed":
        return f"{b} did not answer {a}'s challenge in time: declined, nothing moves"
    if type_ == "cancelled":
        return f"{a} called off the challenge to {b}"
    if d["winner"] is None:
        return f"{a} and {b} drew: nothing moves"
    if d["winner"] == d["challenger"]:
        return f"{a} beat {b} and took their place" if d["moved"] else f"{a} beat {b}; nobody moved (one of them had left)"
    return f"{b} beat {a} and kept their place"


def ladder_for(ladder: Ladder, user) -> dict:
    """<ladder>: its settings, the ranking as ``user`` sees it, the open challenges and the latest history."""
    s = ladder.state
    return {**summary(ladder, user), "options": s["options"], "settings": s["config"],
            "organiser": ladder.organiser.username if ladder.organiser else None,
            "ranking": ranking(ladder, user), "challenges": challenges(ladder), "history": history(ladder)}
