"""The rules engines compiled to C by mypyc: the same Python source, built by bin/compile-engines
(`make run` and `make test` build it when a source changed), and used only while it is built
from the source as it is now.

build/engines/ holds the compiled modules and, in MANIFEST, the SHA-256 of every file they were
built from. ``use()``, called once as the games package is imported, compares that list with the
files as they are now: the same, the compiled modules are found first (each package's
``__path__`` starts with its build folder); anything else (a rule edited since the build, no
build, no compiler on this machine) and the Python source is imported, as if there were no
build. A stale build is never half used. KINPLAY_PURE_ENGINES=1 forces the Python source.

The compiled modules' ``__file__`` is in the build folder, so the engines' data files are
copied there too (and are in the manifest).
"""

from __future__ import annotations

import hashlib
import importlib
import json
import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent  # games/
ROOT = HERE.parent
BUILD = ROOT / "build" / "engines"
MANIFEST = "manifest.json"
# Every kind the server hosts, in the order players see them (games.registry.SLUGS is this list):
# kept here because this module loads before any engine and imports none.
KINDS = ("knonsters", "kenta", "karenza", "project_kin", "kinapa")
# What mypyc compiles: the hot path of a random game, a bot's move and a replay. render.py and
# the platform's modules stay Python.
COMPILED = ["games/engine.py", "games/rng.py"] + [f"games/{k}/{m}.py" for k in KINDS for m in ("rules", "bots")]

state = {"active": False, "why": "not checked yet"}


def sources() -> list[str]:
    """Every file a build is made from, relative to the project root: the compiled modules and
    the engines' data files."""
    data = sorted(str(p.relative_to(ROOT)) for k in KINDS for p in (HERE / k / "data").rglob("*") if p.is_file())
    return COMPILED + data


def digests(files: list[str]) -> dict[str, str]:
    return {f: hashlib.sha256((ROOT / f).read_bytes()).hexdigest() for f in files}


def manifest() -> dict:
    """What a build made from the source as it is now records, and what ``use()`` asks of one."""
    return {"python": sys.implementation.cache_tag, "files": digests(sources())}


def use() -> bool:
    """Put a build that matches the source first on the engines' import path; True if it did."""
    state.update(active=False, why=_unusable())
    if state["why"]:
        return False
    packages = {"games": sys.modules["games"]} | {f"games.{k}": importlib.import_module(f"games.{k}") for k in KINDS}
    for name, package in packages.items():
        package.__path__.insert(0, str(BUILD.joinpath(*name.split("."))))
    state["active"] = True
    return True


def _unusable() -> str:
    """Why the build cannot be used, or '' when it can."""
    if os.environ.get("KINPLAY_PURE_ENGINES"):
        return "KINPLAY_PURE_ENGINES is set"
    try:
        built = json.loads((BUILD / MANIFEST).read_text())
    except (OSError, ValueError):
        return "not built (bin/compile-engines)"
    wanted = manifest()
    if built.get("python") != wanted["python"]:
        return f"built for {built.get('python')}, this is {wanted['python']}"
    if any(m in sys.modules for m in ("games.engine", "games.rng")):
        return "the Python engines were imported first"
    if built.get("files") != wanted["files"]:
        return "the source changed since the build (make run or make test rebuilds it)"
    return ""
