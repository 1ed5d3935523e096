"""Karenza's table as an HTML fragment with inline SVG, drawn from a seat's view only."""

from __future__ import annotations

import html

from games.icons import legend
from games.karenza import rules

CW, CH = 64, 92  # card size in the SVG table
GAP = 8
CORNER_XY = {"TL": (0, 0), "TR": (1, 0), "BL": (0, 1), "BR": (1, 1)}

STYLE = """<style>
.karenza{font-family:system-ui,sans-serif;color:#222;max-width:900px}
.karenza-status{display:flex;flex-wrap:wrap;gap:.5em;margin:.3em 0}
.karenza-chip{background:#f1efe9;border-radius:1em;padding:.15em .7em;font-size:.9em}
.karenza-turn{background:#ffe9a8;font-weight:600}
.karenza-alert{background:#ffd1cc;font-weight:600}
.karenza-last{background:#222;color:#fff;font-weight:600}
@media (max-width:600px){.karenza-status{gap:.3em}.karenza-chip{font-size:.8em;padding:.1em .55em}}
.karenza-table{width:100%;height:auto;background:#f7f4ec;border-radius:8px}
.karenza-hand{display:flex;flex-wrap:wrap;gap:6px;margin:.5em 0}
.karenza-card{width:104px;border:2px solid #999;border-radius:8px;background:#fff;padding:4px;font-size:.78em;
  box-sizing:border-box}
.karenza-card[data-notation]{cursor:pointer;box-shadow:0 0 0 2px #ffd34d}
.karenza-attack{border-color:#c0392b}.karenza-defence{border-color:#2e64b5}
.karenza-addon{border-color:#7d5ba6}.karenza-trick{border-color:#2e8b57}
.karenza-name{font-weight:600;display:block}
.karenza-power{float:right;font-weight:700;font-size:1.2em}
.karenza-text{display:block;color:#555;margin-top:2px}
.karenza-log{font-size:.85em;color:#444;margin:.3em 0;padding-left:1.2em}
</style>"""

FILL = {"attack": "#fbe3e0", "defence": "#e1ebfa"}
STROKE = {"attack": "#c0392b", "defence": "#2e64b5"}


def _box(colour, fill="#fff"):
    return (f'<svg viewBox="0 0 20 20" width="24" height="24" aria-hidden="true"><rect x="2" y="2" width="16" height="16" '
            f'rx="3" fill="{fill}" stroke="{colour}" stroke-width="2.5"/></svg>')


def _legend():
    arrow = (f'<svg viewBox="0 0 30 30" width="24" height="24" aria-hidden="true">'
             f'{_arrow_svg(0, 0, 30, ["TL", "BR"], STROKE["attack"])}</svg>')
    return legend([
        (_box(STROKE["attack"], FILL["attack"]), "Attack technique (red): the opponent must defend next."),
        (_box(STROKE["defence"], FILL["defence"]), "Defence technique (blue): parries an attack of at most its power."),
        (_box("#7d5ba6"), "Add-on (purple): played with a technique, changes its power."),
        (_box("#2e8b57"), "Trick (green): a whole turn on its own."),
        (arrow, "Trajectory: from the dot's corner to the arrow's corner. The next technique of a sequence starts "
                "where the last one ended (“next from”)."),
        ("4", "The number on a card is its power."),
    ], "Table legend")


def _e(text):
    return html.escape(str(text), quote=True)


def _arrow_svg(x, y, size, trajectory, colour):
    """A square box with the trajectory arrow from one corner to another."""
    a, b = trajectory
    pad = size * 0.18
    (ax, ay), (bx, by) = CORNER_XY[a], CORNER_XY[b]
    x1, y1 = x + pad + ax * (size - 2 * pad), y + pad + ay * (size - 2 * pad)
    x2, y2 = x + pad + bx * (size - 2 * pad), y + pad + by * (size - 2 * pad)
    dx, dy = x2 - x1, y2 - y1
    length = max((dx * dx + dy * dy) ** 0.5, 1)
    ux, uy = dx / length, dy / length
    h = size * 0.22
    p1 = (x2 - ux * h - uy * h * 0.6, y2 - uy * h + ux * h * 0.6)
    p2 = (x2 - ux * h + uy * h * 0.6, y2 - uy * h - ux * h * 0.6)
    return (f'<rect x="{x:.1f}" y="{y:.1f}" width="{size}" height="{size}" fill="#fff" stroke="#888"/>'
            f'<circle cx="{x1:.1f}" cy="{y1:.1f}" r="{size * 0.07:.1f}" fill="{colour}"/>'
            f'<line x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2:.1f}" stroke="{colour}" stroke-width="2"/>'
            f'<polygon points="{x2:.1f},{y2:.1f} {p1[0]:.1f},{p1[1]:.1f} {p2[0]:.1f},{p2[1]:.1f}" fill="{colour}"/>')


def _short(name, n=11):
    return name if len(name) <= n else name[: n - 1] + "…"


def _figure(cx, cy, role):
    """The red spearhead of an attack, the blue shield of a defence."""
    if role == "attack":
        return (f'<polygon points="{cx:.1f},{cy - 11:.1f} {cx + 7:.1f},{cy + 4:.1f} {cx:.1f},{cy + 1:.1f} '
                f'{cx - 7:.1f},{cy + 4:.1f}" fill="{STROKE[role]}"/>'
                f'<rect x="{cx - 1.5:.1f}" y="{cy + 1:.1f}" width="3" height="10" fill="{STROKE[role]}"/>')
    return (f'<path d="M{cx - 9:.1f},{cy - 9:.1f} L{cx + 9:.1f},{cy - 9:.1f} L{cx + 9:.1f},{cy:.1f} '
            f'Q{cx + 9:.1f},{cy + 8:.1f} {cx:.1f},{cy + 12:.1f} Q{cx - 9:.1f},{cy + 8:.1f} {cx - 9:.1f},{cy:.1f} Z" '
            f'fill="{STROKE[role]}"/>')


def _table_card(x, y, entry, cards):
    card = cards.get(entry["card"], {"name": entry["card"], "type": "technique"})
    role = entry["role"]
    out = [f'<g><title>{_e(card["name"])}: {_e(role)}, power {_e(entry["power"])}'
           + (" — add-ons: " + _e(", ".join(cards.get(a, {}).get("name", a) for a in entry["addons"]))
              if entry["addons"] else "") + "</title>"]
    # add-ons peek out above the card, bottom one first
    for k, a in enumerate(entry["addons"]):
        ay = y - 10 * (len(entry["addons"]) - k)
        out.append(f'<rect x="{x + 4}" y="{ay}" width="{CW - 8}" height="14" rx="3" fill="#efe6fa" stroke="#7d5ba6"/>'
                   f'<text x="{x + CW / 2}" y="{ay + 9}" font-size="7" text-anchor="middle">'
                   f'{_e(_short(cards.get(a, {}).get("name", a), 14))}</text>')
    out.append(f'<rect x="{x}" y="{y}" width="{CW}" height="{CH}" rx="6" fill="{FILL[role]}" '
               f'stroke="{STROKE[role]}" stroke-width="2"/>')
    if entry.get("start") and entry.get("end"):
        out.append(_arrow_svg(x + 6, y + 6, 30, [entry["start"], entry["end"]], STROKE[role]))
    else:
        out.append(f'<text x="{x + 21}" y="{y + 27}" font-size="9" text-anchor="middle" fill="{STROKE[role]}">'
                   f'ability</text>')
    out.append(f'<text x="{x + CW - 8}" y="{y + 30}" font-size="20" font-weight="700" text-anchor="end" '
               f'fill="{STROKE[role]}">{_e(entry["power"])}</text>')
    out.append(_figure(x + CW / 2, y + 54, role))
    out.append(f'<text x="{x + CW / 2}" y="{y + CH - 10}" font-size="8" text-anchor="middle">'
               f'{_e(_short(card["name"]))}</text>')
    out.append("</g>")
    return "".join(out)


def _pile(x, y, label, count, colour):
    return (f'<rect x="{x}" y="{y}" width="44" height="60" rx="5" fill="{colour}" stroke="#555"/>'
            f'<text x="{x + 22}" y="{y + 36}" font-size="16" font-weight="700" text-anchor="middle" fill="#fff">'
            f'{_e(count)}</text>'
            f'<text x="{x + 22}" y="{y + 74}" font-size="9" text-anchor="middle">{_e(label)}</text>')


EMPTY_ROW_H = 52


def _row(p, y0, cards):
    """A player's deck, discard pile and sequence area below their name."""
    chain = f" · next from {p['chain_end']}" if p.get("chain_end") else ""
    if not p["sequence"]:
        return (f'<text x="8" y="{y0 + 34}" font-size="11" fill="#555">deck {p["deck_count"]} · hand '
                f'{p["hand_count"]} · discard {len(p["discard"])}{_e(chain)} · empty sequence area</text>')
    out = [_pile(8, y0 + 34, f"deck · hand {p['hand_count']}", p["deck_count"], "#6b4f3a"),
           f'<text x="30" y="{y0 + 122}" font-size="9" text-anchor="middle">discard {len(p["discard"])}</text>']
    if chain:
        out.append(f'<text x="30" y="{y0 + 134}" font-size="9" text-anchor="middle">next from '
                   f'{_e(p["chain_end"])}</text>')
    out += [_table_card(66 + i * (CW + GAP), y0 + 40, entry, cards) for i, entry in enumerate(p["sequence"])]
    return "".join(out)


def _svg(view, seat, names):
    players = view["players"]
    bottom = seat if seat in (0, 1) else 0
    rows = [1 - bottom, bottom]
    n = max([len(p["sequence"]) for p in players] + [4])
    width = 70 + n * (CW + GAP) + 10
    # an empty sequence area is a line of words, not a row of room for cards
    heights = [CH + 64 if players[s]["sequence"] else EMPTY_ROW_H for s in rows]
    height = sum(heights) + 10
    out = [f'<svg class="karenza-table" viewBox="0 0 {width} {height}" width="100%" '
           f'style="max-width:{int(width * 1.5)}px" '
           f'xmlns="http://www.w3.org/2000/svg" role="img" aria-label="Sequence areas">']
    y0 = 8
    for r, s in enumerate(rows):
        p = players[s]
        who = names[s] if s < len(names) else f"Player {s + 1}"
        head = f'{who} — {p["character_name"]} — {p["score"]} pt'
        if view["turn"] == s and not view.get("finished"):
            head += " (to play)"
        out.append(f'<text x="8" y="{y0 + 12}" font-size="12" font-weight="600">{_e(head)}</text>')
        out.append(_row(p, y0, view["cards"]))
        y0 += heights[r]
    out.append("</svg>")
    return "".join(out)


def _hand_card(code, info, notation):
    kind = info.get("function") if info["type"] == "technique" else info.get("ability")
    cls = {"attack": "karenza-attack", "defence": "karenza-defence", "addon": "karenza-addon",
           "trick": "karenza-trick"}.get(kind, "")
    attr = f' data-notation="{_e(notation)}"' if notation else ""
    parts = [f'<div class="karenza-card {cls}"{attr} title="{_e(code)}">']
    if "power" in info:
        parts.append(f'<span class="karenza-power">{_e(info["power"])}</span>')
    parts.append(f'<span class="karenza-name">{_e(info["name"])}</span>')
    if info["type"] == "technique":
        colour = STROKE[info["function"]]
        parts.append(f'<svg viewBox="0 0 30 30" width="30" height="30">{_arrow_svg(0, 0, 30, info["trajectory"], colour)}'
                     f'</svg> {_e(info["function"])} {_e(info["trajectory"][0])}→{_e(info["trajectory"][1])}'
                     f'<span class="karenza-text">{_e(info["function"].capitalize())} from the '
                     f'{_e(rules.CORNER_NAMES[info["trajectory"][0]])} to the '
                     f'{_e(rules.CORNER_NAMES[info["trajectory"][1]])} corner, power {_e(info["power"])}.</span>')
    else:
        parts.append(f'<span class="karenza-text">{_e(info.get("text", ""))}</span>')
    parts.append("</div>")
    return "".join(parts)


def _notation_for(view, code, info):
    moves = set(view.get("moves", []))
    if view.get("discard_pending") == view.get("you"):
        cand = f"discard {code}"
    elif info["type"] == "ability" and info.get("ability") == "trick":
        cand = f"trick {code}"
    elif info.get("function") == "attack":
        cand = f"attack {code}"
    elif info.get("function") == "defence":
        cand = f"defend {code}"
    else:
        return None
    return cand if cand in moves else None


LEGEND = _legend()


def render(view, seat, names):
    if not view:
        return STYLE + '<div class="karenza">The duel has not started.</div>'
    names = list(names) + [f"Player {i + 1}" for i in range(len(names), 2)]
    chips = []
    res = view.get("result")
    if res:
        chips.append(f'<span class="karenza-chip karenza-turn">{_e(res["summary"])}</span>')
    elif view["turn"] is not None:
        t = view["turn"]
        who = "You" if t == seat else names[t]
        chips.append(f'<span class="karenza-chip karenza-turn">{_e(who)} to play</span>')
    if view.get("under_attack") is not None and not res:
        u = view["under_attack"]
        a = view["attack"]
        target = "You are" if u == seat else f"{names[u]} is"
        extra = f" (needs a defence of power {a['min_defence']}+)" if a.get("min_defence") else ""
        chips.append(f'<span class="karenza-chip karenza-alert">{_e(target)} under attack: power '
                     f'{_e(a["power"])}{_e(extra)}</span>')
    if view.get("in_sequence"):
        chips.append('<span class="karenza-chip">In sequence: no drawing</span>')
    if view.get("last_hand"):
        chips.append('<span class="karenza-chip karenza-last">Last hand</span>')
    for s, p in enumerate(view["players"]):
        for label, mods in (("this turn", p.get("this_turn") or {}), ("next turn", p.get("next_turn") or {})):
            for key, value in mods.items():
                text = ("cannot attack" if key == "no_attack"
                        else f"attacks {'+' if value >= 0 else ''}{value}" if key == "attack_mod" else key)
                chips.append(f'<span class="karenza-chip">{_e(names[s])}, {label}: {_e(text)}</span>')
    parts = [STYLE, '<div class="karenza">', '<div class="karenza-status">', "".join(chips), "</div>",
             _svg(view, seat, names)]
    if seat in (0, 1) and "hand" in view:
        parts.append(f'<div><strong>Your hand</strong> ({len(view["hand"])} cards)</div><div class="karenza-hand kp-hand">')
        for code in view["hand"]:
            info = view["cards"].get(code, {"name": code, "type": "technique", "function": "attack",
                                            "trajectory": ["TL", "BR"], "power": 0})
            parts.append(_hand_card(code, info, _notation_for(view, code, info)))
        parts.append("</div>")
    recent = [rules.describe(e, names) for e in view.get("recent", []) if e.get("type") not in ("turn", "deck")]
    if recent:
        parts.append('<ol class="karenza-log">' + "".join(f"<li>{_e(line)}</li>" for line in recent) + "</ol>")
    parts.append("</div>")
    return "".join(parts)


def render_text(view, seat, names):
    """The same picture in plain text for the plain part of emails (from the seat's view only)."""
    if not view:
        return "The duel has not started."
    names = list(names) + [f"Player {i + 1}" for i in range(len(names), 2)]
    cards = view.get("cards", {})

    def card(code):
        return cards.get(code, {}).get("name", code)

    lines = []
    for s, p in enumerate(view["players"]):
        lines.append(f"{names[s]} ({p['character_name']}): {p['score']} point{'' if p['score'] == 1 else 's'}, {p['hand_count']} card{'' if p['hand_count'] == 1 else 's'} in hand, "
                     f"{p['deck_count']} in the deck")
        if p["sequence"]:
            lines.append("  on the table: " + ", ".join(
                f"{card(e['card'])} ({e['role']} {e['power']})" for e in p["sequence"]))
    res = view.get("result")
    if res:
        lines.append(res["summary"])
    elif view["turn"] is not None:
        lines.append(f"To play: {names[view['turn']]}.")
    if view.get("under_attack") is not None and not res:
        a = view["attack"]
        extra = f", needs a defence of power {a['min_defence']}+" if a.get("min_defence") else ""
        lines.append(f"{names[view['under_attack']]} is under attack: power {a['power']}{extra}.")
    if view.get("last_hand"):
        lines.append("This is the last hand.")
    if seat in (0, 1) and "hand" in view:
        lines.append(f"Your hand ({len(view['hand'])} cards):")
        for code in view["hand"]:
            info = cards.get(code, {"name": code, "type": "?"})
            if info.get("type") == "technique":
                t = info["trajectory"]
                lines.append(f"  {info['name']}: {info['function']} {t[0]}→{t[1]}, power {info['power']}")
            else:
                lines.append(f"  {info['name']}: {info.get('text', '')}".rstrip(": "))
    return "\n".join(lines)


def _card_words(code):
    c = rules.CARDS.get(code)
    if c is None:
        return ""
    if c["type"] == "technique":
        a, b = c["trajectory"]
        return (f"{c['name']}: {c['function']}, power {c['power']}, from the {rules.CORNER_NAMES[a]} "
                f"to the {rules.CORNER_NAMES[b]} corner.")
    return f"{c['name']}: {c.get('text', '')}"


def explain(move) -> str:
    """What a move does, in words, shown with the move where it is offered (the cards' texts)."""
    action = move.get("action") or {}
    codes = [action.get("card")] + list(action.get("addons") or [])
    return " ".join(_card_words(c) for c in codes if c)
