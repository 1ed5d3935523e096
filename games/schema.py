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

An engine's ``RULES_VERSION`` (default 1) is raised whenever its rules change what a command
decides or what ``evolve`` builds, with a line under "Rules versions" in its RULES.md saying
what changed. Snapshots carry it: the store ignores another version's (it replays from the
events) and ``rebuild_projections`` writes new ones. Each command records it too
(``Event.command["rules"]``; absent on commands stored before: version 1), so ``verify_game``
tells a game played under older rules from a corrupted one.
"""

from __future__ import annotations

from typing import Any

from games.engine import Event, Rules

# The platform's own events (games.engine.PLATFORM_EVENTS): same scheme, upcasters here.
PLATFORM_EVENT_VERSIONS: dict[str, int] = {}


def _declared(rules: Rules | Any, name: str, default: Any) -> Any:
    """An engine's optional constant (EVENT_VERSIONS, RULES_VERSION), from its module's own
    attributes: getattr with a default pays for one the engine leaves out with an AttributeError
    made and dropped, about a microsecond, and a move asks eight times."""
    return vars(rules).get(name, default)


def _versions(rules: Rules | Any) -> dict[str, int]:
    return _declared(rules, "EVENT_VERSIONS", None) or {}


def current_version(rules: Rules | Any, type_: str) -> int:
    """The version an event of this type is written at now."""
    return PLATFORM_EVENT_VERSIONS.get(type_) or _versions(rules).get(type_, 1)


def rules_version(rules: Rules | Any) -> int:
    """The version of the engine's rules today: snapshots of another are stale."""
    return _declared(rules, "RULES_VERSION", 1)


def command_rules_version(command: dict) -> int:
    """The rules version a stored command was decided under."""
    return command.get("rules", 1)


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
