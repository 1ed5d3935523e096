"""Project_Kin's board as an inline SVG fragment, drawn from a view only.

The board graph and its coordinates come from data/board.json (rules.BOARD).
Red (seat 0) plays from the bottom upwards, Blue (seat 1) from the top downwards.
"""

from __future__ import annotations

from html import escape

from games.icons import legend, swatch

from . import rules

COLOURS = ["#c62828", "#1565c0"]
LIGHT = ["#ffcdd2", "#bbdefb"]
KIND_FILL = {
    "base": "#fff8e1", "guard": "#fff3e0", "track": "#ffffff", "loop": "#f3e5f5", "turret": "#eceff1",
    "retake": "#e8f5e9", "ambush": "#f1f8e9", "bomb": "#fbe9e7", "objective": "#fffde7",
}
LETTER = {"normal": "", "final": "F", "king": "K", "wall": "W", "sage": "S", "bulldozer": "D"}

CSS = """
<style>
.pk-wrap{font-family:system-ui,sans-serif;max-width:720px;margin:0 auto}
.pk-status{display:flex;flex-wrap:wrap;gap:.4em 1em;margin:.3em 0;font-size:.95em}
.pk-status b.pk-red{color:#c62828}.pk-status b.pk-blue{color:#1565c0}
.pk-board{width:100%;height:auto;display:block;background:#fafafa;border:1px solid #ddd;border-radius:6px}
.pk-node{stroke:#555;stroke-width:.5}
.pk-node-label{font-size:3.8px;fill:#555;text-anchor:middle;pointer-events:none}
.pk-piece-label{font-size:4px;fill:#fff;text-anchor:middle;font-weight:bold;pointer-events:none}
.pk-small{font-size:3.8px;fill:#333}
.pk-hit{fill:transparent;stroke:none}
.pk-edge{stroke:#888;stroke-width:.8}
.pk-dotted{stroke:#888;stroke-width:.8;stroke-dasharray:1.5 1.5}
.pk-loop{fill:none;stroke-width:.6;stroke-dasharray:2 1.5;opacity:.7}
.pk-aim{stroke:#e53935;stroke-width:.5;stroke-dasharray:.8 .8}
.pk-move{cursor:pointer}
.pk-move circle.pk-node{stroke:#2e7d32;stroke-width:1.2}
.pk-last{stroke:#ff9800;stroke-width:1;fill:none}
.pk-legend{font-size:.8em;color:#555;margin:.3em 0}
</style>
"""


LEGEND = legend([
    ('<b style="color:#c62828">Red</b> / <b style="color:#1565c0">Blue</b>', "Red plays up the board from the bottom base, Blue down from the top."),
    (swatch(LIGHT[0]), "A base (large square), its guard space (round) and its turrets (small squares), in their side's colour."),
    ('<svg viewBox="0 0 20 20" width="24" height="24" aria-hidden="true"><path d="M2 10h16" stroke="#e53935" stroke-width="2" stroke-dasharray="2 2"/></svg>',
     "Thin red dashes: what a turret aims at. An enemy piece that ends its turn there is shot back to its spawn pool."),
    (swatch(KIND_FILL["retake"]), "Retake: landing here gives another turn."),
    (swatch(KIND_FILL["bomb"]), "Bomb space: pick up the bomb here (a ringed piece carries it)."),
    ('<svg viewBox="0 0 20 20" width="20" height="20" aria-hidden="true"><polygon points="10,2 18,10 10,18 2,10" fill="#fffde7" stroke="#555"/></svg>',
     "Objective: deliver the bomb from here to win."),
    (swatch(KIND_FILL["loop"]), "Loop space: the coloured arcs lead from the end of the middle track back home."),
    ('<svg viewBox="0 0 20 20" width="20" height="20" aria-hidden="true"><path d="M2 10h16" stroke="#888" stroke-width="2" stroke-dasharray="3 3"/></svg>',
     "Dotted line: either way, and it ends the move. Solid lines have a forward direction."),
    ("L4, M5, BT", "Under each space: its name, as written in moves (move r2 M3)."),
    ("1–4, F, K", "On a piece: pawns 1–4, F the final piece, K the King; x1–x3 extra pawns; W Wall, S Sage, D Bulldozer."),
    ('<svg viewBox="0 0 20 20" width="20" height="20" aria-hidden="true"><circle cx="10" cy="10" r="6" fill="none" stroke="#2e7d32" stroke-width="2.5"/></svg>',
     "Green ring: a space your move can end on; tap it."),
], "Board legend")


def _txt(x, y, s, cls="pk-small", anchor="start"):
    return f'<text x="{x}" y="{y}" class="{cls}" text-anchor="{anchor}">{escape(str(s))}</text>'


def render(view, seat, names):
    if not view:
        return '<div class="pk-wrap">The game has not started.</div>'
    names = [str(names[i]) if i < len(names) else rules.SEAT_NAMES[i] for i in (0, 1)]
    by_dest, by_piece = _move_targets(view.get("moves") or [], view["turn"])
    vb = rules.BOARD["raw"]["viewbox"]
    svg = [f'<svg class="pk-board" viewBox="{vb[0]} {vb[1]} {vb[2]} {vb[3]}" width="100%" role="img" '
           f'aria-label="Project_Kin board" xmlns="http://www.w3.org/2000/svg">']
    svg += _edges()
    svg += _loops()
    svg += _turret_aims()
    svg += _nodes(by_dest)
    svg += _last_move(view)
    svg += _board_pieces(view, by_dest, by_piece)
    svg += _pools(view["pieces"])
    svg += _object_pool(view)
    svg += _tracker(view["bomb"])
    svg.append("</svg>")
    return "".join([CSS, '<div class="pk-wrap">', _status(view, names), "".join(svg), "</div>"])


def _move_targets(moves, turn):
    """The notations of the legal moves that a tap on a space (by_dest) or on a piece (by_piece)
    stands for: a move to a space, or a pass or defuse naming a piece; spawning lands on the base."""
    by_dest, by_piece = {}, {}
    for m in moves:
        a = m["action"]
        if a["type"] in ("move", "special"):
            by_dest.setdefault(a["to"], []).append(m["notation"])
        elif a["type"] in ("pass", "defuse"):
            by_piece.setdefault(a.get("to") or a.get("carrier"), []).append(m["notation"])
        elif a["type"] == "spawn":
            by_dest.setdefault(rules.BOARD["base"][turn["seat"]], []).append(m["notation"])
    return by_dest, by_piece


def _status(view, names):
    """The line above the board: each side's counts, whose turn it is, where the bomb is."""
    st = [_seat_status(view, names, s) for s in (0, 1)]
    result, turn, bomb = view.get("result"), view["turn"], view["bomb"]
    if result:
        st.append(f"<span><b>{escape(result['summary'])}</b></span>")
    else:
        who = escape(names[turn["seat"]])
        if turn["phase"] == "move":
            st.append(f"<span>Turn {turn['number']}: <b>{who}</b> rolled <b>{turn['roll']}</b> and must move.</span>")
        else:
            st.append(f"<span>Turn {turn['number']}: <b>{who}</b> to play.</span>")
    if bomb["carrier"]:
        b = f"Bomb carried by {bomb['carrier']}"
        if bomb["turns_left"] is not None:
            b += f"; detonates in {bomb['turns_left']} turn(s)"
        if bomb.get("fuse_seconds"):
            b += f"; wall-clock fuse {bomb['fuse_seconds']} s from pick-up"
        st.append(f"<span>{escape(b)}.</span>")
    else:
        st.append("<span>The bomb is on the bomb space.</span>")
    return '<div class="pk-status">' + "".join(st) + "</div>"


def _seat_status(view, names, s):
    cls = "pk-red" if s == 0 else "pk-blue"
    bits = [f"out {view['out'][s]}/{rules.PIECES['pawns']}", f"on board {view['active'][s]}"]
    if view["options"]["variant"] == "to_kingdom_come":
        bits.append(f"ability points {view['points'][s]}")
    if view["immune"][s]:
        bits.append("safe from elimination")
    if view["limited"][s]:
        bits.append("max 3 active")
    return f'<span><b class="{cls}">{escape(names[s])} ({rules.SEAT_NAMES[s]})</b>: {escape(", ".join(bits))}</span>'


def _edges():
    nodes = rules.BOARD["nodes"]
    out = []
    for e in rules.BOARD["edges"]:
        a, c = nodes[e["a"]], nodes[e["b"]]
        cls = "pk-dotted" if e["style"] == "dotted" else "pk-edge"
        out.append(f'<line class="{cls}" x1="{a["x"]}" y1="{a["y"]}" x2="{c["x"]}" y2="{c["y"]}"/>')
    return out


def _loops():
    """The arcs from the end of the middle track back to each home base."""
    board, nodes = rules.BOARD, rules.BOARD["nodes"]
    out = []
    for s in (0, 1):
        a, c = nodes[board["loop"][s]], nodes[board["base"][s]]
        side = -1 if s == 0 else 1
        cx = min(a["x"], c["x"]) - 40 if s == 0 else max(a["x"], c["x"]) + 40
        out.append(f'<path class="pk-loop" stroke="{COLOURS[s]}" d="M{a["x"]},{a["y"]} Q{cx},{(a["y"] + c["y"]) / 2 + side * 5} {c["x"]},{c["y"]}"/>')
    return out


def _turret_aims():
    """The red lines from each turret to the spaces it shoots at."""
    nodes = rules.BOARD["nodes"]
    out = []
    for t, targets in rules.BOARD["turrets"].items():
        for tg in targets:
            a, c = nodes[t], nodes[tg]
            out.append(f'<line class="pk-aim" x1="{a["x"]}" y1="{a["y"]}" x2="{c["x"]}" y2="{c["y"]}"/>')
    return out


def _nodes(by_dest):
    return [_node(nid, rules.BOARD["nodes"][nid], by_dest.get(nid, [])) for nid in rules.BOARD["order"]]


def _node(nid, nd, notes):
    """A space, its name under it, and, when one legal move ends there, that move on a tap."""
    r = 5.2 if nd["kind"] == "base" else 4.2
    fill = KIND_FILL[nd["kind"]]
    if nd["kind"] in ("base", "guard", "turret"):
        fill = LIGHT[nd["seat"]]  # a turret shows the side it belongs to
    title = escape(nd.get("label") or f"{nid} ({nd['kind']})")
    shape = (f'<rect class="pk-node" x="{nd["x"] - r}" y="{nd["y"] - r}" width="{2 * r}" height="{2 * r}" rx="1.5" fill="{fill}"/>'
             if nd["kind"] in ("base", "turret") else
             f'<circle class="pk-node" cx="{nd["x"]}" cy="{nd["y"]}" r="{r}" fill="{fill}"/>')
    if nd["kind"] == "objective":
        shape = f'<polygon class="pk-node" fill="{fill}" points="{nd["x"]},{nd["y"] - 5} {nd["x"] + 5},{nd["y"]} {nd["x"]},{nd["y"] + 5} {nd["x"] - 5},{nd["y"]}"/>'
    label = _txt(nd["x"], nd["y"] + r + 3.4, nid, "pk-node-label", "middle")
    if len(notes) == 1:
        hit = f'<circle class="pk-hit" cx="{nd["x"]}" cy="{nd["y"] + 1.5}" r="7"/>'  # a finger, not a pixel
        return f'<g class="pk-move" data-notation="{escape(notes[0])}"><title>{title}: {escape(notes[0])}</title>{hit}{shape}{label}</g>'
    return f"<g><title>{title}</title>{shape}{label}</g>"


def _last_move(view):
    """A ring on the space the last move ended on."""
    nodes = rules.BOARD["nodes"]
    if view.get("last_move"):
        _pid, frm, to = view["last_move"]
        if frm in nodes and to in nodes:
            return [f'<circle class="pk-last" cx="{nodes[to]["x"]}" cy="{nodes[to]["y"]}" r="5.6"/>']
    return []


def _board_pieces(view, by_dest, by_piece):
    """The pieces on the board, and the bomb on its space when nobody carries it."""
    nodes = rules.BOARD["nodes"]
    bomb = view["bomb"]
    out = []
    for p in view["pieces"]:
        if p["zone"] != "board":
            continue
        nd = nodes[p["at"]]
        own = by_piece.get(p["id"])
        if not (own and len(own) == 1):
            own = by_dest.get(p["at"])  # drawn over the space a move lands on: a tap on it is a tap on the space
        out.append(_piece_svg(p, nd["x"], nd["y"], 3.4, bomb["carrier"] == p["id"], own))
    if not bomb["carrier"]:
        nd = nodes[rules.BOARD["bomb"]]
        out.append(f'<circle cx="{nd["x"] + 3}" cy="{nd["y"] - 3}" r="1.8" fill="#212121"><title>The bomb</title></circle>')
    return out


_POOL_TITLES = {"spawn": "Spawn", "out": "Out", "final": "Final", "extra": "Extra"}


def _pools(pieces):
    out = []
    for kind, boxes in rules.BOARD["raw"]["pools"].items():
        if kind == "object":
            continue
        for s in (0, 1):
            out += _pool(boxes[s], kind, [p for p in pieces if p["seat"] == s and p["zone"] == kind], LIGHT[s])
    return out


def _pool(box, kind, inpool, fill):
    """One side's pool: its box, its title, its pieces in rows, and how many do not fit."""
    title = _POOL_TITLES[kind]
    out = [f'<rect x="{box["x"]}" y="{box["y"]}" width="{box["w"]}" height="{box["h"]}" fill="{fill}" stroke="#999" stroke-width=".3" rx="1"/>',
           _txt(box["x"] + 1, box["y"] + 3.2, title)]
    # the pieces start after the title (3.8-unit letters, at most 2.4 wide), never under it
    start = 1 + len(title) * 2.4 + 3
    per_row = max(1, int((box["w"] - start) // 4.2))
    rows = max(1, int(box["h"] // 4.4))
    shown = inpool[:per_row * rows]
    for i, p in enumerate(shown):
        row, col = divmod(i, per_row)
        cy = box["y"] + (box["h"] / 2 if rows == 1 else 2.3 + row * 4.4)
        out.append(_piece_svg(p, box["x"] + start + col * 4.2, cy, 1.9, False, None, small=True))
    if len(inpool) > len(shown):
        out.append(_txt(box["x"] + 1, box["y"] + box["h"] - 1, f"+{len(inpool) - len(shown)}"))
    return out


def _object_pool(view):
    """The object pool: the die, showing the last roll in the roller's colour."""
    ob = rules.BOARD["raw"]["pools"]["object"]
    out = [f'<rect x="{ob["x"]}" y="{ob["y"]}" width="{ob["w"]}" height="{ob["h"]}" fill="#f5f5f5" stroke="#999" stroke-width=".3" rx="1"/>']
    if view.get("last_roll"):
        s, v = view["last_roll"]
        out.append(f'<rect x="{ob["x"] + 2}" y="{ob["y"] + 3}" width="10" height="10" rx="2" fill="#fff" stroke="{COLOURS[s]}" stroke-width=".8"/>')
        out.append(_txt(ob["x"] + 7, ob["y"] + 10.5, v, "pk-node-label", "middle").replace('class="pk-node-label"', 'class="pk-node-label" style="font-size:6px;fill:#000"'))
        out.append(_txt(ob["x"] + 13, ob["y"] + 9, "d4"))
    return out


def _tracker(bomb):
    """The turn tracker, with the countdown's marker on it while a bomb counts down."""
    tr = rules.BOARD["raw"]["tracker"]
    n = rules.BOARD["tracker"]
    out = [_txt(tr["x"] - 8, tr["y"] - 2, "Turn tracker")]
    cell = tr["h"] / n
    for i in range(n):
        y = tr["y"] + i * cell
        out.append(f'<rect x="{tr["x"]}" y="{y}" width="{tr["w"]}" height="{cell}" fill="#fff" stroke="#999" stroke-width=".3"/>')
    if bomb.get("tracker_pos") is not None:
        frm = bomb["countdown_from"]
        i = bomb["tracker_pos"]
        idx = (n - 1 - i) if frm == 0 else i  # Red's side is the bottom, Blue's the top
        y = tr["y"] + idx * cell + cell / 2
        out.append(f'<circle cx="{tr["x"] + tr["w"] / 2}" cy="{y}" r="{min(cell, tr["w"]) / 3}" fill="{COLOURS[frm]}"><title>Marker: {bomb["turns_left"]} turn(s) left</title></circle>')
        out.append(_txt(tr["x"] + tr["w"] / 2, tr["y"] + tr["h"] + 4, f"{bomb['turns_left']} left", "pk-small", "middle"))
    return out


def _piece_svg(p, x, y, r, carrier, notations, small=False):
    s = p["seat"]
    letter = LETTER[p["type"]] or p["id"][1:]
    ring = f'<circle cx="{x}" cy="{y}" r="{r + 1.1}" fill="none" stroke="#212121" stroke-width="1" stroke-dasharray="1 .6"/>' if carrier else ""
    # In the pools only the special pieces carry their letter (a pawn's number is in its tooltip).
    size = ' style="font-size:3px"' if small else ""
    text = "" if small and not LETTER[p["type"]] else (
        f'<text x="{x}" y="{y + (1.3 if not small else 1.1)}" class="pk-piece-label"{size}>{escape(letter)}</text>')
    body = f'{ring}<circle cx="{x}" cy="{y}" r="{r}" fill="{COLOURS[s]}" stroke="#fff" stroke-width=".4"/>{text}'
    if notations and len(notations) == 1 and not small:
        body = f'<circle class="pk-hit" cx="{x}" cy="{y}" r="7"/>' + body
    title = f"<title>{escape(rules.SEAT_NAMES[s])} {escape(p['type'])} {escape(p['id'])}{' (carries the bomb)' if carrier else ''}</title>"
    if notations and len(notations) == 1:
        return f'<g class="pk-move" data-notation="{escape(notations[0])}">{title}{body}</g>'
    return f"<g>{title}{body}</g>"


def render_text(view, seat, names):
    """The same picture in plain text for the plain part of emails (from the seat's view only)."""
    if not view:
        return "The game has not started."
    names = [str(names[i]) if i < len(names) else rules.SEAT_NAMES[i] for i in (0, 1)]
    lines = []
    for s in (0, 1):
        mine = [p for p in view["pieces"] if p["seat"] == s]
        where = ", ".join(f"{p['id']}{'' if p['type'] == 'normal' else ' (' + p['type'] + ')'} on {rules._nname(p['at'])}"
                          for p in mine if p["zone"] == "board") or "none"
        waiting = sum(1 for p in mine if p["zone"] != "board")
        bits = [f"out {view['out'][s]}/{rules.PIECES['pawns']}", f"on the board: {where}", f"{waiting} off the board"]
        if view["options"]["variant"] == "to_kingdom_come":
            bits.append(f"ability points {view['points'][s]}")
        lines.append(f"{names[s]} ({rules.SEAT_NAMES[s]}{', you' if s == seat else ''}): {'; '.join(bits)}")
    bomb = view["bomb"]
    if bomb["carrier"]:
        left = f"; detonates in {bomb['turns_left']} turn(s)" if bomb["turns_left"] is not None else ""
        lines.append(f"Bomb carried by {bomb['carrier']}{left}.")
    elif bomb.get("on_space", True) or not bomb.get("at"):
        lines.append("The bomb is on the bomb space.")
    else:
        lines.append(f"The bomb lies on {rules._nname(bomb['at'])}.")
    res, turn = view.get("result"), view["turn"]
    if res:
        lines.append(res["summary"])
    elif turn["phase"] == "move":
        lines.append(f"Turn {turn['number']}: {names[turn['seat']]} rolled {turn['roll']} and must move.")
    else:
        lines.append(f"Turn {turn['number']}: {names[turn['seat']]} to play.")
    return "\n".join(lines)
