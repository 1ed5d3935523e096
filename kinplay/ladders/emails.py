"""The ladder's words in email: a challenge's invitation says what the challenge is (the game's own
invitation, kinplay.notifications.consent, with ``invitation_origin``: one email), and a
challenge's result goes to both players (who won and their place now) through the outbox, about
one event of the ladder's stream (``detail``: "<ladder>|<seq>"; templates/mail/ladder.*); the
"email me" switch of the settings page is respected."""

from __future__ import annotations

from django.conf import settings
from django.core.mail import EmailMultiAlternatives

from games.registry import kinds
from kinplay.ladders import stream
from kinplay.ladders.models import Ladder, LadderEvent
from kinplay.notifications.mail import two_part
from kinplay.notifications.models import Outbox
from kinplay.notifications.services import queue

RESULT = "ladder_result"
KINDS = (RESULT,)


def invitation_origin(game, user) -> dict | None:
    """What the invitation to ``game`` tells ``user`` when the game is a ladder's challenge to them."""
    event = LadderEvent.objects.filter(ladder__games__game_id=game.pk, type="challenged", data__game=game.pk).select_related("ladder").first()
    # the event, not the state: the invitation may be composed after the challenge was answered
    if event is None or event.data["challenged"] != user.pk:
        return None
    c, ladder = event.data, event.ladder
    challenger = ladder.state["players"][str(c["challenger"])]["name"]
    mine, theirs = c["places"][1], c["places"][0]
    url = f"{settings.SITE_URL.rstrip('/')}/ladders/{ladder.pk}/"
    return {
        "subject": f"{ladder.name}: {challenger} challenges you (place {theirs} against your place {mine})",
        "text": [f"It is a challenge on the ladder {ladder.name} ({url}): {challenger} (number {theirs}) against you (number {mine}).",
                 f"If {challenger} wins, they take your place and you move down one; if you win or draw, nothing moves. "
                 "Declining costs no place."],
        "answer_by": c["answer_by"],
    }


def result(ladder, event: dict, users):
    """To both players (``users``: the game's, already read), about the result event just appended."""
    queue([Outbox(kind=RESULT, game_id=event["game"], user=u, version=ladder.version, detail=f"{ladder.pk}|{ladder.version}")
           for u in users], switched=KINDS)


def compose(row: Outbox) -> EmailMultiAlternatives:
    lid, _, seq = row.detail.partition("|")
    ladder = Ladder.objects.get(pk=int(lid))
    d = LadderEvent.objects.get(ladder=ladder, seq=int(seq)).data
    s = ladder.state
    name = lambda p: s["players"][str(p)]["name"]  # noqa: E731
    site = settings.SITE_URL.rstrip("/")
    me = row.user_id
    other = d["challenged"] if me == d["challenger"] else d["challenger"]
    context = {
        "user": row.user, "ladder": ladder, "kind": row.kind, "kind_name": kinds()[ladder.kind].name if ladder.kind in kinds() else ladder.kind,
        "challenger": name(d["challenger"]), "opponent": name(other),
        "place": stream.place(s, me), "won": d.get("winner") == me, "draw": d.get("winner") is None, "moved": d.get("moved"),
        "url": f"{site}/ladders/{ladder.pk}/", "game_url": f"{site}/games/{d['game']}/", "settings_url": f"{site}/settings/",
    }
    said = "a draw" if context["draw"] else f"you won against {context['opponent']}" if context["won"] \
        else f"you lost to {context['opponent']}"
    subject = f"{ladder.name}: {said} — you are now {_place_text(context['place'])}"
    return two_part(subject, "ladder", context, row.user.email)


def _place_text(place) -> str:
    return f"number {place}" if place else "off the ladder"
