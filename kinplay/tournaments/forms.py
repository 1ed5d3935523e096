"""The organiser's form of a tournament: the API's CreateTournament, in players' words
(kinplay.web.organise builds and checks it)."""

from django.conf import settings

from api.tournaments import CreateTournament
from kinplay.tournaments import services
from kinplay.web.forms import ON_TIMEOUT_CHOICES
from kinplay.web.organise import Spec

FORMAT_LABELS = {"swiss": "Swiss", "round_robin": "Round robin", "knockout": "Knockout"}

TOURNAMENT = Spec(
    CreateTournament,
    labels={
        "name": "Name", "kind": "Game", "format": "Format", "rated": "Rated (the games change ratings)",
        "rounds": "Rounds", "double": "Double round robin (everybody twice, seats swapped)", "best_of": "Knockout match",
        "table_size.min": "Smallest table", "table_size.max": "Largest table", "advance": "Through from each table",
        "points": "Points by place", "clock.per_move": "Time per move", "clock.on_timeout": "When a player's time runs out",
        "round_days": "Days per round", "min_players": "Fewest players", "max_players": "Most players",
        "max_timeouts": "Timeouts before a player is withdrawn", "starts_at": "Starts at (UTC)",
    },
    help={
        "rounds": "Swiss only. Empty: enough rounds for the field.",
        "table_size.min": "Multiplayer games. Empty: the game's usual tables (3–4 where it allows them).",
        "table_size.max": "Empty: as the smallest table.",
        "advance": "Multiplayer knockout: how many of each table go through. Empty: half the smallest table.",
        "points": "Best place first, e.g. 6, 4, 2, 0. Empty: win 1, draw ½ (duels), or one per player beaten.",
        "clock.on_timeout": "A bot may play the move for them, the move may be skipped, or they forfeit the game.",
        "round_days": "Games still running then are adjudicated, so no round waits on one vanished player.",
        "min_players": "Empty: as few as the format allows. Below this at the start time, the tournament is cancelled.",
        "max_players": "Empty: no limit.",
        "starts_at": "Empty: you start it yourself, with the button on its page.",
    },
    choices={
        "format": list(FORMAT_LABELS.items()),
        "best_of": [(1, "One game"), (3, "Best of 3")],
        "clock.on_timeout": ON_TIMEOUT_CHOICES,
    },
    initial={"format": "swiss", "clock.per_move": settings.DEFAULT_PER_MOVE_SECONDS, "clock.on_timeout": "forfeit",
             "round_days": services.DEFAULT_ROUND_DAYS, "max_timeouts": services.DEFAULT_MAX_TIMEOUTS},
    durations=("clock.per_move",),
    formats={"rounds": ("swiss",), "double": ("round_robin",), "best_of": ("knockout",), "advance": ("knockout",)},
    sections=[
        ("Tournament", ["name", "kind", "format", "rated"]),
        ("Rounds and tables", ["rounds", "double", "best_of", "table_size.min", "table_size.max", "advance", "points"]),
        ("Time", ["clock.per_move", "clock.on_timeout", "round_days", "starts_at"]),
        ("Players", ["min_players", "max_players", "max_timeouts"]),
    ],
)
