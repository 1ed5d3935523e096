"""The kinds of game the server hosts, checked when the app starts."""

from __future__ import annotations

import html
import importlib
from functools import cache

from games.engine import fill_seats

SLUGS = ["knonsters", "kenta", "karenza", "project_kin", "kinapa"]

REQUIRED = [
    "SLUG", "NAME", "MIN_PLAYERS", "MAX_PLAYERS", "OPTIONS_SCHEMA", "check_players",
    "setup", "decide", "evolve", "view", "redact", "legal_actions", "to_act", "timers",
    "result", "describe",
]


class Kind:
    """A game's rules, bots and renderer, loaded from ``games/<slug>/``."""

    def __init__(self, slug: str):
        self.slug = slug
        self.rules = importlib.import_module(f"games.{slug}.rules")
        self.bots = importlib.import_module(f"games.{slug}.bots")
        self._renderer = importlib.import_module(f"games.{slug}.render")
        missing = [name for name in REQUIRED if not hasattr(self.rules, name)]
        missing += [f"bots.{b}" for b in ("random_bot", "heuristic_bot") if not hasattr(self.bots, b)]
        if missing:
            raise ImportError(f"games.{slug} does not implement the rules contract: missing {', '.join(missing)}")
        self.name = self.rules.NAME

    def render(self, view, seat, names) -> str:
        """The board's HTML, seat placeholders of engine text replaced by (escaped) names."""
        return fill_seats(self._renderer.render(view, seat, names), [html.escape(str(n)) for n in names])

    @property
    def legend(self) -> str:
        """What the board's symbols and colours mean, shown beside it on the game page (``LEGEND``
        of the render module; not in emails, where it would only add weight)."""
        return getattr(self._renderer, "LEGEND", "")

    def explain(self, move: dict) -> str:
        """What a legal move does, in words, for the page that offers it (``explain`` of the render
        module, when it has one)."""
        fn = getattr(self._renderer, "explain", None)
        return fn(move) if fn else ""

    def render_text(self, view, seat, names) -> str:
        """The board in words (the plain part of emails), seat placeholders replaced by names."""
        return fill_seats(self._renderer.render_text(view, seat, names), [str(n) for n in names])

    def bot(self, name: str):
        return {"random": self.bots.random_bot, "heuristic": self.bots.heuristic_bot}[name]


@cache
def kinds() -> dict[str, Kind]:
    """Every kind whose package is present, in the order of SLUGS."""
    found = {}
    for slug in SLUGS:
        try:
            importlib.import_module(f"games.{slug}.rules")
        except ModuleNotFoundError as exc:
            if exc.name and exc.name.startswith(f"games.{slug}"):
                continue  # not written yet
            raise
        found[slug] = Kind(slug)
    return found


def get(slug: str) -> Kind:
    return kinds()[slug]
