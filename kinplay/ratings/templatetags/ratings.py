"""Template helpers of ratings: every player name links to the player's page (one place; a
deactivated player's name is plain text), and rating changes read as "+12" / "−9"."""

from __future__ import annotations

from functools import lru_cache

from django import template
from django.urls import reverse
from django.utils.html import format_html

from kinplay.ratings.selectors import deactivated_names, rating_changes

register = template.Library()


def _name_and_human(value):
    """A username, a Seat, or a seat dict of the pages ({"name", "bot", "open"})."""
    if isinstance(value, str):
        return value, True
    if isinstance(value, dict):
        return value.get("name", ""), not value.get("bot") and not value.get("open")
    user = getattr(value, "user", None)
    if user is not None and hasattr(value, "is_open"):  # a Seat
        return user.username, True
    if hasattr(value, "username"):  # a User
        return value.username, True
    return getattr(value, "name", str(value)), False


@register.filter
def player_link(value, label=None):
    """``{{ seat|player_link }}``: the name as a link to the player's page; bots and open
    seats are plain text, and so is a deactivated player (their page is gone).
    ``{{ seat|player_link:"you" }}`` links with another label."""
    name, human = _name_and_human(value)
    text = name if label in (None, "") else label
    if not human or not name or name in deactivated_names():
        return text
    return format_html('<a class="player-link" href="{}">{}</a>', _player_url(name), text)


@lru_cache(maxsize=8192)
def _player_url(name):
    # A leaderboard page links 50 names: reverse() for each was about a tenth of its CPU.
    return reverse("player", args=[name])


@register.filter
def signed(delta):
    """+12, −9 (a real minus sign), ±0."""
    if delta in (None, ""):
        return ""
    delta = int(delta)
    if delta > 0:
        return f"+{delta}"
    return f"\u2212{-delta}" if delta < 0 else "\u00b10"


@register.simple_tag
def rating_lines(game):
    """Each seat's rating change of a finished rated game, for the game-over email:
    ``[{"name", "before", "after", "delta"}]`` in seat order; [] for an unrated game."""
    changes = rating_changes(game)
    if not changes:
        return []
    return [{"name": s.name, **changes[s.index]} for s in game.seat_list if s.index in changes]


@register.filter
def rating_label(game):
    """Whether a game counts for the ratings, in words, for the game page's facts."""
    if not game.rated:
        return "Unrated: a friendly game"
    if any(s.bot for s in game.seat_list):
        return "Unrated: a bot plays"
    return "Rated"
