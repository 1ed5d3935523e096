"""What changed on a board since a player last looked: the SVG elements of the board drawn now
that the board drawn at their last look has not (a piece moved, an object turned over, a die
rolled), marked ``data-changed`` for the page's and the email's styles to show.

Each game draws its own board (``render`` in games/<slug>/render.py) from the seat's view, so the
two drawings carry no more than the seat may see. An element is compared by what it looks like:
its tag, its drawing attributes (position, shape, fill, a group's transform) and its text; not
by the attributes that say what can be clicked now (``class``, ``data-*``, ``style``, ARIA),
which change with whose turn it is. Elements are matched as a multiset, so of two identical
pieces one moving marks one. Written with a regular expression, not an HTML parser: the
markup is our renderers' own, and the stdlib parser cannot write a document back.
"""

from __future__ import annotations

import re
from collections import Counter

_SVG = re.compile(r"<svg\b.*?</svg>", re.S)
_ELEMENT = re.compile(r"<(circle|ellipse|rect|path|polygon|polyline|line|use|image|text|g)\b([^>]*)>([^<]*)", re.S)
_ATTR = re.compile(r'([\w:.-]+)\s*=\s*"([^"]*)"')
_NOT_DRAWING = {"class", "style", "role", "tabindex", "id", "cursor", "focusable"}
CHANGED = "data-changed"


def _signature(tag: str, attrs: str, text: str) -> tuple | None:
    drawn = tuple(sorted((k, v) for k, v in _ATTR.findall(attrs)
                         if k not in _NOT_DRAWING and not k.startswith(("data-", "aria-"))))
    if tag == "g" and not any(k == "transform" for k, _ in drawn):
        return None  # a plain group draws nothing itself
    return tag, drawn, text.strip() if tag == "text" else ""


def _elements(html: str):
    for svg in _SVG.finditer(html):
        for m in _ELEMENT.finditer(svg.group(0)):
            yield svg.start() + m.start(), _signature(m.group(1), m.group(2), m.group(3)), m.group(1)


def mark_changes(before: str, now: str) -> str:
    """``now`` with ``data-changed`` on each SVG element that ``before`` did not draw."""
    if not before or not now:
        return now
    old = Counter(sig for _, sig, _ in _elements(before) if sig is not None)
    inserts = []
    for at, sig, tag in _elements(now):
        if sig is None:
            continue
        if old[sig]:
            old[sig] -= 1
        else:
            inserts.append(at + 1 + len(tag))
    for at in reversed(inserts):
        now = f'{now[:at]} {CHANGED}=""{now[at:]}'
    return now
