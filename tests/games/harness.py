"""Plays whole games with the bots and checks the rules contract on the way.

Every game's tests use this one harness (``play``) for the thousands of random
games: no exception, always ends, every legal action accepted, illegal ones
refused, ``decide`` leaves its input alone, replay equals the live state.
"""

from __future__ import annotations

import importlib

from games.engine import RESIGN, IllegalAction, apply, canonical, clone, decide_and_evolve, replay
from games.rng import Rng

NONSENSE = [{"type": "no-such-action"}, {}, {"type": None}]


def play(kind, n, options, seed, *, bot="random", max_steps=5000, check_every=7, resign_at=None):
    """One full game; returns (events, final state). ``kind`` is a registry Kind."""
    rules = kind.rules
    events = rules.setup(n, options, Rng(seed, 0))
    state = replay(rules, events)
    bots = [kind.bot(bot if isinstance(bot, str) else bot[s]) for s in range(n)]
    for step in range(max_steps):
        if rules.result(state) is not None:
            break
        acting = rules.to_act(state)
        thorough = step % check_every == 0
        if acting:
            seat = sorted(acting)[step % len(acting)]
            legal = rules.legal_actions(state, seat)
            assert legal, f"seat {seat} must act but has no legal action (step {step})"
            if thorough:
                _check_contract(rules, state, seat, legal, n, seed, len(events))
            if resign_at is not None and step == resign_at:
                action = RESIGN
            else:
                action = bots[seat](clone(state), seat, Rng(seed, f"bot:{step}"))
        else:
            timers = rules.timers(state)
            assert timers, f"nobody to act, no timer, and no result (step {step})"
            seat, action = None, timers[0]["action"]
        decided, expected = None, None
        if thorough:  # decide alone, then the state that decide_state must return
            before = canonical(state)
            decided = rules.decide(state, seat, action, Rng(seed, len(events)))
            assert canonical(state) == before, "decide changed the state it was given"
            expected = canonical(apply(rules, state, decided))
        new, state = decide_and_evolve(rules, state, seat, action, Rng(seed, len(events)))
        if thorough:
            assert new == decided, "decide_state's events differ from decide's"
            assert canonical(state) == expected, "decide_state's state differs from evolving its events"
        assert new, f"decide returned no event for {action}"
        events += new
    else:
        raise AssertionError(f"game did not end in {max_steps} steps")
    assert canonical(replay(rules, events)) == canonical(state), "replay differs from live state"
    return events, state


def _check_contract(rules, state, seat, legal, n, seed, version):
    for item in legal:
        assert set(item) >= {"notation", "label", "action"}
        rules.decide(state, seat, item["action"], Rng(seed, version))  # must not raise
    for bad in NONSENSE:
        try:
            rules.decide(state, seat, bad, Rng(seed, version))
        except IllegalAction:
            pass
        else:
            raise AssertionError(f"nonsense action {bad} was accepted")
    waiting = [s for s in range(n) if s not in rules.to_act(state)]
    for other in waiting:
        for item in legal[:3]:
            if item["action"] == RESIGN:
                continue
            try:
                rules.decide(state, other, item["action"], Rng(seed, version))
            except IllegalAction:
                pass
            else:
                raise AssertionError(f"seat {other} acted out of turn with {item['action']}")


def received(rules, state, events, seat):
    """Everything a seat (or spectator None) receives: the view, its moves, the log, and the
    board as the page and the emails draw it (HTML and text), and what the wait line says
    (games.selectors.waiting: whom the game waits for; the seat's own window's answers are its moves)."""
    view = rules.view(state, seat)
    to_act = rules.to_act(state)
    render = importlib.import_module(rules.__name__.rsplit(".", 1)[0] + ".render")
    names = [f"player{i}" for i in range(8)]
    return canonical({
        "view": view,
        "board": render.render(view, seat, names),
        "text": render.render_text(view, seat, names),
        "legal": rules.legal_actions(state, seat) if seat is not None else [],
        "log": [rules.redact(e, seat) for e in events],
        "waits_for": sorted(to_act), "asks": (to_act.get(seat) or {}).get("kind"),
    })
