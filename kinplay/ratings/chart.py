"""The rating-over-time chart of a player page: plain server-rendered SVG, no script.

A line per kind, games evenly spaced in finish order; each game is a point linking to the game, with a native
tooltip (<title>). Hand-written: a polyline and a few labels are less than a charting
library's configuration, and nothing but the browser is needed to show it.
"""

from __future__ import annotations

from django.urls import reverse
from django.utils.html import escape

WIDTH, HEIGHT = 640, 240
LEFT, RIGHT, TOP, BOTTOM = 48, 16, 16, 28
COLOURS = ["#5b3cc4", "#d9480f", "#2b8a3e", "#1971c2", "#c2255c", "#845ef7", "#e67700", "#0b7285"]


def _nice_step(span: float) -> int:
    for step in (10, 20, 25, 50, 100, 200, 250, 500, 1000):
        if span / step <= 5:
            return step
    return 2000


def rating_chart(history: dict[str, list[dict]], names: dict[str, str]) -> str:
    """``history`` as the selectors give it ({kind: [{game, finished_at, rating, delta}]},
    oldest first); ``names`` the kinds' display names. "" when there is nothing to draw."""
    series = {k: pts for k, pts in history.items() if pts}
    if not series:
        return ""
    # Games are evenly spaced in the order they finished (async games come in bursts; a time
    # scale would pile them up). Each line starts, one step before its first game, from the
    # rating it had then.
    order = sorted((p["finished_at"], p["game"]) for pts in series.values() for p in pts)
    slot = {key: i + 1 for i, key in enumerate(order)}
    lines: dict[str, list[tuple[int, int]]] = {}  # per kind, (slot, rating): the start, then each game
    for kind, pts in series.items():
        first = pts[0]
        start = (slot[(first["finished_at"], first["game"])] - 1, first["rating"] - first["delta"])
        lines[kind] = [start] + [(slot[(p["finished_at"], p["game"])], p["rating"]) for p in pts]
    values = [v for line in lines.values() for _, v in line]
    last = len(order)
    step = _nice_step(max(values) - min(values) or 1)
    lo = (min(values) // step) * step
    hi = -(-max(values) // step) * step
    if hi == lo:
        lo, hi = lo - step, hi + step
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM

    def x(i):
        return LEFT + i / last * plot_w

    def y(v):
        return TOP + (hi - v) / (hi - lo) * plot_h

    out = [f'<svg class="rating-chart" viewBox="0 0 {WIDTH} {HEIGHT}" role="img" aria-labelledby="rating-chart-title" '
           f'xmlns="http://www.w3.org/2000/svg">',
           '<title id="rating-chart-title">Rating over time</title>']
    for v in range(int(lo), int(hi) + 1, step):
        out.append(f'<line class="grid" x1="{LEFT}" x2="{WIDTH - RIGHT}" y1="{y(v):.1f}" y2="{y(v):.1f}" '
                   f'stroke="#e5e1d8" stroke-width="1"/>')
        out.append(f'<text x="{LEFT - 6}" y="{y(v) + 4:.1f}" text-anchor="end" font-size="11" fill="#777">{v}</text>')
    first_t, last_t = order[0][0], order[-1][0]
    out.append(f'<text x="{LEFT}" y="{HEIGHT - 8}" font-size="11" fill="#777">{first_t:%d %b %Y}</text>')
    if last_t.date() != first_t.date():
        out.append(f'<text x="{WIDTH - RIGHT}" y="{HEIGHT - 8}" text-anchor="end" font-size="11" fill="#777">'
                   f'{last_t:%d %b %Y}</text>')
    href = reverse("game", args=[0]).replace("/0/", "/{}/")  # one reverse for the chart's hundreds of links
    for i, (kind, line) in enumerate(lines.items()):
        colour = COLOURS[i % len(COLOURS)]
        label = escape(names.get(kind, kind))
        coords = " ".join(f"{x(i):.1f},{y(v):.1f}" for i, v in line)
        out.append(f'<g class="series" data-kind="{escape(kind)}"><polyline points="{coords}" fill="none" '
                   f'stroke="{colour}" stroke-width="2" stroke-linejoin="round"/>')
        for (i, v), p in zip(line[1:], series[kind]):
            t, delta = p["finished_at"], p["delta"]
            sign = f"+{delta}" if delta > 0 else (f"\u2212{-delta}" if delta < 0 else "\u00b10")
            out.append(f'<a href="{href.format(p["game"])}"><circle cx="{x(i):.1f}" cy="{y(v):.1f}" r="3.5" '
                       f'fill="{colour}"><title>{label} #{p["game"]}, {t:%d %b %Y}: {v} ({sign})</title></circle></a>')
        out.append("</g>")
    out.append("</svg>")
    return "".join(out)


def legend(history: dict[str, list[dict]], names: dict[str, str]) -> list[dict]:
    """The lines' colours, in the chart's order."""
    kinds = [k for k, pts in history.items() if pts]
    return [{"kind": k, "name": names.get(k, k), "colour": COLOURS[i % len(COLOURS)]} for i, k in enumerate(kinds)]
