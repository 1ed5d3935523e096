"""The tournament pages: the list, the create form and a tournament's page (thin views)."""

from __future__ import annotations

from functools import partial

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404
from django.shortcuts import redirect, render
from django.utils import timezone
from django.utils.dateparse import parse_datetime
from django.utils.html import escape

from games.models import Game
from games.registry import kind_name
from kinplay.tournaments import selectors, services
from kinplay.tournaments.forms import FORMAT_LABELS, TOURNAMENT
from kinplay.tournaments.models import Tournament
from kinplay.web import organise
from kinplay.web.actions import page_action

# The standings' tiebreaks (the API's keys, kinplay.tournaments.stream.standings) in players' words.
TIEBREAK_LABELS = {
    "round_reached": "Round reached", "place_there": "Place there", "buchholz": "Buchholz",
    "median_buchholz": "Median Buchholz", "sonneborn_berger": "Sonneborn-Berger", "direct": "Direct encounter",
    "wins": "Wins", "opponents_points": "Opponents' points", "average_rank": "Average place",
    "lot": "Lot",
}


def tournament_list(request):
    # A league's divisions are shown on the league's page, not among the open events.
    rows = list(selectors.tournaments().filter(division__isnull=True).select_related("organiser")[:300])
    cards = [dict(selectors.summary(t, request.user), t=t, kind_name=kind_name(t.kind),
                  format_label=FORMAT_LABELS.get(t.format, t.format)) for t in rows]
    sections = [
        ("open", "Open to join", [c for c in cards if c["status"] == "open"]),
        ("running", "Running", [c for c in cards if c["status"] == "running"]),
        ("finished", "Finished", [c for c in cards if c["status"] in ("finished", "cancelled")][:30]),
    ]
    return render(request, "tournaments/list.html", {"sections": sections})


@login_required
def new_tournament(request):
    def created(t):
        messages.success(request, f"{t.name} is open: share this page so players can join.")
        return redirect("tournament", pk=t.pk)

    return organise.page(request, TOURNAMENT, services.create, "tournaments/new.html", created)


def tournament_page(request, pk):
    t = Tournament.objects.select_related("organiser").filter(pk=pk).first()
    if t is None:
        raise Http404
    data = selectors.tournament_for(t, request.user)
    s = t.state
    me = request.user.pk if request.user.is_authenticated else None
    player = s["players"].get(str(me)) if me else None
    my_game = selectors.next_game_of(s, request.user)
    games = {g for r in s["rounds"] for tb in r["tables"] for g in (x["game"] for x in tb["games"])}
    status = dict(Game.objects.filter(pk__in=games).values_list("pk", "status")) if games else {}
    rounds = []
    for r, raw in zip(reversed(data["rounds"]), reversed(s["rounds"])):
        tables = []
        for tb, rawt in zip(r["tables"], raw["tables"]):
            tables.append(dict(tb, mine=me in rawt["players"], live=tb["game"] is not None and status.get(tb["game"]) == Game.ACTIVE))
        # The running round's reminder, still to come or sent (selectors._warns_at).
        warns = parse_datetime(r["warns_at"]) if r["warns_at"] else None
        repaired = [c for c in data["pairing_corrections"] if c["round"] == r["number"]]
        rounds.append(dict(r, tables=tables, warns_at=warns, warned=warns is not None and warns <= timezone.now(),
                           pairing_corrections=repaired))
    return render(request, "tournaments/detail.html", {
        "t": t, "d": data, "kind_name": kind_name(t.kind), "format_label": FORMAT_LABELS.get(t.format, t.format),
        "rounds": rounds, "me": player, "my_game": my_game,
        "is_organiser": me is not None and me == s["organiser"],
        "can_join": (t.status == "open" or (t.status == "running" and s["config"].get("late_join")))
                    and (not player or player["status"] != "active"),
        "can_withdraw": t.status in ("open", "running") and player and player["status"] == "active",
        "tiebreak_names": [TIEBREAK_LABELS.get(k, k) for k in data["standings"][0]["tiebreaks"]] if data["standings"] else [],
        "bracket_svg": _bracket_svg(data.get("bracket")) if data.get("bracket") else None,
        "config": s["config"], "multiplayer": s["config"]["sizes"] != [2],
    })


_act = partial(page_action, missing=Tournament.DoesNotExist, refused=(services.TournamentError, services.NotOrganiser), back="tournament")


join = _act(services.join, "You have joined: your games start when the tournament does; no invitation to accept.")
withdraw = _act(services.withdraw, lambda t: "You have left: you can join again while registration is open."
                if t.status == Tournament.OPEN else "You have withdrawn: you will not be paired again.")
start = _act(services.start, "The tournament has started: round 1 is paired and every player is emailed.")
cancel = _act(services.cancel, "The tournament is cancelled; the players are emailed.")


def _bracket_svg(bracket):
    """The knockout bracket as SVG boxes and connectors (server-drawn, no script)."""
    w, h, gap, pad = 150, 40, 34, 8
    first = max(len(bracket[0]), 1)
    height = first * (h + 16) + 16
    width = len(bracket) * (w + gap) + pad * 2
    parts = [f'<svg class="bracket-svg" viewBox="0 0 {width} {height}" width="{width}" height="{height}" role="img" aria-label="Knockout bracket">']
    centres = []
    for i, rnd in enumerate(bracket):
        slot = height / max(len(rnd), 1)
        x = pad + i * (w + gap)
        row = []
        for j, m in enumerate(rnd):
            y = slot * j + (slot - h) / 2
            row.append(y + h / 2)
            names = m["players"] + ([] if len(m["players"]) > 1 else ["bye"])
            parts.append(f'<rect x="{x}" y="{y:.1f}" width="{w}" height="{h}" rx="6" class="bk-box"/>')
            for k, name in enumerate(names[:2]):
                cls = "bk-through" if name in m["through"] else ("bk-bye" if name == "bye" else "bk-name")
                parts.append(f'<text x="{x + 8}" y="{y + 16 + k * 17:.1f}" class="{cls}">{escape(name)[:18]}</text>')
            if i > 0 and centres:
                for prev in centres[-1][2 * j:2 * j + 2]:
                    parts.append(f'<path d="M{x - gap} {prev:.1f} H{x - gap / 2} V{y + h / 2:.1f} H{x}" class="bk-line"/>')
        centres.append(row)
    parts.append("</svg>")
    return "".join(parts)
