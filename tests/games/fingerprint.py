"""A fingerprint of everything players get from a recorded game, for golden tests.

Engine speed work must not change a rule: a fixed seed, player count and bots must still
record the same events, and replaying them must give every seat the same view, moves,
turn, log lines and result. ``fingerprint`` hashes all of that after every event, so
golden tests can pin the hash recorded before an optimisation and assert it after.
"""

from __future__ import annotations

import hashlib

from games.engine import canonical
from tests.games.harness import play


def fingerprint(kind, n, options, seed, *, bot="random") -> dict[str, str]:
    """sha256 of a bot game's events, of its final state, and of what every seat (and a
    spectator) receives after each event of its replay."""
    rules = kind.rules
    events, state = play(kind, n, options, seed, bot=bot, check_every=10**9)
    seats: list[int | None] = [*range(n), None]
    names = [f"player{i}" for i in range(n)]
    seen = hashlib.sha256()
    replayed: dict = {}
    for e in events:
        replayed = rules.evolve(replayed, e)
        redacted = [rules.redact(e, s) for s in seats]
        seen.update(canonical({
            "log": redacted,
            "lines": [rules.describe(r, names) for r in redacted if r is not None],
            "views": [rules.view(replayed, s) for s in seats],
            "legal": [rules.legal_actions(replayed, s) for s in range(n)],
            "to_act": {str(s): w for s, w in rules.to_act(replayed).items()},
            "timers": rules.timers(replayed),
            "result": rules.result(replayed),
        }).encode())
    return {
        "events": hashlib.sha256(canonical(events).encode()).hexdigest()[:16],
        "state": hashlib.sha256(canonical(state).encode()).hexdigest()[:16],
        "seen": seen.hexdigest()[:16],
    }
