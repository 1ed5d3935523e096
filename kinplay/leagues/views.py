"""The league pages: the list and a league's page (thin views); sign up and leave."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from games.registry import kinds
from kinplay.leagues import selectors, services, stream
from kinplay.leagues.models import League

FORMAT_LABELS = {"swiss": "Swiss", "round_robin": "Round robin"}


def _kind_name(slug):
    k = kinds().get(slug)
    return k.name if k else slug


def league_list(request):
    cards = [dict(selectors.summary(league, request.user), league=league, kind_name=_kind_name(league.kind))
             for league in selectors.leagues()[:300]]
    return render(request, "leagues/list.html", {"cards": cards})


def league_page(request, pk):
    league = League.objects.select_related("organiser").filter(pk=pk).first()
    if league is None:
        raise Http404
    s = league.state
    me = request.user.pk if request.user.is_authenticated else None
    member = s["members"].get(str(me)) if me else None
    return render(request, "leagues/detail.html", {
        "league": league, "d": selectors.league_for(league, request.user), "kind_name": _kind_name(league.kind),
        "format_label": FORMAT_LABELS.get(s["config"]["format"], s["config"]["format"]), "config": s["config"],
        "history": [x for x in selectors.history(league) if x["status"] == "finished"],
        "member": member, "in_league": me is not None and stream.in_league(s, me),
        "path": selectors.path_of(league, me) if me else [],
    })


def _act(fn, done):
    @login_required
    @require_POST
    def view(request, pk):
        try:
            fn(pk, request.user)
        except League.DoesNotExist:
            raise Http404 from None
        except services.LeagueError as exc:
            messages.error(request, str(exc))
        else:
            messages.success(request, done)
        return redirect("league", pk=pk)

    return view


signup = _act(services.sign_up, "You are signed up: you play from the next season, and get an email when it starts.")
leave = _act(services.leave, "You have left the league.")
