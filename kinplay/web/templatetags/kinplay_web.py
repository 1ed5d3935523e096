"""Small template helpers: relative times ("in 2 days"), durations ("3 days"), a number of days
("1.5 days", not "1.5 day" or "7.0 days"), places ("21st") and times ("2 Dec 2026 07:21 UTC")."""

from __future__ import annotations

from datetime import UTC, datetime

from django import template
from django.utils import timezone
from django.utils.dateformat import format as date_format
from django.utils.dateparse import parse_datetime

from games.models import Game, Seat
from kinplay.notifications.picture import ordinal as place

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
def utc(value):
    """'2 Dec 2026 07:21 UTC' for a time: a datetime, or the ISO text a tournament's or a league's
    stream keeps ("2026-12-02T07:21:00+00:00"); '' for none."""
    when = value if isinstance(value, datetime) else parse_datetime(str(value)) if value else None
    if when is None:
        return ""
    if timezone.is_naive(when):
        when = when.replace(tzinfo=UTC)
    return date_format(when.astimezone(UTC), "j M Y H:i") + " UTC"


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
def number(value):
    """'7', '1.5', '0.25' for a number as a person writes it (settings arrive as floats: 7.0)."""
    if value in (None, ""):
        return ""
    return f"{round(float(value), 2):g}"


@register.filter
def days(value):
    """'7 days', '1 day', '1.5 days' for a number of days."""
    if value in (None, ""):
        return ""
    return f"{number(value)} day{'' if float(number(value)) == 1 else 's'}"


@register.filter
def ordinal(value):
    """'1st', '21st', '12th', '113th' for a place; '' for none."""
    return place(int(value)) if value not in (None, "") else ""


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
def turn_count(user, counted=None):
    """How many active games wait for ``user`` to act (the lobby badge in the header);
    ``counted``: that number when the page has it already (the lobby's), else it is read."""
    if not getattr(user, "is_authenticated", False):
        return 0
    if isinstance(counted, int):
        return counted
    # over=False: through seat_live, the player's running games only, however long their history
    seats = Seat.objects.filter(user=user, over=False, game__status=Game.ACTIVE).values_list("index", "game__to_act")
    return sum(1 for index, to_act in seats if index in (to_act or []))
