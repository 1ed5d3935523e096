"""The kinds of game the server hosts, checked when the app starts."""

from __future__ import annotations

import html
import importlib
from collections.abc import Callable
from functools import cache
from typing import TYPE_CHECKING, Any, cast

from games.compiled import KINDS
from games.engine import Bots, Renderer, Rules, fill_seats
from games.schema import missing_upcasters

if TYPE_CHECKING:
    # mypy checks every engine against the rules contract here (``make lint``).
    from games.karenza import bots as _karenza_bots
    from games.karenza import render as _karenza_render
    from games.karenza import rules as _karenza
    from games.kenta import bots as _kenta_bots
    from games.kenta import render as _kenta_render
    from games.kenta import rules as _kenta
    from games.kinapa import bots as _kinapa_bots
    from games.kinapa import render as _kinapa_render
    from games.kinapa import rules as _kinapa
    from games.knonsters import bots as _knonsters_bots
    from games.knonsters import render as _knonsters_render
    from games.knonsters import rules as _knonsters
    from games.project_kin import bots as _project_kin_bots
    from games.project_kin import render as _project_kin_render
    from games.project_kin import rules as _project_kin

    _RULES: list[Rules] = [_karenza, _kenta, _kinapa, _knonsters, _project_kin]
    _BOTS: list[Bots] = [_karenza_bots, _kenta_bots, _kinapa_bots, _knonsters_bots, _project_kin_bots]
    _RENDERERS: list[Renderer] = [
        _karenza_render, _kenta_render, _kinapa_render, _knonsters_render, _project_kin_render]

SLUGS = list(KINDS)  # games/compiled.py: the one list of the kinds hosted

REQUIRED = [
    "SLUG", "NAME", "MIN_PLAYERS", "MAX_PLAYERS", "OPTIONS_SCHEMA", "check_players",
    "setup", "decide", "evolve", "view", "redact", "legal_actions", "to_act", "timers",
    "result", "describe",
]


class Kind:
    """A game's rules, bots and renderer, loaded from ``games/<slug>/``."""

    def __init__(self, slug: str):
        self.slug = slug
        # Checked below at run time, and by mypy against the protocols (see above).
        self.rules = cast(Rules, importlib.import_module(f"games.{slug}.rules"))
        self.bots = cast(Bots, importlib.import_module(f"games.{slug}.bots"))
        self._renderer = cast(Renderer, importlib.import_module(f"games.{slug}.render"))
        missing = [name for name in REQUIRED if not hasattr(self.rules, name)]
        missing += [f"bots.{b}" for b in ("random_bot", "heuristic_bot") if not hasattr(self.bots, b)]
        missing += missing_upcasters(self.rules)
        if missing:
            raise ImportError(f"games.{slug} does not implement the rules contract: missing {', '.join(missing)}")
        self.name = self.rules.NAME

    def render(self, view: dict[str, Any], seat: int | None, names: list[Any]) -> str:
        """The board's HTML, seat placeholders of engine text replaced by (escaped) names."""
        return fill_seats(self._renderer.render(view, seat, names), [html.escape(str(n)) for n in names])

    @property
    def legend(self) -> str:
        """What the board's symbols and colours mean, shown beside it on the game page (``LEGEND``
        of the render module; not in emails, where it would only add weight)."""
        return getattr(self._renderer, "LEGEND", "")

    def default_label(self, action: dict) -> str:
        """The words of a window's default answer that is not one of the moves offered (a Kenta
        vote's "no marker", the clock's alone): ``default_label`` of the render module, if any."""
        fn = getattr(self._renderer, "default_label", None)
        return fn(action) if fn else ""

    def explain(self, move: dict) -> str:
        """What a legal move does, in words, for the page that offers it (``explain`` of the render
        module, when it has one)."""
        fn = getattr(self._renderer, "explain", None)
        return fn(move) if fn else ""

    def render_text(self, view: dict[str, Any], seat: int | None, names: list[Any]) -> str:
        """The board in words (the plain part of emails), seat placeholders replaced by names."""
        return fill_seats(self._renderer.render_text(view, seat, names), [str(n) for n in names])

    def bot(self, name: str) -> Callable[..., Any]:
        return {"random": self.bots.random_bot, "heuristic": self.bots.heuristic_bot}[name]


@cache
def kinds() -> dict[str, Kind]:
    """Every kind whose package is present, in the order of SLUGS."""
    found: dict[str, Kind] = {}
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


def kind_name(slug: str) -> str:
    """The kind's name for people ("Project Kin"), or the slug of a kind not installed."""
    k = kinds().get(slug)
    return k.name if k else slug
