"""Event schema versions and upcasting (the eventsourcing library's ``class_version`` and
``upcast_v1_v2``, for plain-dict events).

Every stored event carries the schema version of its type at the time it was written
(``Event.schema_version``; NULL for events stored before versions existed, which are
version 1). An engine that changes the shape of one of its events raises that type's
version and adds the step that turns the old shape into the new one, in its rules module::

    EVENT_VERSIONS = {"rolled": 2}              # types not named are at version 1

    def upcast_rolled_v1_v2(data):              # pure: old data in, new data out
        return {**data, "dice": [data["die"]]}

The store upcasts on read (``upcast``, the one place), so ``evolve``, ``redact`` and
``describe`` only ever see the current shapes; stored rows are never rewritten.

Snapshots carry the engine's ``RULES_VERSION`` (default 1): raising it after changing what
``evolve`` builds makes the store ignore older snapshots (it replays from the events) and
``rebuild_projections`` write new ones.
"""

from __future__ import annotations

from typing import Any

from games.engine import Event, Rules

# The platform's own events (games.engine.PLATFORM_EVENTS): same scheme, upcasters here.
PLATFORM_EVENT_VERSIONS: dict[str, int] = {}


def _versions(rules: Rules | Any) -> dict[str, int]:
    return getattr(rules, "EVENT_VERSIONS", None) or {}


def current_version(rules: Rules | Any, type_: str) -> int:
    """The version an event of this type is written at now."""
    return PLATFORM_EVENT_VERSIONS.get(type_) or _versions(rules).get(type_, 1)


def rules_version(rules: Rules | Any) -> int:
    """The version of what the engine's ``evolve`` builds: snapshots of another are stale."""
    return getattr(rules, "RULES_VERSION", 1)


def _step(rules: Rules | Any, type_: str, version: int):
    name = f"upcast_{type_}_v{version}_v{version + 1}"
    return globals().get(name) if type_ in PLATFORM_EVENT_VERSIONS else getattr(rules, name, None)


def upcast(rules: Rules | Any, type_: str, data: dict, version: int | None) -> Event:
    """A stored event in the current shape of its type (``version`` None: version 1)."""
    version = version or 1
    target = current_version(rules, type_)
    while version < target:
        data = _step(rules, type_, version)(data)
        version += 1
    return {"type": type_, "data": data}


def missing_upcasters(rules: Rules | Any) -> list[str]:
    """The upcasting steps an engine's EVENT_VERSIONS call for but it lacks (checked at start-up)."""
    return [f"upcast_{t}_v{v}_v{v + 1}" for t, top in _versions(rules).items() for v in range(1, top)
            if _step(rules, t, v) is None]
