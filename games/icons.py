"""Our own symbols, drawn as SVG (pure strings, no Django).

Emoji such as a raised hand, a fox or an hourglass show as empty boxes on a machine without a
colour-emoji font (Debian's Chromium, many mail readers), and a symbol that carries game
information must never depend on a font. Every render module draws its symbols with these.

``icon(name)`` is an inline ``<svg>`` for HTML (1 em, follows the text colour);
``icon_at(name, x, y, size)`` is the same drawing placed inside a board's own ``<svg>``.
Every drawing is on a 16×16 grid.
"""

from __future__ import annotations

from html import escape

PATHS = {
    # a raised open hand (Kinapa: "I raise my hand")
    "hand": '<path d="M4.5 9V4.2a1 1 0 0 1 2 0V8M6.5 7.6V2.8a1 1 0 0 1 2 0v4.8M8.5 7.6V3.4a1 1 0 0 1 2 0v4.6'
            'M10.5 8.2V5.2a1 1 0 0 1 2 0v4.6c0 3-1.9 5.2-4.6 5.2-2 0-3.1-1-4.2-2.6L2 9.9a1 1 0 0 1 1.6-1.2L4.5 10"'
            ' fill="none" stroke="currentColor" stroke-width="1.3" stroke-linecap="round" stroke-linejoin="round"/>',
    # a fox's head: pointed ears and snout
    "fox": '<path d="M2 2.5l3.6 3h4.8L14 2.5l-.6 6.2L8 14 2.6 8.7z" fill="#e8731a" stroke="#7a3a0c" stroke-width=".8"'
           ' stroke-linejoin="round"/><path d="M5.4 9.6L8 12.4l2.6-2.8L8 10.6z" fill="#fff"/>'
           '<circle cx="6" cy="7.6" r=".8" fill="#222"/><circle cx="10" cy="7.6" r=".8" fill="#222"/>',
    # a sheep: woolly body, dark head
    "sheep": '<path d="M4 11a2 2 0 0 1-.6-3.9 2.2 2.2 0 0 1 3.4-2.3 2.4 2.4 0 0 1 4 .2 2 2 0 0 1 2 3.4A1.9 1.9 0 0 1 11 11z"'
             ' fill="#fff" stroke="#555" stroke-width=".8"/><ellipse cx="13.3" cy="7.4" rx="1.6" ry="1.3" fill="#333"/>'
             '<path d="M5.5 11v2.5M10 11v2.5" stroke="#333" stroke-width="1.1" stroke-linecap="round"/>',
    # an hourglass: still to act
    "hourglass": '<path d="M4 1.5h8M4 14.5h8M5 1.5c0 3.5 3 4.5 3 6.5s-3 3-3 6.5M11 1.5c0 3.5-3 4.5-3 6.5s3 3 3 6.5"'
                 ' fill="none" stroke="currentColor" stroke-width="1.4" stroke-linecap="round"/>'
                 '<path d="M6.3 13.3c.4-1.4 1.7-2.2 1.7-2.2s1.3.8 1.7 2.2z" fill="currentColor"/>',
    # a crown: the Emperor
    "crown": '<path d="M2 12.5L1.5 5l3.7 3L8 3l2.8 5 3.7-3-.5 7.5z" fill="#f5b700" stroke="#8a6500" stroke-width=".9"'
             ' stroke-linejoin="round"/><path d="M2.2 14h11.6" stroke="#8a6500" stroke-width="1.2"/>',
    # a five-pointed star: a hot spot, a revealed favourite
    "star": '<path d="M8 1.3l2 4.3 4.7.5-3.5 3.2 1 4.6L8 11.5l-4.2 2.4 1-4.6L1.3 6.1 6 5.6z" fill="#f5b700"'
            ' stroke="#8a6500" stroke-width=".8" stroke-linejoin="round"/>',
    # a heart: a secret favourite
    "heart": '<path d="M8 14S1.5 10 1.5 5.6A3.3 3.3 0 0 1 8 4a3.3 3.3 0 0 1 6.5 1.6C14.5 10 8 14 8 14z" fill="#d6336c"'
             ' stroke="#8c1d45" stroke-width=".8"/>',
    # the back of a card: a card square
    "card": '<rect x="3.5" y="1.5" width="9" height="13" rx="1.5" fill="#4f3fd1" stroke="#2a1f86" stroke-width=".9"/>'
            '<path d="M5.5 4.5l5 7M10.5 4.5l-5 7" stroke="#c9c2ff" stroke-width=".9"/>',
    # a tick: a pair made
    "check": '<path d="M2.5 8.5l3.5 3.5 7.5-8" fill="none" stroke="#137a43" stroke-width="2.2" stroke-linecap="round"'
             ' stroke-linejoin="round"/>',
    # a small robot: a bot
    "bot": '<rect x="3" y="5" width="10" height="8" rx="2" fill="none" stroke="currentColor" stroke-width="1.4"/>'
           '<circle cx="6.2" cy="9" r="1" fill="currentColor"/><circle cx="9.8" cy="9" r="1" fill="currentColor"/>'
           '<path d="M8 5V2.5" stroke="currentColor" stroke-width="1.4" stroke-linecap="round"/>',
}

LABELS = {
    "hand": "raised hand", "fox": "Fox card", "sheep": "sheep", "hourglass": "to act", "crown": "Emperor",
    "star": "star", "heart": "favourite", "card": "card square", "check": "pair made", "bot": "bot",
}


def icon(name: str, title: str | None = None, size: str = "1em") -> str:
    """An inline SVG symbol for HTML; ``title`` is what a screen reader (and a hover) says."""
    label = escape(title if title is not None else LABELS[name])
    return (f'<svg class="kp-icon kp-icon-{name}" viewBox="0 0 16 16" width="{size}" height="{size}" role="img" '
            f'aria-label="{label}" style="vertical-align:-.15em"><title>{label}</title>{PATHS[name]}</svg>')


def icon_at(name: str, x: float, y: float, size: float = 10, title: str | None = None) -> str:
    """The same symbol inside a board's SVG, its top-left corner at (x, y), ``size`` units wide."""
    label = f"<title>{escape(title)}</title>" if title else ""
    return (f'<g class="kp-icon kp-icon-{name}" transform="translate({x:.1f} {y:.1f}) scale({size / 16:.3f})" '
            f'color="#1f2937">{label}{PATHS[name]}</g>')


def legend(items: list[tuple[str, str]], title: str = "Legend") -> str:
    """The legend beside a board: ``[(symbol_html, meaning), …]`` as a definition list."""
    rows = "".join(f'<div class="legend-row"><dt>{sym}</dt><dd>{escape(text)}</dd></div>' for sym, text in items)
    return f'<details class="board-legend" open><summary>{escape(title)}</summary><dl>{rows}</dl></details>'


def swatch(fill: str, stroke: str = "#9ca3af", text: str = "", text_fill: str = "#374151", ring: str = "") -> str:
    """A small square in a legend, drawn like a square of the board."""
    sw = f'stroke="{ring}" stroke-width="2.5"' if ring else f'stroke="{stroke}" stroke-width="1"'
    label = (f'<text x="10" y="14" font-size="10" text-anchor="middle" fill="{text_fill}">{escape(text)}</text>'
             if text else "")
    return (f'<svg class="kp-swatch" viewBox="0 0 20 20" width="24" height="24" aria-hidden="true">'
            f'<rect x="1.5" y="1.5" width="17" height="17" rx="3" fill="{fill}" {sw}/>{label}</svg>')
