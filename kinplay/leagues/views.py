"""The league pages: the list, the create form and a league's page (thin views); sign up and leave."""

from __future__ import annotations

from functools import partial

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404
from django.shortcuts import redirect, render
from django.utils.dateparse import parse_datetime

from games.registry import kind_name
from kinplay.leagues import selectors, services, stream
from kinplay.leagues.forms import LEAGUE
from kinplay.leagues.models import League
from kinplay.web import organise
from kinplay.web.actions import page_action

FORMAT_LABELS = {"swiss": "Swiss", "round_robin": "Round robin"}


def league_list(request):
    cards = [dict(selectors.summary(league, request.user), league=league, kind_name=kind_name(league.kind))
             for league in selectors.leagues()[:300]]
    return render(request, "leagues/list.html", {"cards": cards})


@login_required
def new_league(request):
    def created(league):
        messages.success(request, f"{league.name} is open for sign-ups: share this page so players can sign up.")
        return redirect("league", pk=league.pk)

    return organise.page(request, LEAGUE, services.create, "leagues/new.html", created)


def league_page(request, pk):
    league = League.objects.select_related("organiser").filter(pk=pk).first()
    if league is None:
        raise Http404
    s = league.state
    me = request.user.pk if request.user.is_authenticated else None
    member = s["members"].get(str(me)) if me else None
    season = stream.current(s)
    return render(request, "leagues/detail.html", {
        "season_ends": parse_datetime(season["ends_at"]) if season and season["status"] == "running" else None,
        "league": league, "d": selectors.league_for(league, request.user), "kind_name": kind_name(league.kind),
        "format_label": FORMAT_LABELS.get(s["config"]["format"], s["config"]["format"]), "config": s["config"],
        "history": [x for x in selectors.history(league) if x["status"] == "finished"],
        "member": member, "in_league": me is not None and stream.in_league(s, me),
        "path": selectors.path_of(league, me) if me else [],
    })


_act = partial(page_action, missing=League.DoesNotExist, refused=services.LeagueError, back="league")


signup = _act(services.sign_up, "You are signed up: you play from the next season, and get an email when it starts.")
leave = _act(services.leave, "You have left the league.")
