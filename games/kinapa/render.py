"""Kinapa table as an HTML fragment with an inline SVG (drawn from the view only)."""

from __future__ import annotations

import math
from html import escape

from games.icons import icon, icon_at, legend, swatch
from games.kinapa import rules

STYLE = """<style>
.kinapa{font-family:system-ui,sans-serif;max-width:720px;margin:0 auto;color:#2b2b3a}
.kinapa-table{width:100%;height:auto;display:block}
.kinapa-status{font-weight:600;margin:.4em 0}
.kinapa-hand,.kinapa-public{display:flex;flex-wrap:wrap;gap:.4em;margin:.3em 0 .6em}
.kinapa-card{width:4.6em;min-height:5.8em;border-radius:.5em;border:2px solid #6b5b95;background:#fdf6ec;
 display:flex;flex-direction:column;align-items:center;justify-content:center;font-size:.85em;text-align:center;
 padding:.2em;box-sizing:border-box}
.kinapa-card b{font-size:1.6em}
.kinapa-card span,.kinapa-card small{overflow-wrap:anywhere;hyphens:auto;line-height:1.15}
.kinapa-card small{font-size:.75rem}
.kinapa-card.kinapa-shelter{border-color:#3f8f7a;background:#eef8f3}
.kinapa-card.kinapa-taken{box-shadow:0 0 0 3px #e0a100}
.kinapa-card.kinapa-back{background:repeating-linear-gradient(45deg,#6b5b95,#6b5b95 4px,#8877b5 4px,#8877b5 8px);color:#fff}
.kinapa-card[data-notation]{cursor:pointer}
.kinapa-log{font-size:.9em;margin:.3em 0;padding-left:1.2em}
.kinapa-obj[data-notation],.kinapa-seat[data-notation]{cursor:pointer}
</style>"""


def _name(names, p):
    if names and 0 <= p < len(names):
        return str(names[p])
    return f"Player {p + 1}"


LEGEND = legend([
    (icon("crown", "Emperor"), "The Emperor: announces a number, takes a card, turns over an object card."),
    (icon("hand", "raised hand"), "Raised a hand: says they do not hold the announced number (“I don't have the card”)."),
    (icon("hourglass", "still to answer"), "Still to answer (everyone answers in secret, revealed together)."),
    (icon("fox", "Fox card"), "Fox card: caught lying; this player's hand is face up for everyone."),
    (icon("sheep", "sheep"), "A Sheep card: taken on becoming the Emperor; players without one are chosen first as the next Emperor."),
    (swatch("#4a6fa5", text="?", text_fill="#fff"), "Object card face down, never seen."),
    (swatch("#9fb8d8", text="5-6"), "Object card seen before (everyone remembers it), face down again."),
    (swatch("#fff7d6", text="5") + icon("check", "pair"), "Object card with a pair put down on it (that number is out of play)."),
    (swatch("#8877b5", text="B", text_fill="#fff"), "BOT deck (two-player game): a hidden hand you may take from."),
], "Table legend")


def _card_html(card, notation=None, extra=""):
    n = rules.num(card)
    kind = "animal" if card[0] == "A" else "shelter"
    label = rules.card_name(card).split(" ", 1)[1]
    cls = f"kinapa-card kinapa-{kind}{extra}"
    attr = f' data-notation="{escape(notation)}"' if notation else ""
    return (f'<div class="{cls}"{attr} title="{escape(rules.card_name(card))}">'
            f"<b>{n}</b><span>{escape(label)}</span><small>{kind}</small></div>")


def render(view, seat, names):
    if not view:
        return STYLE + '<div class="kinapa">The game has not started.</div>'
    moves = set(view.get("moves") or [])
    n = view["players_count"]
    parts = [STYLE, '<div class="kinapa">']
    parts.append(f'<div class="kinapa-status">{escape(_status(view, names))}</div>')
    parts.append(_svg(view, names, moves))

    me = view.get("seat")
    for p in view["players"]:
        if p["public"] is not None and p["seat"] != me:
            cards = "".join(_card_html(c) for c in p["public"])
            cards += "".join('<div class="kinapa-card kinapa-back">hidden</div>' for _ in range(p["hidden"]))
            parts.append(f"<div>{escape(_name(names, p['seat']))} is punished (Fox cards): cards face up</div>"
                         f'<div class="kinapa-public">{cards}</div>')
    if me is not None and view.get("hand") is not None:
        hand = []
        for c in view["hand"]:
            note = f"give {c.lower()}"
            extra = " kinapa-taken" if c == view.get("taken") else ""
            hand.append(_card_html(c, note if note in moves else None, extra))
        title = "Your hand"
        if view["players"][me]["punished"]:
            title += " (face up for everyone while you hold the Fox cards)"
        parts.append(f"<div>{escape(title)}</div>")
        parts.append(f'<div class="kinapa-hand kp-hand">{"".join(hand) or "no cards"}</div>')
    if view.get("recent"):
        lines = "".join(f"<li>{escape(rules.describe(e, names or [_name(None, i) for i in range(n)]))}</li>"
                        for e in view["recent"])
        parts.append(f'<div>What just happened</div><ul class="kinapa-log">{lines}</ul>')
    parts.append("</div>")
    return "".join(parts)


def _status(view, names):
    res = view.get("result")
    if res:
        return res["summary"]
    emp = _name(names, view["emperor"]) if view["emperor"] is not None else "?"
    phase = view["phase"]
    text = f"Round {view['round']} of at most {view['round_limit']}. Emperor: {emp}. "
    if phase == "announce":
        text += f"{emp} announces a number."
    elif phase == "window":
        text += f"KINAPA a {view['announced']}? Waiting for " + ", ".join(_name(names, p) for p in view["waiting"]) + "."
        if view.get("my_answer") is not None:
            text += " You chose to " + ("raise your hand." if view["my_answer"] else "do nothing.")
    elif phase == "target":
        text += f"KINAPA a {view['announced']}? {emp} chooses whom to take a card from."
    elif phase == "give":
        text += f"{emp} gives a card back."
    elif phase == "flip":
        text += f"{emp} turns over an object card."
    elif phase == "next":
        text += f"{emp} chooses the next Emperor."
    return text


# The table's drawing box and its centre.
_W, _H = 360, 330
_CX, _CY = 180, 160


def _svg(view, names, moves):
    n = view["players_count"]
    me = view.get("seat")
    out = [f'<svg class="kinapa-table" viewBox="0 0 {_W} {_H}" width="100%" role="img" '
           f'aria-label="Kinapa table" xmlns="http://www.w3.org/2000/svg">',
           f'<ellipse cx="{_CX}" cy="{_CY}" rx="170" ry="150" fill="#f3ead7" stroke="#c9b48a"/>']
    # object cards in a circle around the centre
    objs = view["objects"]
    m = len(objs)
    # Cards (28 × 38) on an ellipse that grows with their number, so that 6 to 8 of them never
    # overlap each other, the announcement in the middle, or the players' boxes around.
    rx = 58 + 5 * max(0, m - 4)
    ry = max(50, 0.8 * rx)
    for o in objs:
        a = -math.pi / 2 + 2 * math.pi * o["pos"] / m
        out.append(_svg_object(o, _CX + rx * math.cos(a) - 14, _CY + ry * math.sin(a) - 19, names, moves))
    if view.get("announced") is not None and view["phase"] != "announce":
        out.append(f'<text x="{_CX}" y="{_CY + 4}" font-size="12" text-anchor="middle" font-weight="bold">'
                   f'KINAPA a {view["announced"]}?</text>')
    # players around the table, the viewer at the bottom
    base = me if me is not None else 0
    raised = set(view.get("raised") or [])
    waiting = set(view.get("waiting") or [])
    for p in view["players"]:
        s = p["seat"]
        a = math.pi / 2 + 2 * math.pi * ((s - base) % n) / n
        mark = "crown" if s == view["emperor"] else "hand" if s in raised else "hourglass" if s in waiting else ""
        out.append(_svg_seat(view, p, a, mark, names, moves))
        if view.get("bots") is not None:
            out.append(_svg_bot(view, s, a, names, moves))
    out.append("</svg>")
    return "".join(out)


def _svg_object(o, x, y, names, moves):
    """Object card ``o`` of the view, its top left corner at (x, y)."""
    note = f"turn {o['pos'] + 1}"
    attr = f' data-notation="{note}"' if note in moves else ""
    if o["pair"]:
        fill, txt, sub = "#fff7d6", f"{o['numbers'][0]}-{o['numbers'][1]}", f"{o['pair']['number']}"
    elif o["face_up"]:
        fill, txt, sub = "#fff7d6", f"{o['numbers'][0]}-{o['numbers'][1]}", "up"
    elif o["object"] is not None:
        fill, txt, sub = "#9fb8d8", f"{o['numbers'][0]}-{o['numbers'][1]}", "seen"
    else:
        fill, txt, sub = "#4a6fa5", "?", ""
    title = o["name"] or f"Object card {o['pos'] + 1}, face down"
    if o["pair"]:
        title += f" — pair of {o['pair']['number']} by {_name(names, o['pair']['seat'])}"
    return (f'<g class="kinapa-obj"{attr}><title>{escape(title)}</title>'
            f'<rect x="{x:.1f}" y="{y:.1f}" width="28" height="38" rx="4" fill="{fill}" stroke="#2d4a73"/>'
            f'<text x="{x + 14:.1f}" y="{y + 18:.1f}" font-size="9" text-anchor="middle">{escape(txt)}</text>'
            f'<text x="{x + (10 if o["pair"] else 14):.1f}" y="{y + 31:.1f}" font-size="8" text-anchor="middle">{escape(sub)}</text>'
            + (icon_at("check", x + 15, y + 23, 10) if o["pair"] else "") +
            f'<text x="{x + 14:.1f}" y="{y - 2:.1f}" font-size="7" text-anchor="middle" fill="#555">{o["pos"] + 1}</text></g>')


def _svg_seat(view, p, a, mark, names, moves):
    """Player ``p``'s box at angle ``a`` around the table, ``mark`` its icon on the left (or "")."""
    s = p["seat"]
    me = view.get("seat")
    x, y = _CX + 138 * math.cos(a) - 44, _CY + 122 * math.sin(a) - 17
    x = max(2, min(_W - 90, x))
    y = max(2, min(_H - 38, y))
    notes = [f"take {s + 1}", f"emperor {s + 1}"]
    note = next((t for t in notes if t in moves), None)
    attr = f' data-notation="{note}"' if note else ""
    stroke = "#c0392b" if s == view["emperor"] else ("#e0a100" if s in view.get("to_act", []) else "#6b5b95")
    fill = "#ddd" if not p["active"] else ("#fff" if s != me else "#f0ebff")
    label = _name(names, s)
    info = f"{p['count']} cards · {p['placed']} pair{'s' if p['placed'] != 1 else ''}"
    if not p["active"]:
        info = "out of time" if s in view.get("_out_of_time", ()) else "left the game"
    # The whole name, squeezed into the box when long (never cut); symbols on the right.
    nx = x + (15 if mark else 4)
    room = 88 - (nx - x) - 3
    squeeze = f' textLength="{room}" lengthAdjust="spacingAndGlyphs"' if len(label) * 6 > room else ""
    icons = (icon_at(mark, x + 2, y + 3, 12) if mark else "")
    icons += "".join(icon_at("fox", x + 86 - 11 * (k + 1), y + 18, 11, "Fox card") for k in range(p["foxes"]))
    if p["sheep"]:
        icons += icon_at("sheep", x + 86 - 11 * (p["foxes"] + 1), y + 18, 11, "sheep")
    return (f'<g class="kinapa-seat"{attr}><title>{escape(_name(names, s))}</title>'
            f'<rect x="{x:.1f}" y="{y:.1f}" width="88" height="34" rx="6" fill="{fill}" stroke="{stroke}" stroke-width="2"/>'
            f'<text x="{nx:.1f}" y="{y + 13:.1f}" font-size="10" font-weight="bold"{squeeze}>{escape(label)}</text>'
            f'<text x="{x + 4:.1f}" y="{y + 27:.1f}" font-size="8">{escape(info)}</text>{icons}</g>')


def _svg_bot(view, s, a, names, moves):
    """Seat ``s``'s BOT deck (2-player game), between the centre and the seat's box at angle ``a``."""
    bn = f"take bot {s + 1}"
    battr = f' data-notation="{bn}"' if bn in moves else ""
    bx, by = _CX + 80 * math.cos(a) - 18, _CY + 84 * math.sin(a) - 10
    return (f'<g class="kinapa-seat"{battr}><title>{escape(_name(names, s))}\'s BOT deck</title>'
            f'<rect x="{bx:.1f}" y="{by:.1f}" width="36" height="20" rx="3" fill="#8877b5" stroke="#6b5b95"/>'
            f'<text x="{bx + 18:.1f}" y="{by + 13:.1f}" font-size="8" fill="#fff" text-anchor="middle">'
            f'BOT {view["bots"][s]}</text></g>')


def render_text(view, seat, names):
    """The same picture in plain text for the plain part of emails (from the seat's view only)."""
    if not view:
        return "The game has not started."
    lines = [_status(view, names), "Objects:"]
    for o in view["objects"]:
        lines.append(f"  {o['pos'] + 1}. {o['name'] if o['name'] else 'face down'}")
    lines.append("Players:")
    for p in view["players"]:
        bits = [f"{p['count']} card{'' if p['count'] == 1 else 's'}"]
        if p["sheep"]:
            bits.append("has a Sheep card")
        if p["foxes"]:
            bits.append(f"{p['foxes']} Fox card{'' if p['foxes'] == 1 else 's'}")
        if p["placed"]:
            bits.append(f"{p['placed']} placed")
        if not p["active"]:
            bits.append("out of time" if p["seat"] in view.get("_out_of_time", ()) else "out")
        if p["public"] is not None and p["seat"] != view.get("seat"):
            bits.append("face up: " + ", ".join(rules.card_name(c) for c in p["public"])
                        + (f" and {p['hidden']} hidden" if p["hidden"] else ""))
        lines.append(f"  {_name(names, p['seat'])}: {', '.join(bits)}")
    if view.get("seat") is not None and view.get("hand") is not None:
        lines.append("Your hand: " + (", ".join(rules.card_name(c) for c in view["hand"]) or "no cards"))
    return "\n".join(lines)
