"""Tournament emails through the outbox: a round started (one per player: your game and
opponents, or your bye), the round ends soon (to players whose game still runs), the final
standings, a cancellation. Their own templates
(templates/mail/tournament.*); the "email me" switch of the settings page is respected."""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.mail import EmailMultiAlternatives

from games.registry import kinds
from kinplay.notifications.mail import two_part
from kinplay.notifications.models import Outbox
from kinplay.notifications.services import queue
from kinplay.tournaments import selectors, stream
from kinplay.tournaments.models import Tournament
from kinplay.tournaments.selectors import load
from kinplay.tournaments.stream import _num, bye_points

ROUND_STARTED, FINISHED, CANCELLED, TIMED_OUT = "round_started", "tourney_over", "tourney_cancel", "tourney_out"
ROUND_ENDING, PAIRING_CORRECTED = "round_ending", "tourney_repair"
KINDS = (ROUND_STARTED, ROUND_ENDING, FINISHED, CANCELLED, TIMED_OUT, PAIRING_CORRECTED)


def _users(ids):
    return get_user_model().objects.in_bulk(list(ids))


def round_started(t, number):
    rnd = t.state["rounds"][number - 1]
    seats = {}
    for table in rnd["tables"]:
        game = table["games"][0]["game"] if table["games"] else None
        for p in table["players"]:
            seats[p] = game
    users = _users(seats)
    queue([Outbox(kind=ROUND_STARTED, game_id=seats[p], user=users[p], version=t.version, detail=f"{t.pk}|{number}")
           for p in seats if p in users], switched=KINDS)


def pairing_corrected(t, number, players):
    """The organiser changed the pairing of round ``number``: each player of the tables it
    changed gets their new game (or bye) and the reason."""
    rnd = t.state["rounds"][number - 1]
    seats = {p: (tb["games"][0]["game"] if tb["games"] else None) for tb in rnd["tables"] for p in tb["players"] if p in players}
    users = _users(seats)
    queue([Outbox(kind=PAIRING_CORRECTED, game_id=seats[p], user=users[p], version=t.version, detail=f"{t.pk}|{number}")
           for p in seats if p in users], switched=KINDS)


def round_ending(t, number, game_ids) -> int:
    """To each player still in the tournament with a game of ``game_ids`` (the round's games
    still running), one email naming them; returns how many were written."""
    s = t.state
    mine: dict[int, list[int]] = {}
    for table in s["rounds"][number - 1]["tables"]:
        for g in table["games"]:
            if g["game"] in game_ids:
                for p in g["players"]:
                    if s["players"][str(p)]["status"] == "active":
                        mine.setdefault(p, []).append(g["game"])
    users = _users(mine)
    rows = [Outbox(kind=ROUND_ENDING, game_id=gids[0], user=users[p], version=t.version,
                   detail=f"{t.pk}|{number}|{','.join(map(str, gids))}") for p, gids in mine.items() if p in users]
    queue(rows, switched=KINDS)
    return len(rows)


def finished(t):
    users = _users(stream.field(t.state))
    queue([Outbox(kind=FINISHED, user=u, version=t.version, detail=str(t.pk)) for u in users.values()], switched=KINDS)


def cancelled(t, friendly=()):
    """Everyone who joined; a player whose game goes on as a friendly game (``friendly``: game
    ids) is told so in the same email, with that game."""
    playing = {}
    for table in t.state["rounds"][-1]["tables"] if t.state["rounds"] else []:
        for g in table["games"]:
            if g["game"] in friendly:
                playing.update(dict.fromkeys(g["players"], g["game"]))
    users = _users(stream.field(t.state))
    queue([Outbox(kind=CANCELLED, user=u, game_id=playing.get(pk), version=t.version, detail=str(t.pk))
           for pk, u in users.items()], switched=KINDS)


def timed_out(t, players):
    """Players the tournament has just put out for running out of time too often: they are not
    paired again, and someone who vanished and comes back should find why."""
    users = _users(players)
    queue([Outbox(kind=TIMED_OUT, user=u, version=t.version, detail=str(t.pk)) for u in users.values()], switched=KINDS)


def compose(row: Outbox) -> EmailMultiAlternatives:
    tid, _, number = row.detail.partition("|")
    number, _, game_ids = number.partition("|")
    t = Tournament.objects.get(pk=int(tid))
    s = load(t)
    site = settings.SITE_URL.rstrip("/")
    name = lambda p: s["players"][str(p)]["name"]  # noqa: E731
    context = {"user": row.user, "t": t, "kind": row.kind, "kind_name": kinds()[t.kind].name if t.kind in kinds() else t.kind,
               "url": f"{site}/tournaments/{t.pk}/", "settings_url": f"{site}/settings/", "reason": s.get("reason", "")}
    if row.kind in (ROUND_STARTED, PAIRING_CORRECTED):
        rnd = s["rounds"][int(number) - 1]
        table = next(tb for tb in rnd["tables"] if row.user_id in tb["players"])
        context.update({
            "number": rnd["number"], "bye": table["bye"], "ends_at": rnd["ends_at"],
            "opponents": ", ".join(name(p) for p in table["players"] if p != row.user_id),
            "game_url": f"{site}/games/{row.game_id}/" if row.game_id else None,
            # What a bye gives (kinplay.tournaments.stream.bye_points): a win only in duels.
            "bye_worth": ("you go through to the next round" if s["format"] == "knockout"
                          else "it counts as a win" if s["config"]["sizes"] == [2]
                          else f"it is worth {_num(bye_points(s))} points, a table's average place"),
        })
        subject = (f"{t.name}: round {number} started — your game against {context['opponents']}" if not table["bye"]
                   else f"{t.name}: round {number} started — you have a bye")
        if row.kind == PAIRING_CORRECTED:
            mine = [c for c in s.get("pairing_corrections", []) if c["round"] == rnd["number"]]
            context["reason"] = mine[-1]["reason"] if mine else ""
            subject = (f"{t.name}: round {number} re-paired — your game is now against {context['opponents']}"
                       if not table["bye"] else f"{t.name}: round {number} re-paired — you now have a bye")
    elif row.kind == ROUND_ENDING:
        rnd = s["rounds"][int(number) - 1]
        wanted = [int(g) for g in game_ids.split(",")]
        games = [g for tb in rnd["tables"] for g in tb["games"] if g["game"] in wanted]
        context.update({"number": rnd["number"], "ends_at": rnd["ends_at"], "games": [
            {"url": f"{site}/games/{g['game']}/", "opponents": ", ".join(name(p) for p in g["players"] if p != row.user_id)}
            for g in games]})
        still = "your game is" if len(games) == 1 else "your games are"
        subject = f"{t.name}: round {number} ends soon — {still} still running"  # when: in the body, in UTC
    elif row.kind == TIMED_OUT:
        context.update({"timeouts": s["players"][str(row.user_id)]["timeouts"], "limit": s["config"]["max_timeouts"]})
        subject = f"{t.name}: you are out, your time ran out too often"
    elif row.kind == FINISHED:
        context["standings"] = [dict(r, out=selectors.out_text(r["why_out"])) for r in selectors.standings(s)[:20]]
        subject = f"{t.name} is over: the final standings"
    else:
        if row.game_id:
            game = next(g for tb in s["rounds"][-1]["tables"] for g in tb["games"] if g["game"] == row.game_id)
            context.update({"game_url": f"{site}/games/{row.game_id}/",
                            "opponents": ", ".join(name(p) for p in game["players"] if p != row.user_id)})
        subject = f"{t.name} was cancelled"
    return two_part(subject, "tournament", context, row.user.email)
