"""Small template helpers: relative times ("in 2 days") and durations ("3 days")."""

from __future__ import annotations

from datetime import datetime

from django import template
from django.utils import timezone

register = template.Library()

UNITS = [(7 * 86400, "week"), (86400, "day"), (3600, "hour"), (60, "minute"), (1, "second")]


def _amount(seconds: int) -> str:
    seconds = abs(int(seconds))
    if seconds < 45:
        return "a few seconds" if seconds > 5 else "a moment"
    for size, unit in UNITS:
        if seconds >= size:
            n = round(seconds / size) if size >= 86400 else seconds // size
            return f"{n} {unit}{'s' if n != 1 else ''}"
    return "a moment"


@register.filter
def relative(value):
    """'in 2 days' / '3 hours ago' for a datetime."""
    if not isinstance(value, datetime):
        return ""
    delta = (value - timezone.now()).total_seconds()
    if abs(delta) < 45:
        return "now" if delta <= 0 else "in a few seconds"
    return f"in {_amount(delta)}" if delta > 0 else f"{_amount(delta)} ago"


@register.filter
def duration(seconds):
    """'3 days' for a number of seconds; '' for None."""
    if seconds in (None, ""):
        return ""
    seconds = int(seconds)
    for size, unit in UNITS:
        if seconds >= size and seconds % size == 0:
            n = seconds // size
            return f"{n} {unit}{'s' if n != 1 else ''}"
    return f"{seconds} seconds"


@register.filter
def overdue(value):
    return isinstance(value, datetime) and value < timezone.now()


@register.filter
def initial(name):
    """The first letter of a name, for an avatar."""
    return (str(name)[:1] or "?").upper()


@register.filter
def choice_label(value):
    """'to_kingdom_come' -> 'To kingdom come' for an option's choice."""
    text = str(value).replace("_", " ")
    return text[:1].upper() + text[1:]


@register.simple_tag
def turn_count(user):
    """How many active games wait for ``user`` to act (the lobby badge in the header)."""
    if not getattr(user, "is_authenticated", False):
        return 0
    from games.models import Game, Seat

    seats = Seat.objects.filter(user=user, game__status=Game.ACTIVE).values_list("index", "game__to_act")
    return sum(1 for index, to_act in seats if index in (to_act or []))
