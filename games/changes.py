"""What is new for a player since a version they saw: their own moves (never news to them) and
the board drawn with what changed marked (games.highlight)."""

from __future__ import annotations

import logging

from games import selectors
from games.highlight import CHANGED, mark_changes
from games.registry import get
from games.store import events_of

log = logging.getLogger("kinplay.games")
__all__ = ["CHANGED", "board", "marked", "own_moves"]

OWN_MOVES = ["player", "email", "resign"]  # how a command was made when the player made it (not a timeout)


def own_moves(game, seat: int | None, *, after: int = 0, upto: int | None = None) -> set[int]:
    """The seqs of the events of ``seat``'s own commands after ``after``: a command's first event
    carries it, and its events run up to the next command's (the bots' answers)."""
    if seat is None:
        return set()
    upto = game.version if upto is None else upto
    commands = events_of(game).filter(seq__gt=after, seq__lte=upto, command__isnull=False)
    starts = list(commands.order_by("seq").values_list("seq", flat=True))
    own = set(commands.filter(seat=seat, command__by__in=OWN_MOVES).values_list("seq", flat=True))
    seqs: set[int] = set()
    for i, start in enumerate(starts):
        if start in own:
            seqs.update(range(start, (starts[i + 1] if i + 1 < len(starts) else upto + 1)))
    return seqs


def board(game, user, *, at: int | None = None) -> str:
    """The board as ``user`` sees it at ``at`` (default now), drawn by the game ('' before it starts)."""
    data = selectors.game_for(game, user, at=at)
    if not data["view"]:
        return ""
    kind = get(game.kind)
    return kind.render(selectors.board_view(game, data["view"], at), data["you"], selectors.seat_names(game))


def marked(game, user, html: str, *, since: int, upto: int | None = None) -> str:
    """``html`` (the board drawn at ``upto``, default now) with what changed since version
    ``since`` marked; as it is when there is nothing to compare with (a first look, the setup)."""
    upto = game.version if upto is None else upto
    if not html or not since or since >= upto or since < selectors.first_viewable(game):
        return html
    try:
        return mark_changes(board(game, user, at=since), html)
    except Exception:  # a drawing bug in an old position must not hide the board
        log.exception("drawing game %s at %s failed", game.pk, since)
        return html
