"""The rules page of each game: how to play in our own words, every card's text generated from
the game's data files (so a publisher's deck dropped into data/ shows here as it plays), and the
game's RULES.md (every reading of the rulebook we made) rendered as HTML."""

from __future__ import annotations

from functools import cache
from pathlib import Path

from markdown_it import MarkdownIt

from games.karenza import rules as karenza
from games.kenta import rules as kenta
from games.kenta.render import _objective_text
from games.kinapa import rules as kinapa
from games.knonsters import rules as knonsters
from games.project_kin import rules as project_kin

GAMES = Path(__file__).resolve().parents[2] / "games"

# How to play, in a few paragraphs each: our own words, from the rulebooks in shared/rules/
# and the games' RULES.md. The details (every case, every gap we filled) follow on the page.
SUMMARIES = {
    "kenta": [
        "A race of 2 to 5 pawns round a loop of 30 squares towards a finish line that moves. Each turn "
        "the two dice (black and white, faces I–IV) are rolled for you: choose one; the Kenta disc turns "
        "to its colour and its value's action is played. Doubles flip the disc and start a secret vote on "
        "moving the finish line.",
        "While the disc shows a colour, the squares of that colour are active: a pawn that ends a move on "
        "one goes 2 squares on or back, as its arrow says. Ending a move on a card square draws an action "
        "card. Hot spot sprints score 1, 3 and 2 points for the first, second and last player through.",
        "Action cards move you, another player or everyone. When someone plays one, every other player "
        "may answer with STOP (a reaction window: nobody learns who could have stopped it). Your secret "
        "objective scores at the end, with the race ranks, the hot spots and point cards.",
    ],
    "karenza": [
        "A sword duel for two: Michi against Eka, each with their own 32-card deck and 7 cards in hand. "
        "A turn is exactly one action: draw (never while swords are crossed), attack, defend, play a trick, "
        "or pass.",
        "An attack or defence technique has a trajectory from one corner to another and a power. A "
        "sequence must flow: each technique starts in the corner where the last one ended. A defence at "
        "least as strong as the attack parries it; a weaker one loses the exchange, and a clean strike "
        "scores. Add-ons raise the power of the technique they are played with; abilities bend the rules "
        "as their text says.",
        "When a deck runs out it is the last hand: nobody may draw, and the game ends at the next clean "
        "strike or when both players pass in a row. Most points wins; equal points is a draw.",
    ],
    "project_kin": [
        "Two players, Red (from the bottom) and Blue (from the top), race pawns along a board of spaces "
        "joined by solid lines (with a forward direction for each player) and dotted lines (either way). "
        "Each turn: roll the d4 and move a piece, spawn a piece from an empty base and move it, or pass "
        "the bomb along a chain of your own pieces.",
        "Landing on an enemy piece takes it. A piece on its own guard space stops enemies moving past it, "
        "turrets shoot an enemy that ends its turn on their target, and a retake space gives another turn. "
        "Win by taking every enemy piece on the board, by bringing all your pawns to the "
        "enemy base, or by delivering the bomb from the objective. Demolition mode and the To Kingdom Come "
        "variant (King, Wall, Sage, Bulldozer, ability points) are options of the new-game form.",
    ],
    "kinapa": [
        "A bluffing and memory game for 2 or 4 to 8 players. Each round the Emperor announces a number "
        "(“KINAPA a 7?”). Everyone else answers in secret at the same time: raise a hand (“I don't have "
        "the card”) or do nothing (“maybe I have it, maybe not”).",
        "If two or more players did nothing, the Emperor takes a card at random from one of them; if one "
        "or nobody did, the Emperor demands the announced card from whoever holds it. Either way the "
        "Emperor gives back a card of their choice, never the one just received. An Emperor who announced "
        "a pair they already hold shows it and, if anybody did nothing, takes a card at random from one of them.",
        "Pairs are animal and shelter cards of the same number. At the end of a turn the Emperor turns "
        "over an object card; holding the pair of one of its numbers puts it down there. An object once "
        "seen stays known to everybody. The Emperor who puts down their second pair wins (with two "
        "players: the first to get rid of their hand).",
        "Lying is allowed but risky: a player who raised a hand while holding the demanded card is caught, "
        "gets the Fox cards and plays with their hand face up for everyone. The next Emperor is chosen "
        "among the players who raised a hand, first those without a Sheep card.",
    ],
    "knonsters": [
        "Four Knonsters race along a track of 60 squares; 2 to 4 players each secretly choose two of them "
        "as favourites and score by their places on the podium.",
        "In turn, each player plays one card from their hand: move a Knonster forward or back, move the "
        "Knonster of a given rank, or move a Knonster up to a number of squares. A card that moves "
        "nobody is discarded. With Superpowers on, each Knonster has a power of its own.",
        "The game ends as soon as the third Knonster crosses the finish line (or when the deck runs out). "
        "Favourites then score by their rank; a favourite revealed early can be bet on for more.",
    ],
}


def _md():
    return MarkdownIt("commonmark", {"html": False}).enable("table")


@cache
def interpretations(slug: str) -> str:
    """The game's RULES.md as HTML (raw HTML in it is escaped, not passed through)."""
    path = GAMES / slug / "RULES.md"
    return _md().render(path.read_text(encoding="utf-8")) if path.exists() else ""


def card_sections(slug: str) -> list[dict]:
    """Every card of the game with its text, from the rules module's data."""
    if slug == "kenta":
        return [
            {"title": "Action cards", "cards": [
                {"name": c["name"], "meta": f"{c['copies']}×" + (f" · {c['points']} points" if c["points"] else "")
                 + (" · STOP" if c["stop"] else ""), "text": kenta.card_text(k)} for k, c in kenta.CARDS.items()]},
            {"title": "Objective cards", "cards": [
                {"name": k.replace("-", " ").capitalize(), "meta": "secret", "text": _kenta_objective(k)}
                for k in kenta.OBJECTIVES]},
        ]
    if slug == "karenza":
        out = []
        for deck in karenza.DECKS.values():
            cards = []
            for code in deck["list"] if isinstance(deck["list"], list) else deck["cards"]:
                c = karenza.CARDS[code]
                if c["type"] == "technique":
                    a, b = c["trajectory"]
                    text = (f"{c['function'].capitalize()} technique, power {c['power']}, from the "
                            f"{karenza.CORNER_NAMES[a]} to the {karenza.CORNER_NAMES[b]} corner.")
                else:
                    text = c.get("text", "")
                cards.append({"name": c["name"], "meta": f"{c['copies']}× · {c['type']}", "text": text})
            out.append({"title": f"{deck['name']}'s deck", "intro": deck.get("style", ""), "cards": cards})
        return out
    if slug == "kinapa":
        return [
            {"title": "Animals", "cards": [{"name": f"{c['number']}", "meta": "animal", "text": c["name"]}
                                           for c in kinapa.CARDS["animals"]]},
            {"title": "Shelters", "cards": [{"name": f"{c['number']}", "meta": "shelter", "text": c["name"]}
                                            for c in kinapa.CARDS["shelters"]]},
            {"title": "Object cards", "cards": [{"name": f"{o['numbers'][0]}–{o['numbers'][1]}", "meta": "object",
                                                 "text": o["name"]} for o in kinapa.CARDS["objects"]]},
        ]
    if slug == "knonsters":
        counts: dict[str, int] = {}
        for code in knonsters.DECK["deck"]:
            counts[code] = counts.get(code, 0) + 1
        powers = [{"name": k, "meta": "superpower", "text": f"{k} {knonsters.POWER_TEXT[p]}."}
                  for k, p in knonsters.POWERS.items()]
        return [
            {"title": "Cards", "cards": [{"name": knonsters.card_label(code), "meta": f"{counts.get(code, 0)}×",
                                          "text": knonsters.card_text(code)} for code in knonsters.CARDS]},
            {"title": "Superpowers (option)", "cards": powers},
        ]
    if slug == "project_kin":
        p = project_kin.PIECES
        specials = ", ".join(f"{n} {k}" for k, n in p["specials"].items())
        return [{"title": "Pieces", "cards": [
            {"name": "Pawns", "meta": f"{p['pawns']} each", "text": "Move by the d4 roll; bring them all to the enemy base to win."},
            {"name": "Final piece", "meta": f"{p['final_pieces']} each", "text": "Enters in the last phase (see §7 below)."},
            {"name": "To Kingdom Come", "meta": "variant",
             "text": f"A King ({p['king_points']} ability points), {p['extra_normals']} extra pawns and {specials}."},
        ]}]
    return []


def _kenta_objective(key):
    return _objective_text(key)
