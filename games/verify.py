"""Checks a stored game against its stream: the read model, the snapshots, and the dice.

``verify`` returns a Verdict: the first mismatch as a sentence (None when everything agrees),
and notes on what today's rules could not prove. Each command records the engine's
RULES_VERSION it was decided under (games.schema); a game played before a rules change is
replayed as usual, but where today's rules decide one of its older commands differently, or
read its end differently, that is the rule change at work, not a corrupted game: a note,
not a mismatch.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from games.engine import IllegalAction, canonical, clone, evolve, replay
from games.models import Game, History, Snapshot
from games.registry import get
from games.rng import Rng
from games.schema import command_rules_version, rules_version
from games.store import load_state


@dataclass
class Verdict:
    problem: str | None = None  # the stream, a projection or the dice disagree: something is wrong
    notes: list[str] = field(default_factory=list)  # what was not proven, and why
    decided: int = 0  # a finished game's commands decided again from the revealed seed
    proven: int = 0  # of those, the ones that gave the stored events


def first_mismatch(game: Game) -> str | None:
    return verify(game).problem


def verify(game: Game) -> Verdict:
    rules = get(game.kind).rules
    today = rules_version(rules)
    rows = list(History.objects.filter(game=game).order_by("seq"))
    for expected, row in enumerate(rows, start=1):
        if row.seq != expected:
            return Verdict(f"event seq {row.seq} where {expected} was expected (a gap)")
    if len(rows) != game.version:
        return Verdict(f"the game row says version {game.version} but the stream has {len(rows)} events")
    played_under = sorted({command_rules_version(r.command) for r in rows if r.command is not None})
    older = [v for v in played_under if v != today]
    verdict = Verdict()
    if older:
        verdict.notes.append(
            f"played under rules {_versions(played_under)}; today's rules are version {today} "
            f"(the changes: games/{game.kind}/RULES.md, \"Rules versions\"). The replay is checked as always.")
    states: dict[int, str] = {0: "{}"}
    state: dict = {}
    for row in rows:  # on copies: an evolve may keep (and change) parts of an event, and _rederive reads them
        state = evolve(rules, state, clone(row.as_rules_event(rules)))
        states[row.seq] = canonical(state)
    stale = 0
    for snap in Snapshot.objects.filter(game=game).order_by("seq"):
        if snap.rules_version != today:  # the store ignores it too
            stale += 1
        elif snap.seq > len(rows) or canonical(snap.state) != states[snap.seq]:
            return Verdict(f"snapshot at seq {snap.seq} differs from the replay", verdict.notes)
    if stale:
        verdict.notes.append(f"{stale} snapshot(s) built under another rules version skipped, as the store skips "
                             "them (rebuild_projections replaces them)")
    if rows and canonical(load_state(game, cached=False)) != states[len(rows)]:
        return Verdict("the loaded state differs from a full replay", verdict.notes)
    if rows:
        result = rules.result(state)
        to_act = [] if result is not None else sorted(rules.to_act(state))
        if canonical(result) != canonical(game.result) or to_act != sorted(game.to_act):
            what = "the game row (to_act/result) differs from the replay"
            if not older:
                return Verdict(what, verdict.notes)
            verdict.notes.append(f"{what} with today's rules: expected where the rule changes touch the end "
                                 f"or scoring (rebuild_projections would store today's reading)")
    if game.status == Game.FINISHED:
        verdict.problem = _rederive(game, rules, rows, today, verdict)
    return verdict


def _rederive(game, rules, rows, today, verdict: Verdict) -> str | None:
    """Decide every command again from the revealed seed: the same events must come out. A
    command decided under older rules may come out otherwise: counted in the notes."""
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
    older = differ = 0
    for command, batch in batches:
        rng = Rng(game.seed, version)
        if command.get("platform"):  # a platform fact (a timeout), not decided by the rules
            version += len(batch)
            continue
        stored = [r.as_rules_event(rules) for r in batch]
        same_rules = command_rules_version(command) == today
        older += not same_rules
        try:
            if command.get("setup"):
                produced = rules.setup(len(game.seat_list), game.options, rng)
            else:
                produced = rules.decide(clone(state), command["seat"], command["action"], rng)
        except IllegalAction as exc:
            if same_rules:
                return f"the command at seq {batch[0].seq} is refused by the rules it was decided under: {exc.reason}"
            produced = None
        except Exception:  # older rules' state and actions may not fit today's code at all
            if same_rules:
                raise
            produced = None
        if produced is None or canonical(produced) != canonical(stored):
            if same_rules:
                return f"the command at seq {batch[0].seq} gives different events from the revealed seed"
            differ += 1
        else:
            verdict.proven += 1
        verdict.decided += 1
        state = replay(rules, stored, state)
        version += len(batch)
    if older:
        proven = "every roll and shuffle still re-derived" if not differ else \
            f"{differ} of them give other events today (expected from the rule changes; their rolls are not proven)"
        verdict.notes.append(f"re-decided with today's rules: {older} command(s) decided under older rules, {proven}")
    return None


def _versions(versions) -> str:
    return f"version {versions[0]}" if len(versions) == 1 else \
        f"versions {', '.join(map(str, versions[:-1]))} and {versions[-1]}"
