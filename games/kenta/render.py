"""Kenta drawn for people: the looped track as inline SVG, the table, my hand as cards."""

from __future__ import annotations

from html import escape

from games.icons import icon, icon_at, legend, swatch

from . import rules

PAWN = {"red": "#d62828", "blue": "#1d4ed8", "green": "#15803d", "yellow": "#eab308", "purple": "#7e22ce"}
ROMAN = rules.ROMAN
PAWN_R = 7

CSS = """
<style>
.kenta{font-family:system-ui,sans-serif;max-width:900px;margin:0 auto;color:#1f2937}
.kenta .kenta-board{width:100%;height:auto;display:block}
.kenta-row{display:flex;flex-wrap:wrap;gap:.5rem;margin:.5rem 0}
.kenta-card{border:2px solid #374151;border-radius:.5rem;padding:.4rem .5rem;width:9.5rem;background:#fffbeb;
 font-size:.8rem;line-height:1.2}
.kenta-card b{display:block;font-size:.9rem;margin-bottom:.2rem}
.kenta-card.kenta-stop{background:#fee2e2;border-color:#b91c1c}
.kenta-card[data-notation]{cursor:pointer;box-shadow:0 0 0 3px #f59e0b}
.kenta-obj{background:#ecfeff;border-color:#0e7490}
.kenta table{border-collapse:collapse;width:100%;font-size:.85rem}
.kenta td,.kenta th{border-bottom:1px solid #e5e7eb;padding:.2rem .3rem;text-align:left}
.kenta-dot{display:inline-block;width:.8rem;height:.8rem;border-radius:50%;vertical-align:middle;
 border:1px solid #111}
.kenta-now{font-weight:bold;background:#fef3c7}
.kenta-note{font-size:.85rem;margin:.3rem 0}
</style>
"""


def _ring():
    """(x, y) for every square, going round a rectangle."""
    L = rules.LENGTH
    cols = L // 3  # 10 along the top and the bottom
    rows = (L - 2 * cols) // 2  # 5 on each side
    w = 34
    pts = []
    for i in range(cols):  # bottom, left to right
        pts.append((10 + i * w, 10 + (rows + 1) * w))
    for i in range(rows):  # right side, bottom to top
        pts.append((10 + cols * w, 10 + (rows - i) * w))
    for i in range(cols):  # top, right to left
        pts.append((10 + (cols - i) * w, 10))
    for i in range(L - len(pts)):  # left side, top to bottom
        pts.append((10, 10 + (i + 1) * w))
    return pts[:L], w, 10 + (cols + 1) * w + 10, 10 + (rows + 2) * w + 10


def _board(view, names):
    pts, w, width, height = _ring()
    out = [f'<svg class="kenta-board" viewBox="0 0 {width} {height + 10}" role="img" '
           f'aria-label="Kenta track">']
    for i, sq in enumerate(rules.BOARD["squares"]):
        _square(out, i, sq, pts[i], w, view["disc"])
    _finish_line(out, view["line"], pts, w, width, height)
    _pawns(out, view, names, pts)
    _centre(out, view, width / 2, height / 2)
    out.append("</svg>")
    return "".join(out)


def _square(out, i, sq, at, w, disc):
    """Square ``i`` of the track, drawn at ``at``; its colour ringed when the disc shows it."""
    x, y = at
    fill = "#f3f4f6"
    stroke, sw = "#9ca3af", 1
    if sq["color"] == "black":
        fill = "#111827"
    elif sq["color"] == "white":
        fill = "#ffffff"
    if sq["hot_spot"]:
        fill = "#fdba74"
    if sq["card"]:
        fill = "#fde68a"
    if sq["color"] and sq["color"] == disc:
        stroke, sw = "#f59e0b", 3
    out.append(f'<rect x="{x}" y="{y}" width="{w - 2}" height="{w - 2}" rx="4" fill="{fill}" '
               f'stroke="{stroke}" stroke-width="{sw}"><title>square {i}</title></rect>')
    tc = "#fff" if sq["color"] == "black" else "#374151"
    out.append(f'<text x="{x + 3}" y="{y + 10}" font-size="8" fill="{tc}">{i}</text>')
    label = ""
    if sq["color"]:
        label = "+2" if sq["arrow"] > 0 else "−2"
    elif sq["card"]:
        out.append(icon_at("card", x + w / 2 - 8, y + w - 20, 14, "card square: draw a card"))
    elif sq["hot_spot"]:
        out.append(icon_at("star", x + w / 2 - 8, y + w - 20, 14, "hot spot"))
    if label:
        out.append(f'<text x="{x + w / 2 - 1}" y="{y + w - 8}" font-size="11" text-anchor="middle" '
                   f'fill="{tc}">{escape(label)}</text>')


def _finish_line(out, line, pts, w, width, height):
    fx, fy = pts[line % rules.LENGTH]
    out.append(f'<rect x="{fx - 3}" y="{fy - 3}" width="{w + 4}" height="{w + 4}" rx="6" fill="none" '
               f'stroke="#ea580c" stroke-width="3" stroke-dasharray="5 3"/>')
    # The label goes on the inner side of the track, never over a neighbouring square.
    if fx >= width - 10 - w - 1:  # right side
        lx, ly, anchor = fx - 5, fy + w / 2 + 3, "end"
    elif fx <= 11 and 10 < fy < height - 10 - w - 1:  # left side
        lx, ly, anchor = fx + w + 5, fy + w / 2 + 3, "start"
    elif fy <= 11:  # top row
        lx, ly, anchor = fx + w / 2, fy + w + 12, "middle"
    else:  # bottom row
        lx, ly, anchor = fx + w / 2, fy - 7, "middle"
    out.append(f'<text x="{lx}" y="{ly}" font-size="10" font-weight="bold" '
               f'text-anchor="{anchor}" fill="#ea580c">finish {line}</text>')


def _pawns(out, view, names, pts):
    per_square = {}
    for seat, p in enumerate(view["positions"]):
        if view["resigned"][seat]:
            continue
        per_square.setdefault(p % rules.LENGTH, []).append(seat)
    for sqi, seats in per_square.items():
        x, y = pts[sqi]
        for k, seat in enumerate(seats):
            # big enough to see on a phone, dark-ringed on any square, and lettered with the
            # colour's initial for those who cannot tell the colours apart
            cx = x + 8 + (k % 3) * 8
            cy = y + 15 + (k // 3) * 10
            col = view["colors"][seat]
            name = names[seat] if seat < len(names) else col
            lap = f" (square {view['positions'][seat]})" if view["positions"][seat] >= rules.LENGTH else ""
            ink = "#111827" if col == "yellow" else "#fff"
            out.append(f'<g class="kenta-pawn"><title>{escape(name)} ({escape(col)}){escape(lap)}</title>'
                       f'<circle cx="{cx}" cy="{cy}" r="{PAWN_R}" fill="{PAWN.get(col, "#888")}" stroke="#111827" '
                       f'stroke-width="1.2"/><text x="{cx}" y="{cy + 3.5}" font-size="10" font-weight="700" '
                       f'text-anchor="middle" fill="{ink}">{escape(col[:1].upper())}</text></g>')


def _centre(out, view, cx, cy):
    """The middle of the board: the Kenta disc, the dice, the pile and the discards."""
    disc = view["disc"]
    dfill = "#111827" if disc == "black" else "#ffffff"
    out.append(f'<circle cx="{cx - 90}" cy="{cy}" r="24" fill="{dfill}" stroke="#111827" stroke-width="2"/>')
    out.append(f'<text x="{cx - 90}" y="{cy + 40}" font-size="10" text-anchor="middle">Kenta disc: '
               f'{escape(disc)}</text>')
    dice = view["dice"]
    if dice:
        for k, c in enumerate(("black", "white")):
            x = cx - 30 + k * 44
            mine = view.get("_die_notations", False)
            attr = f' data-notation="{c}"' if mine else ""
            out.append(f'<g{attr}><rect x="{x}" y="{cy - 18}" width="36" height="36" rx="6" '
                       f'fill="{"#111827" if c == "black" else "#fff"}" stroke="#111827" stroke-width="2"/>'
                       f'<text x="{x + 18}" y="{cy + 6}" font-size="15" text-anchor="middle" '
                       f'fill="{"#fff" if c == "black" else "#111827"}">{ROMAN[dice[c]]}</text></g>')
    out.append(f'<text x="{cx + 90}" y="{cy - 4}" font-size="10" text-anchor="middle">pile {view["pile_count"]}'
               f'{" (2nd)" if view["pile_round"] == 2 else ""}</text>')
    out.append(f'<text x="{cx + 90}" y="{cy + 10}" font-size="10" text-anchor="middle">discards '
               f'{len(view["discard"])}</text>')


LEGEND = legend([
    (swatch("#111827", text="+2", text_fill="#fff"), "Black square: while the disc shows black, a pawn that ends a move here goes 2 squares on (+2) or back (−2)."),
    (swatch("#ffffff", text="−2"), "White square: the same, while the disc shows white."),
    (swatch("#f3f4f6", ring="#f59e0b"), "Orange ring: the squares of the colour the Kenta disc shows now (the active ones)."),
    (swatch("#fde68a") + icon("card", "card square"), "Card square: a pawn that ends a move here draws an action card."),
    (swatch("#fdba74") + icon("star", "hot spot"), "Hot spot sprint: the first player through scores 1, the second 3, the last 2."),
    ('<svg class="kp-swatch" viewBox="0 0 20 20" width="20" height="20" aria-hidden="true"><rect x="1.5" y="1.5" '
     'width="17" height="17" rx="3" fill="none" stroke="#ea580c" stroke-width="2" stroke-dasharray="4 2"/></svg>',
     "Dashed orange frame: the finish line (the race ends when a pawn reaches it)."),
    (icon("hourglass", "to act"), "This player must act now."),
    ("I–IV", "Dice (Roman numerals): the die you choose sets the disc to its colour, and its value's action is played (see the rules)."),
], "Board legend")


def _card_html(key, notation=None, extra=""):
    c = rules.CARDS[key]
    cls = "kenta-card kenta-stop" if c["stop"] else "kenta-card"
    attr = f' data-notation="{escape(notation)}"' if notation else ""
    pts = f" · {c['points']} pt" if c["points"] else ""
    return (f'<div class="{cls}"{attr}><b>{escape(c["name"])}{escape(pts)}</b>'
            f'{escape(rules.card_text(key))}{extra}</div>')


def _objective_text(key, mine=None):
    """The objective in words, spoken to its holder (``mine``: their colour, when known)."""
    o = rules.OBJECTIVES[key]
    if o["kind"] == "color":
        if mine == o["color"]:
            return f"Colour {o['color']}, your own colour: +5 if you finish second, otherwise −2."
        if mine is not None:
            return (f"Colour {o['color']} (not yours): +4 if {o['color']} finishes first, "
                    f"and +2 if you finish second.")
        return (f"Colour {o['color']}: if {o['color']} is your colour, +5 if you finish second, "
                f"otherwise −2. If not: +4 if {o['color']} finishes first; and +2 if you finish second.")
    if o["kind"] == "last":
        return "Last: +8 if you finish last; +3 if you finish neither first nor last."
    return "Finish line: +5 if the finish line ends below 20 or over 30; +4 if you finish last."


def render(view, seat, names):
    names = list(names) + [f"Seat {i + 1}" for i in range(len(names), view["n"])]
    me = view.get("you")
    waiting = view.get("waiting_for") or {}
    my_turn_kind = waiting.get("kind") if me and waiting.get("seat") == me["seat"] else None
    v = dict(view)
    v["_die_notations"] = my_turn_kind == "die"
    parts = [CSS, '<div class="kenta">', _board(v, names)]
    parts.append(f'<p class="kenta-note">{" ".join(_notes(view, names, waiting))}</p>')
    if me:  # right under the board: what the player acts with stays on the first screen
        parts += _my_hand(view, me, my_turn_kind)
    if view["playing"]:  # the note above names it; its text below the hand
        parts.append('<div class="kenta-row">' + _card_html(view["playing"]["card"]) + "</div>")
    parts.append(_players_table(view, names))
    if view.get("end"):
        parts.append(_scoring_table(view, names))
    if view["discard"]:
        last = view["discard"][-1]
        parts.append(f'<p class="kenta-note">Top of the discard pile: {escape(rules.CARDS[last]["name"])}</p>')
    parts.append("</div>")
    return "".join(parts)


# What the player must do, in the note over the table, by ``waiting_for``'s kind.
_MUST = {"die": "choose a die", "line": "move the finish line", "cards": "use up to two cards",
        "target": "choose a player", "dir": "choose a direction", "kenta": "flip the disc or move the line",
        "discard": "discard a card", "give": "give a card"}


def _notes(view, names, waiting):
    """What is going on now, in sentences."""
    note = []
    if view["over"] and view.get("result"):
        note.append(escape(view["result"]["summary"]))
    elif view["vote"]:
        vt = view["vote"]
        who = ", ".join(escape(names[p]) for p in vt["waiting"])
        what = "the winner" if vt["kind"] == "winner" else "the finish line (black: forward, white: back)"
        note.append(f"Secret vote on {what}; still to vote: {who or 'nobody'}.")
    elif view["react"]:
        p = view["playing"]
        note.append(f"{escape(names[p['seat']])} plays {escape(rules.CARDS[p['card']]['name'])}. "
                    f"Other players may answer with STOP.")
    elif waiting:
        note.append(f"{escape(names[waiting['seat']])} must {_MUST.get(waiting['kind'], 'act')}.")
    if view["playing"] and not view["react"]:
        p = view["playing"]
        note.append(f"Resolving {escape(rules.CARDS[p['card']]['name'])} of {escape(names[p['seat']])}.")
    last = view.get("last_card")
    if last and not view["playing"]:
        how = (f"stopped by {escape(names[last['stopped_by']])}" if last["stopped_by"] is not None
               else "resolved")
        note.append(f"Last card: {escape(names[last['seat']])}'s "
                    f"{escape(rules.CARDS[last['card']]['name'])} ({how}).")
    if view["dice"] and not view["race_over"]:
        note.append(f"{escape(names[view['active']])} rolled black {ROMAN[view['dice']['black']]} and "
                    f"white {ROMAN[view['dice']['white']]}.")
    return note


def _players_table(view, names):
    active = view["active"]
    rows = ['<table><tr><th>Player</th><th>Square</th><th>Points</th><th>Cards</th><th>Hot spots</th></tr>']
    for p in range(view["n"]):
        col = view["colors"][p]
        hot = sum(1 for h in view["hot_passed"] if p in h["seats"])
        cls = ' class="kenta-now"' if p == active and not view["race_over"] else ""
        status = _left(view, p)
        acting = f" {icon('hourglass', 'to act')}" if p in view.get("to_act", []) else ""
        rows.append(f'<tr{cls}><td><span class="kenta-dot" style="background:{PAWN.get(col, "#888")}"></span> '
                    f'{escape(names[p])}{escape(status)}{acting}</td><td>{view["positions"][p]}</td>'
                    f'<td>{view["points"][p]}</td><td>{view["hand_counts"][p]}</td><td>{hot}/{len(view["hot_passed"])}</td></tr>')
    rows.append("</table>")
    return "".join(rows)


def _scoring_table(view, names):
    """The scoring once the race is over, for the seats still playing."""
    end = view["end"]
    rows = ['<table><tr><th>Player</th><th>Race</th><th>Objective</th><th>Point cards</th>'
            '<th>Total</th><th>Final square</th></tr>']
    for p in range(view["n"]):
        if end["final"][p] is None:
            continue
        rows.append(f'<tr><td>{escape(names[p])}</td><td>{end["race_ranks"][p]}</td>'
                    f'<td>{escape(end["objectives"][p].replace("-", " "))}: {end["objective_points"][p]:+d}</td>'
                    f'<td>{end["card_points"][p]}</td><td>{end["totals"][p]}</td><td>{end["final"][p]}</td></tr>')
    rows.append("</table>")
    return "".join(rows)


def _my_hand(view, me, my_turn_kind):
    """My cards (those I may use now carry their move's notation), my objective and my vote."""
    cards = []
    seen = set()
    for key in me["hand"]:
        # a second copy of a card carries no move: the first one does
        notation = None if key in seen else _card_notation(view, me, my_turn_kind, key)
        seen.add(key)
        cards.append(_card_html(key, notation))
    obj = (f'<div class="kenta-card kenta-obj"><b>Objective (secret)</b>'
           f'{escape(_objective_text(me["objective"], me["color"]))}</div>')
    parts = [f'<p class="kenta-note">Your hand ({escape(me["color"])}):</p>'
             f'<div class="kenta-row kp-hand">{"".join(cards)}{obj}</div>']
    if me.get("ballot") is not None:
        parts.append(f'<p class="kenta-note">Your sealed vote: {escape(str(me["ballot"]))}</p>')
    return parts


def _card_notation(view, me, my_turn_kind, key):
    """The move a card of my hand stands for now, if any."""
    c = rules.CARDS[key]
    if my_turn_kind == "cards" and not c["stop"]:
        pos = view["positions"]
        mine = pos[me["seat"]]
        ok = not c["target"] or any(
            (pos[q] > mine if view["disc"] == "black" else pos[q] < mine)
            for q in range(view["n"]) if q != me["seat"] and not view["resigned"][q])
        return f"play {key}" if ok else None
    if my_turn_kind in ("discard", "give"):
        return f"{my_turn_kind} {key}"
    if view["react"] and c["stop"] and me["seat"] in view["react"]["waiting"]:
        return "stop"
    return None


def _n(k, unit):
    return f"{k} {unit}{'' if k == 1 else 's'}"


def render_text(view, seat, names):
    """The same picture in plain text for the plain part of emails (from the seat's view only)."""
    if not view:
        return "The game has not started."
    names = list(names) + [f"Seat {i + 1}" for i in range(len(names), view["n"])]
    lines = [f"Finish line: square {view['line']}; the disc shows {view['disc']}."]
    if view["dice"] and not view["race_over"]:
        lines.append(f"{names[view['active']]} rolled black {ROMAN[view['dice']['black']]} "
                     f"and white {ROMAN[view['dice']['white']]}.")
    if view["playing"]:
        p = view["playing"]
        lines.append(f"{names[p['seat']]} plays {rules.CARDS[p['card']]['name']}: {rules.card_text(p['card'])}")
    lines.append("Players:")
    for p in range(view["n"]):
        hot = sum(1 for h in view["hot_passed"] if p in h["seats"])
        status = _left(view, p)
        if p in view.get("to_act", []):
            status += " (to play)"
        lines.append(f"  {names[p]} ({view['colors'][p]}){status}: square {view['positions'][p]}, "
                     f"{_n(view['points'][p], 'point')}, {_n(view['hand_counts'][p], 'card')}, hot spots {hot}/{len(view['hot_passed'])}")
    end = view.get("end")
    if end:
        lines.append("Scoring:")
        for p in range(view["n"]):
            if end["final"][p] is not None:
                lines.append(f"  {names[p]}: race {end['race_ranks'][p]}, objective "
                             f"{end['objectives'][p].replace('-', ' ')} {end['objective_points'][p]:+d}, "
                             f"cards {end['card_points'][p]}, total {end['totals'][p]}")
    me = view.get("you")
    if me:
        lines.append(f"Your hand ({me['color']}):")
        lines += [f"  {rules.CARDS[k]['name']}: {rules.card_text(k)}" for k in me["hand"]] or ["  no cards"]
        lines.append(f"Your secret objective: {_objective_text(me['objective'], me['color'])}")
        if me.get("ballot") is not None:
            lines.append(f"Your sealed vote: {me['ballot']}")
    if view["over"] and view.get("result"):
        lines.append(view["result"]["summary"])
    return "\n".join(lines)


def explain(move) -> str:
    """What a move does, in words, shown with the move where it is offered (the card's text)."""
    words = move.get("notation", "").split()
    if len(words) == 2 and words[0] in ("play", "discard", "give") and words[1] in rules.CARDS:
        return rules.card_text(words[1])
    return ""


def _left(view, p):
    """How a seat that left is marked: a forfeit the platform applied is no resignation."""
    if not view["resigned"][p]:
        return ""
    return " (out of time)" if p in view.get("_out_of_time", ()) else " (resigned)"


def default_label(action: dict) -> str:
    """A vote's default, which no voter may send (rules.NO_MARKER): what their time running out gives."""
    if action.get("type") == "vote" and action.get("marker") == "none":
        return "No marker: your vote counts for no one"
    return ""
