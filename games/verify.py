"""Checks a stored game against its stream: the read model, the snapshots, and the dice.

Returns the first mismatch as a sentence, or None when everything agrees.
"""

from __future__ import annotations

from games.engine import canonical, evolve, replay
from games.models import Event, Game, Snapshot
from games.registry import get
from games.rng import Rng
from games.store import load_state


def first_mismatch(game: Game) -> str | None:
    rules = get(game.kind).rules
    rows = list(Event.objects.filter(game=game).order_by("seq"))
    for expected, row in enumerate(rows, start=1):
        if row.seq != expected:
            return f"event seq {row.seq} where {expected} was expected (a gap)"
    if len(rows) != game.version:
        return f"the game row says version {game.version} but the stream has {len(rows)} events"
    states: dict[int, str] = {0: "{}"}
    state: dict = {}
    for row in rows:
        state = evolve(rules, state, row.as_rules_event(rules))
        states[row.seq] = canonical(state)
    for snap in Snapshot.objects.filter(game=game).order_by("seq"):
        if snap.seq > len(rows) or canonical(snap.state) != states[snap.seq]:
            return f"snapshot at seq {snap.seq} differs from the replay"
    if rows and canonical(load_state(game, cached=False)) != states[len(rows)]:
        return "the loaded state differs from a full replay"
    if rows:
        result = rules.result(state)
        to_act = [] if result is not None else sorted(rules.to_act(state))
        if canonical(result) != canonical(game.result) or to_act != sorted(game.to_act):
            return "the game row (to_act/result) differs from the replay"
    if game.status == Game.FINISHED:
        return _rederive(game, rules, rows)
    return None


def _rederive(game, rules, rows) -> str | None:
    """Decide every command again from the revealed seed: the same events must come out."""
    from games.engine import clone

    batches: list[tuple[dict, list]] = []
    current: tuple[dict, list] | None = None
    for row in rows:
        if row.command is not None:
            current = (row.command, [])
            batches.append(current)
        if current is None:
            return f"event {row.seq} belongs to no command"
        current[1].append(row)
    state: dict = {}
    version = 0
    for command, batch in batches:
        rng = Rng(game.seed, version)
        if command.get("platform"):  # a platform fact (a timeout), not decided by the rules
            version += len(batch)
            continue
        if command.get("setup"):
            produced = rules.setup(len(game.seat_list), game.options, rng)
        else:
            produced = rules.decide(clone(state), command["seat"], command["action"], rng)
        stored = [r.as_rules_event(rules) for r in batch]
        if canonical(produced) != canonical(stored):
            return f"the command at seq {batch[0].seq} gives different events from the revealed seed"
        state = replay(rules, stored, state)
        version += len(batch)
    return None
