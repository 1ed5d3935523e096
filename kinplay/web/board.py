"""The board as the game page shows it: the kind's drawing, and the same position in words for
screen readers (the email's text rendering), tied to the drawing with ``aria-describedby``."""

from __future__ import annotations

import re
from typing import Any

from django.utils.safestring import SafeString, mark_safe

from games.registry import Kind

DESCRIPTION_ID = "board-description"
# The kinds draw their board as <svg role="img" aria-label="...">; the symbols of games/icons.py
# (class "kp-icon") are named pictures too, each only a word of it.
_PICTURE = re.compile(r'<svg\b(?![^>]*\bclass="kp-icon)(?=[^>]*\brole="img")')


def drawn(kind: Kind, view: dict[str, Any], seat: int | None, names: list[Any]) -> tuple[SafeString, str]:
    """The board's HTML (our code, from the seat's view only) with every picture in it described
    by the text, and that text: both from the same view, so the words tell no more than the
    picture shows this seat."""
    html = _PICTURE.sub(f'<svg aria-describedby="{DESCRIPTION_ID}"', kind.render(view, seat, names))
    return mark_safe(html), kind.render_text(view, seat, names)
