"""The organiser's form of a ladder: the API's CreateLadder, in players' words
(kinplay.web.organise builds and checks it)."""

from django.conf import settings

from api.ladders import CreateLadder
from kinplay.tournaments.forms import TOURNAMENT
from kinplay.web.organise import Spec

LADDER = Spec(
    CreateLadder,
    labels={
        "name": TOURNAMENT.labels["name"], "kind": TOURNAMENT.labels["kind"], "rated": "Rated (the games change ratings)",
        "reach": "Players may challenge up to this many places above",
        "max_out": "Open challenges a player may have made", "max_in": "Open challenges a player may have received",
        "repeat_days": "Days before the same two players meet again", "answer_days": "Days to answer a challenge",
        "clock.per_move": TOURNAMENT.labels["clock.per_move"], "clock.on_timeout": TOURNAMENT.labels["clock.on_timeout"],
    },
    help={
        "answer_days": "An invitation not accepted by then lapses and counts as declined: nothing moves.",
        "repeat_days": "Counted from their last challenge, whoever made it and however it ended.",
    },
    choices={"clock.on_timeout": TOURNAMENT.choices["clock.on_timeout"]},
    initial={"clock.per_move": settings.DEFAULT_PER_MOVE_SECONDS, "clock.on_timeout": "forfeit"},
    durations=("clock.per_move",),
    sections=[
        ("Ladder", ["name", "kind", "rated"]),
        ("Challenges", ["reach", "max_out", "max_in", "repeat_days", "answer_days"]),
        ("Time", ["clock.per_move", "clock.on_timeout"]),
    ],
)
