"""The ladder pages: the list, the create form, a ladder's ranking (with its "Challenge" buttons)
and its history (thin views); join, leave and challenge."""

from __future__ import annotations

from functools import partial

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from games.registry import kind_name
from kinplay.ladders import selectors, services
from kinplay.ladders.forms import LADDER
from kinplay.ladders.models import Ladder
from kinplay.web import organise
from kinplay.web.actions import page_action

HISTORY_PAGE = 500


def _ladder(pk) -> Ladder:
    ladder = Ladder.objects.select_related("organiser").filter(pk=pk).first()
    if ladder is None:
        raise Http404
    return ladder


def ladder_list(request):
    cards = [dict(selectors.summary(ladder, request.user), ladder=ladder, kind_name=kind_name(ladder.kind))
             for ladder in selectors.ladders()[:300]]
    return render(request, "ladders/list.html", {"cards": cards})


@login_required
def new_ladder(request):
    def created(ladder):
        messages.success(request, f"{ladder.name} is open: share this page so players can join.")
        return redirect("ladder", pk=ladder.pk)

    return organise.page(request, LADDER, services.create, "ladders/new.html", created)


def ladder_page(request, pk):
    ladder = _ladder(pk)
    return render(request, "ladders/detail.html", {
        "ladder": ladder, "d": selectors.ladder_for(ladder, request.user), "kind_name": kind_name(ladder.kind),
        "config": ladder.state["config"],
    })


def history_page(request, pk):
    ladder = _ladder(pk)
    return render(request, "ladders/history.html", {"ladder": ladder, "history": selectors.history(ladder, HISTORY_PAGE)})


_act = partial(page_action, missing=Ladder.DoesNotExist, refused=services.LadderError, back="ladder")


join = _act(services.join, "You are on the ladder, at the bottom: challenge the players above you.")
leave = _act(services.leave, "You have left the ladder.")


@login_required
@require_POST
def challenge(request, pk):
    player = request.POST.get("player", "")
    try:
        services.challenge(pk, request.user, player)
    except Ladder.DoesNotExist:
        raise Http404 from None
    except services.games.BadRequest as exc:
        messages.error(request, str(exc))
    else:
        messages.success(request, f"You challenged {player}: they have been invited to the game.")
    return redirect("ladder", pk=pk)
