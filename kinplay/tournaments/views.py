"""The tournament pages: the list, the create form and a tournament's page (thin views)."""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404
from django.shortcuts import redirect, render
from django.utils import timezone
from django.utils.dateparse import parse_datetime
from django.utils.html import escape
from django.views.decorators.http import require_POST

from games.models import Game
from games.registry import kinds
from kinplay.tournaments import selectors, services
from kinplay.tournaments.models import Tournament

FORMAT_LABELS = {"swiss": "Swiss", "round_robin": "Round robin", "knockout": "Knockout"}
# The standings' tiebreaks (the API's keys, kinplay.tournaments.stream.standings) in players' words.
TIEBREAK_LABELS = {
    "round_reached": "Round reached", "place_there": "Place there", "buchholz": "Buchholz",
    "median_buchholz": "Median Buchholz", "sonneborn_berger": "Sonneborn-Berger", "direct": "Direct encounter",
    "wins": "Wins", "opponents_points": "Opponents' points", "average_rank": "Average place",
}


def tournament_list(request):
    # A league's divisions are shown on the league's page, not among the open events.
    rows = list(selectors.tournaments().filter(division__isnull=True).select_related("organiser")[:300])
    cards = [dict(selectors.summary(t, request.user), t=t, kind_name=_kind_name(t.kind),
                  format_label=FORMAT_LABELS.get(t.format, t.format)) for t in rows]
    sections = [
        ("open", "Open to join", [c for c in cards if c["status"] == "open"]),
        ("running", "Running", [c for c in cards if c["status"] == "running"]),
        ("finished", "Finished", [c for c in cards if c["status"] in ("finished", "cancelled")][:30]),
    ]
    return render(request, "tournaments/list.html", {"sections": sections})


def _kind_name(slug):
    k = kinds().get(slug)
    return k.name if k else slug


class TournamentForm(forms.Form):
    name = forms.CharField(max_length=80)
    kind = forms.ChoiceField(choices=[])
    format = forms.ChoiceField(choices=list(FORMAT_LABELS.items()))
    rounds = forms.IntegerField(required=False, min_value=1, max_value=100,
                                help_text="Swiss only. Empty: enough rounds for the field (log2 of the players).")
    double = forms.BooleanField(required=False, label="Double round robin (everybody twice, seats swapped)")
    best_of = forms.TypedChoiceField(choices=[(1, "1 game"), (3, "Best of 3")], coerce=int, initial=1,
                                     label="Knockout match")
    table_min = forms.IntegerField(required=False, min_value=2, label="Smallest table")
    table_max = forms.IntegerField(required=False, min_value=2, label="Largest table")
    advance = forms.IntegerField(required=False, min_value=1, help_text="Multiplayer knockout: how many of each table go through.")
    points = forms.CharField(required=False, help_text="Points by place, best first, e.g. 6, 4, 2, 0. Empty: win 1, draw ½ (duels) or one per player beaten.")
    per_move_hours = forms.IntegerField(required=False, min_value=1, initial=72, label="Hours per move")
    on_timeout = forms.ChoiceField(choices=Game.TIMEOUT_POLICIES, initial="forfeit", label="When a player's time runs out")
    round_days = forms.FloatField(required=False, min_value=0.01, initial=7, label="Days per round",
                                  help_text="Games still running then are adjudicated, so no round waits on one vanished player.")
    max_players = forms.IntegerField(required=False, min_value=2)
    starts_at = forms.DateTimeField(required=False, widget=forms.DateTimeInput(attrs={"type": "datetime-local"}),
                                    help_text="UTC. Empty: you start it yourself.")
    rated = forms.BooleanField(required=False, initial=True)

    def __init__(self, *args, **kw):
        super().__init__(*args, **kw)
        self.fields["kind"].choices = [(slug, k.name) for slug, k in kinds().items()]

    def settings(self) -> dict:
        d = self.cleaned_data
        out = {"name": d["name"], "kind": d["kind"], "format": d["format"], "double": d["double"],
               "best_of": d["best_of"], "rated": d["rated"],
               "clock": {"per_move": (d["per_move_hours"] or 72) * 3600, "on_timeout": d["on_timeout"]}}
        for key in ("rounds", "advance", "max_players", "round_days", "starts_at"):
            if d.get(key) is not None:
                out[key] = d[key]
        if d.get("table_min") or d.get("table_max"):
            lo = d.get("table_min") or d.get("table_max")
            out["table_size"] = {"min": lo, "max": d.get("table_max") or lo}
        if d.get("points"):
            try:
                out["points"] = [float(x) if "." in x else int(x) for x in d["points"].replace(";", ",").split(",") if x.strip()]
            except ValueError:
                raise services.TournamentError("points must be numbers separated by commas, e.g. 6, 4, 2, 0.") from None
        return out


@login_required
def new_tournament(request):
    form = TournamentForm(request.POST or None, initial={"starts_at": None})
    error = None
    if request.method == "POST" and form.is_valid():
        try:
            t = services.create(organiser=request.user, **form.settings())
        except services.TournamentError as exc:
            error = str(exc)
        else:
            messages.success(request, f"{t.name} is open: share this page so players can join.")
            return redirect("tournament", pk=t.pk)
    return render(request, "tournaments/new.html", {"form": form, "error": error}, status=400 if error or form.errors else 200)


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
        rounds.append(dict(r, tables=tables, warns_at=warns, warned=warns is not None and warns <= timezone.now()))
    return render(request, "tournaments/detail.html", {
        "t": t, "d": data, "kind_name": _kind_name(t.kind), "format_label": FORMAT_LABELS.get(t.format, t.format),
        "rounds": rounds, "me": player, "my_game": my_game,
        "is_organiser": me is not None and me == s["organiser"],
        "can_join": t.status == "open" and (not player or player["status"] != "active"),
        "can_withdraw": t.status in ("open", "running") and player and player["status"] == "active",
        # Level with the winner on points and every tiebreak: the seed put the winner first.
        "level_with_winner": [r["player"] for r in data["standings"][1:] if r["rank"] == 1] if data["winner"] else [],
        "tiebreak_names": [TIEBREAK_LABELS.get(k, k) for k in data["standings"][0]["tiebreaks"]] if data["standings"] else [],
        "bracket_svg": _bracket_svg(data.get("bracket")) if data.get("bracket") else None,
        "config": s["config"], "multiplayer": s["config"]["sizes"] != [2],
    })


def _act(fn, verb):
    @login_required
    @require_POST
    def view(request, pk):
        try:
            t = fn(pk, request.user)
        except Tournament.DoesNotExist:
            raise Http404 from None
        except (services.TournamentError, services.NotOrganiser) as exc:
            messages.error(request, str(exc))
        else:
            messages.success(request, verb(t) if callable(verb) else verb)
        return redirect("tournament", pk=pk)

    return view


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
