"""Knonsters board as an HTML fragment with inline SVG (from a view only)."""

from __future__ import annotations

from html import escape

from games.icons import icon, legend
from games.knonsters import rules

COLOURS = {"Rithle": "#e0a526", "Aristas": "#d9493f", "Celya": "#3b82c4", "Elaari": "#3e9e5a"}
# The same colours, dark enough for text on white and under white text (4.5:1 or more, WCAG AA).
INK = {"Rithle": "#8f5f00", "Aristas": "#b8352b", "Celya": "#2a67a0", "Elaari": "#2b7742"}

STYLE = """<style>
.knonsters{font-family:system-ui,sans-serif;color:#222;max-width:960px}
.knonsters-track{width:100%;height:auto;display:block;background:#f7f3e8;border-radius:8px}
.knonsters-info{display:flex;flex-wrap:wrap;gap:.4rem;margin:.5rem 0;font-size:.9rem}
.knonsters-player{border:1px solid #ccc;border-radius:6px;padding:.3rem .5rem;background:#fff}
.knonsters-player.knonsters-turn{border-color:#222;box-shadow:0 0 0 2px #f0c040}
.knonsters-chip{display:inline-block;min-width:1.6em;text-align:center;border-radius:4px;color:#fff;font-size:.75rem;margin-right:2px;padding:0 2px}
.knonsters-hand{display:flex;flex-wrap:wrap;gap:.4rem;margin:.5rem 0}
.knonsters-card{width:84px;min-height:110px;border-radius:8px;border:2px solid #444;padding:.3rem;background:#fff;font-size:.8rem;box-sizing:border-box;cursor:pointer}
.knonsters-card b{display:block;font-size:1.1rem}
.knonsters-card.knonsters-dead{opacity:.55}
.knonsters-card small{display:block;font-size:.75rem;line-height:1.2;color:#444;margin-top:.2rem;overflow-wrap:anywhere}
.knonsters-note{font-size:.85rem;margin:.3rem 0}
</style>"""


LEGEND = legend([
    ('<span class="knonsters-chip" style="background:#2a67a0">1</span>', "A Knonster on the track: the number in its figure is its rank now (the number above it, its square)."),
    ('<span class="knonsters-chip" style="background:#555">2</span>', "Under each player: how many times they moved each Knonster."),
    (icon("star", "revealed favourite"), "A favourite that player has revealed."),
    (icon("heart", "favourites"), "Both favourites of a player (shown at the end)."),
    ('<span style="opacity:.55;font-weight:700">+5</span>', "A faded card moves nobody now: playing it discards it."),
    ("+7, +5", "Move that Knonster forward that many squares."),
    ("≤20", "Move that Knonster at most 20 squares, staying 2 behind the leader."),
    ("×3 lead", "Triple that Knonster's lead, when it alone has rank 1."),
    ("R3 +12", "Move the Knonster with that rank that many squares (nobody, if the rank is shared)."),
], "Board legend")


def _card(code, view, clickable):
    c = rules.CARDS.get(code, {})
    k = c.get("knonster")
    colour = COLOURS.get(k, "#555")
    moves = rules.simulate(view["positions"], view["podium"], code) if code in rules.CARDS else []
    verb = "play" if moves else "discard"
    attrs = f' data-notation="{escape(verb + " " + code)}"' if clickable else ""
    if c.get("kind") == "plus":
        big = f"+{c['steps']}"
    elif c.get("kind") == "upto":
        big = f"≤{c['steps']}"
    elif c.get("kind") == "triple":
        big = "×3 lead"
    else:
        big = f"R{c.get('rank')} +{c.get('steps')}"
    text = rules.card_text(code) if code in rules.CARDS else code
    # the card's words stay short (a hand of 16 shares a laptop's first screen with the board);
    # its tooltip says in full why a faded card would be discarded
    title, small = (text, text) if moves else (text + " (no effect now: it would be discarded)", text + " No effect now.")
    return (f'<div class="knonsters-card{"" if moves else " knonsters-dead"}" style="border-color:{colour}" '
            f'title="{escape(title)}"{attrs}><b style="color:{INK.get(k, "#555")}">{escape(big)}</b>'
            f'{escape(k or "by rank")}<small>{escape(small)}</small></div>')


def _track(view):
    goal = view["goal"]
    w, lane_h, left, top = 480, 36, 84, 22  # the names (13 units, bold) end before square 0's figure
    podium_w = 84
    h = top + lane_h * 4 + 24
    scale = (w - left - podium_w - 8) / goal
    fx = left + (goal - 0.5) * scale
    where = ", ".join(f"{k} {view['positions'][k]}" for k in view["knonsters"])
    parts = [f'<svg class="knonsters-track" viewBox="0 0 {w} {h}" width="100%" role="img" '
             f'aria-label="Race track: {escape(where)}">']
    for i in range(0, goal, 10):
        x = left + i * scale
        parts.append(f'<line x1="{x:.1f}" y1="{top - 4}" x2="{x:.1f}" y2="{top + lane_h * 4}" stroke="#ddd"/>'
                     f'<text x="{x:.1f}" y="{top + 14 + lane_h * 4}" font-size="11" text-anchor="middle">{i}</text>')
    parts.append(f'<line x1="{fx:.1f}" y1="{top - 8}" x2="{fx:.1f}" y2="{top + 4 + lane_h * 4}" stroke="#222" '
                 f'stroke-width="3" stroke-dasharray="4 3"/>'
                 f'<text x="{fx:.1f}" y="{top - 10}" font-size="10" text-anchor="middle">finish</text>')
    for idx, k in enumerate(view["knonsters"]):
        y = top + idx * lane_h + lane_h / 2
        col, ink = COLOURS.get(k, "#555"), INK.get(k, "#555")
        pos = view["positions"][k]
        parts.append(f'<text x="4" y="{y + 4:.1f}" font-size="13" fill="{ink}" font-weight="bold">{escape(k)}</text>')
        parts.append(f'<line x1="{left}" y1="{y:.1f}" x2="{fx:.1f}" y2="{y:.1f}" stroke="{col}" stroke-opacity=".3" stroke-width="8"/>')
        if k in view["podium"]:
            place = view["podium"].index(k) + 1
            parts.append(f'<text x="{fx - 6:.1f}" y="{y + 4:.1f}" font-size="11" text-anchor="end">on the podium: {place}</text>')
            continue
        x = left + min(pos, goal) * scale
        rank = view["ranks"][k]
        parts.append(f'<g><title>{escape(k)}: square {pos}, rank {rank}</title>'
                     f'<circle cx="{x:.1f}" cy="{y:.1f}" r="12" fill="{ink}" stroke="#222"/>'
                     f'<text x="{x:.1f}" y="{y + 4:.1f}" font-size="12" fill="#fff" text-anchor="middle" font-weight="bold">{rank}</text></g>'
                     f'<text x="{x:.1f}" y="{y - 13:.1f}" font-size="10" text-anchor="middle">{pos}</text>')
    px = w - podium_w
    parts.append(f'<text x="{px + 40}" y="{top - 6}" font-size="12" text-anchor="middle">Podium</text>')
    heights = [62, 46, 32]
    base = top + lane_h * 4
    for slot, place in enumerate([1, 0, 2]):
        bh = heights[place]
        x = px + slot * 27
        parts.append(f'<rect x="{x}" y="{base - bh}" width="25" height="{bh}" fill="#c9c2b0" stroke="#666"/>'
                     f'<text x="{x + 12.5}" y="{base - 4}" font-size="12" text-anchor="middle">{place + 1}</text>')
        if place < len(view["podium"]):
            k = view["podium"][place]
            parts.append(f'<g><title>{escape(k)}: place {place + 1}</title>'
                         f'<circle cx="{x + 12.5}" cy="{base - bh - 13}" r="12" fill="{INK.get(k, "#555")}" stroke="#222"/>'
                         f'<text x="{x + 12.5}" y="{base - bh - 9}" font-size="11" fill="#fff" text-anchor="middle" '
                         f'font-weight="bold">{escape(k[:2])}</text></g>')
    parts.append("</svg>")
    return "".join(parts)


def _nm(names, s):
    return names[s] if s is not None and 0 <= s < len(names) else f"Seat {s + 1}"


def render(view, seat, names):
    if not view:
        return STYLE + '<div class="knonsters">The game has not started.</div>'
    out = [STYLE, '<div class="knonsters">', _track(view)]
    out.append('<div class="knonsters-info">')
    out += [_player(view, s, names) for s in range(view["n"])]
    out.append("</div>")
    out.append(_notes(view, names))
    if view.get("last"):
        last = view["last"]
        out.append('<div class="knonsters-note">Last: ' + escape(
            rules.describe({"type": "played", "data": dict(last, discarded=not last["moves"])}, names)) + "</div>")
    if view.get("seat") is not None:
        out.append(_own(view, seat))
    res = view.get("result")
    if res:
        winners = " and ".join(_nm(names, w) for w in res["winners"])
        podium = ", ".join(view["podium"]) or "nobody"
        out.append(f'<div class="knonsters-note"><strong>Game over. Podium: {escape(podium)}. '
                   f'Winner{"s" if len(res["winners"]) > 1 else ""}: {escape(winners)}.</strong></div>')
    out.append("</div>")
    return "".join(out)


def _player(view, s, names):
    """Seat ``s``'s box: name, favourites shown, moves per Knonster, status."""
    cls = "knonsters-player" + (" knonsters-turn" if s in view.get("to_act", []) else "")
    chips = "".join(
        f'<span class="knonsters-chip" style="background:{INK.get(k, "#555")}" title="{escape(k)}">'
        f'{icon("star", "revealed favourite") if k in view["revealed"][s] else view["moved"][s][i]}</span>'
        for i, k in enumerate(view["knonsters"]))
    status = []
    if view["resigned"][s]:
        status.append("out of time" if s in view.get("_out_of_time", ()) else "resigned")
    if view["auto"][s]:
        status.append("automatic")
    if view["phase"] == "choose":
        status.append("has chosen" if view["chosen"][s] else "choosing")
    status.append(f"{view['hand_counts'][s]} cards")
    res = view.get("result")
    if res:
        status.append(f"{res['scores'][s]} pts, rank {res['ranks'][s]}")
    fav = ""
    if view.get("all_favourites") and view["all_favourites"][s]:
        bet = view["all_bets"][s]
        fav = (f" {icon('heart', 'favourites')} " + escape(" & ".join(view["all_favourites"][s]))
               + (f" (bet {escape(bet)})" if bet else ""))
    elif view["revealed"][s]:
        fav = f" {icon('star', 'revealed favourite')} " + escape(", ".join(view["revealed"][s]))
    return (f'<div class="{cls}"><strong>{escape(_nm(names, s))}</strong>{fav}<br>{chips} '
            f'<small>{escape(", ".join(status))}</small></div>')


def _notes(view, names):
    """The line under the players: draw pile, superpowers left, whose turn, whom the game waits for."""
    out = [f'<div class="knonsters-note">Draw pile: {view["pile_count"]} cards.']
    if view["options"].get("superpowers"):
        left = [k for k in view["knonsters"] if k not in view["powers_used"]]
        texts = view.get("power_texts", {})
        shown = ", ".join(f'<span title="{escape(k + ": " + texts.get(k, ""))}">{escape(k)}</span>' for k in left)
        out.append(" Superpowers left: " + (shown or "none") + ".")
    if view.get("turn") is not None and view["phase"] == "race":
        out.append(f" Turn: {escape(_nm(names, view['turn']))}.")
    if view.get("asking") is not None:
        out.append(f" Waiting for {escape(_nm(names, view['asking']))}: may the system finish the game for them?")
    out.append("</div>")
    return "".join(out)


def _own(view, seat):
    """What only the seat sees: its favourites and its hand (cards clickable on its turn)."""
    out = []
    favs = view.get("favourites")
    if favs:
        bet = f" (bet on {view['bet']})" if view.get("bet") else ""
        out.append(f'<div class="knonsters-note">Your favourites: {escape(" & ".join(favs))}{escape(bet)}</div>')
    my_turn = view["phase"] == "race" and view.get("turn") == seat and view.get("asking") is None
    out.append('<div class="knonsters-hand kp-hand">')
    for code in view.get("hand", []):
        out.append(_card(code, view, my_turn))
    out.append("</div>")
    return "".join(out)


def render_text(view, seat, names):
    """The same picture in plain text for the plain part of emails (from the seat's view only)."""
    if not view:
        return "The game has not started."
    lines = [f"Race to square {view['goal']}:"]
    for k in view["knonsters"]:
        if k in view["podium"]:
            lines.append(f"  {k:<8} on the podium, place {view['podium'].index(k) + 1}")
        else:
            lines.append(f"  {k:<8} square {view['positions'][k]:>2}, rank {view['ranks'][k]}")
    lines.append("Players:")
    res = view.get("result")
    for s in range(view["n"]):
        bits = [f"{view['hand_counts'][s]} card{'' if view['hand_counts'][s] == 1 else 's'}"]
        if view["revealed"][s]:
            bits.append("favourites shown: " + ", ".join(view["revealed"][s]))
        if view.get("all_favourites") and view["all_favourites"][s]:
            bits.append("favourites: " + " & ".join(view["all_favourites"][s]))
        if view["resigned"][s]:
            bits.append("out of time" if s in view.get("_out_of_time", ()) else "resigned")
        if res:
            bits.append(f"{res['scores'][s]} points, rank {res['ranks'][s]}")
        turn = " (to play)" if s in view.get("to_act", []) else ""
        lines.append(f"  {_nm(names, s)}{turn}: {', '.join(bits)}")
    lines.append(f"Draw pile: {view['pile_count']} cards.")
    if view.get("seat") is not None:
        favs = view.get("favourites")
        if favs:
            bet = f" (bet on {view['bet']})" if view.get("bet") else ""
            lines.append(f"Your secret favourites: {' & '.join(favs)}{bet}")
        hand = view.get("hand", [])
        lines.append(f"Your hand ({len(hand)} cards):")
        lines += [f"  {code}: {rules.card_text(code) if code in rules.CARDS else code}" for code in hand]
    if res:
        lines.append(res["summary"])
    return "\n".join(lines)


def explain(move) -> str:
    """What a move does, in words, shown with the move where it is offered (card and superpower)."""
    action = move.get("action") or {}
    code = action.get("card")
    if not isinstance(code, str) or code not in rules.CARDS:
        return ""
    text = rules.card_text(code)
    if action.get("type") == "power":
        k = action.get("knonster")
        return f"{k}'s superpower: {k} {rules.POWER_TEXT.get(rules.POWERS.get(k), '')}. Card: {text}"
    return text
