"""The organiser's form of a league: the API's CreateLeague, in players' words
(kinplay.web.organise builds and checks it)."""

from django.conf import settings

from api.leagues import CreateLeague
from kinplay.tournaments.forms import TOURNAMENT
from kinplay.web.organise import Spec

# A division is a tournament: the settings they share read the same on both forms.
SHARED = ("name", "kind", "rounds", "table_size.min", "table_size.max", "points", "clock.per_move", "clock.on_timeout")

LEAGUE = Spec(
    CreateLeague,
    labels={
        **{k: TOURNAMENT.labels[k] for k in SHARED},
        "format": "Divisions play", "division_size": "Players per division", "season_days": "Days per season",
        "promote": "Promoted from each division", "relegate": "Relegated from each division",
        "rated": "Rated (the games change ratings)", "drop_limit": "Timeouts a player may have in a season and stay",
        "placement": "Newcomers start", "starts_at": "First season starts at (UTC)",
    },
    help={
        **{k: TOURNAMENT.help[k] for k in SHARED if k in TOURNAMENT.help},
        "rounds": "Swiss divisions: rounds a season. Empty: enough for the division.",
        "season_days": "The season's rounds share these days; late games are adjudicated.",
        "starts_at": "Empty: a week from now, with whoever has signed up by then.",
    },
    choices={
        "format": [("", "Round robin for duels, Swiss for tables"), ("round_robin", "A round robin"), ("swiss", "A Swiss")],
        "placement": [("bottom", "In the lowest division"), ("rating", "In the highest division their rating reaches")],
        "clock.on_timeout": TOURNAMENT.choices["clock.on_timeout"],
    },
    initial={"clock.per_move": settings.DEFAULT_PER_MOVE_SECONDS, "clock.on_timeout": "forfeit"},
    durations=("clock.per_move",),
    formats={"rounds": ("swiss",)},
    sections=[
        ("League", ["name", "kind", "format", "rated"]),
        ("Divisions and seasons", ["division_size", "season_days", "promote", "relegate", "placement", "drop_limit"]),
        ("Rounds and tables", ["rounds", "table_size.min", "table_size.max", "points"]),
        ("Time", ["clock.per_move", "clock.on_timeout", "starts_at"]),
    ],
)
