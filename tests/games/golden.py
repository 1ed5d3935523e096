"""Fingerprints of whole fixed-seed games, to prove an engine change keeps every output the same.

A fingerprint is the SHA-256 of everything a game produces along the way: each stored event,
what every seat (and a spectator) sees of it, its log line, and after every step each seat's
view, legal actions, what each seat's every legal action (and a few refused ones) would
give every few steps, ``to_act``, timers and result, plus the state a replay from ``{}`` gives.
A test records the digests of a few games and asserts them after a speed-up (the bots are part
of the game: their choices decide which events are recorded, so they are fingerprinted too).
"""

from __future__ import annotations

import hashlib

from games.engine import IllegalAction, canonical, clone, replay
from games.rng import Rng

NONSENSE = [{"type": "no-such-action"}, {}, {"type": None}, {"type": "resign"}]


def fingerprint(kind, n, options, seed, *, bot="random", max_steps=20_000, probe_every=5):
    rules = kind.rules
    digest = hashlib.sha256()
    names = [f"player{i}" for i in range(n)]
    seats = [*range(n), None]

    def add(*data):
        digest.update(canonical(data).encode())

    def record(new):
        for e in new:
            add("event", e, [rules.redact(e, s) for s in seats],
                [rules.describe(r, names) if (r := rules.redact(e, s)) is not None else None for s in seats])

    def look(state):
        add("look", [rules.view(state, s) for s in seats], [rules.legal_actions(state, s) for s in range(n)],
            sorted(rules.to_act(state).items()), rules.timers(state), rules.result(state))

    def probe(state, seat, step):
        """What every legal action, and a few refused ones, would give (not only the one played)."""
        tries = [item["action"] for item in rules.legal_actions(state, seat)] + NONSENSE
        for s in range(n):
            for action in tries:
                try:
                    add("probe", s, action, rules.decide(state, s, action, Rng(seed, f"probe:{step}")))
                except IllegalAction as exc:
                    add("refused", s, action, exc.reason)

    events = rules.setup(n, options, Rng(seed, 0))
    record(events)
    state = replay(rules, events)
    look(state)
    bots = [kind.bot(bot if isinstance(bot, str) else bot[s]) for s in range(n)]
    for step in range(max_steps):
        if rules.result(state) is not None:
            break
        acting = rules.to_act(state)
        if acting:
            seat = sorted(acting)[step % len(acting)]
            action = bots[seat](clone(state), seat, Rng(seed, f"bot:{step}"))
        else:
            seat, action = None, rules.timers(state)[0]["action"]
        if step % probe_every == 0 and seat is not None:
            probe(state, seat, step)
        new = rules.decide(state, seat, action, Rng(seed, len(events)))
        record(new)
        for e in new:
            state = rules.evolve(state, e)
        events += new
        look(state)
    else:
        raise AssertionError(f"game did not end in {max_steps} steps")
    add("final", state, replay(rules, events))
    return digest.hexdigest()
