"""The compiled engines (games/compiled.py, bin/compile-engines) play exactly as the Python
source does, and a build is used only while it is made from the source as it is now."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from games import compiled
from games.registry import get
from tests.conftest import unavailable
from tests.games.golden import fingerprint

ROOT = Path(__file__).resolve().parents[2]
# Per kind: a player count, a seed and a bot that reach the engine's commoner paths.
GAMES = [("kenta", 3, "compiled-1"), ("karenza", 2, "compiled-2"), ("project_kin", 2, "compiled-3"),
         ("kinapa", 5, "compiled-4"), ("knonsters", 3, "compiled-5")]


def fingerprints():
    out = {}
    for slug, n, seed in GAMES:
        kind = get(slug)
        options = {k: p["default"] for k, p in kind.rules.OPTIONS_SCHEMA.get("properties", {}).items() if "default" in p}
        out[slug] = fingerprint(kind, n, options, seed, bot="heuristic", probe_every=7)
    return out


def test_it_plays_every_kind_exactly_as_the_python_source():
    if not compiled.state["active"]:
        unavailable(f"the compiled engines are not in use: {compiled.state['why']} (make test builds them)")
    assert get("kinapa").rules.__file__.startswith(str(compiled.BUILD))
    pure = subprocess.run(
        [sys.executable, "-c", "import json; from tests.games.test_compiled import fingerprints; "
                               "from games import compiled; assert not compiled.state['active']; "
                               "print(json.dumps(fingerprints()))"],
        cwd=ROOT, env={"KINPLAY_PURE_ENGINES": "1", "PATH": "/usr/bin:/bin"}, capture_output=True, text=True, check=True)
    assert fingerprints() == json.loads(pure.stdout)


@pytest.fixture
def build(tmp_path, monkeypatch):
    """A build folder whose manifest matches the source as it is now."""
    monkeypatch.setattr(compiled, "BUILD", tmp_path)
    monkeypatch.delenv("KINPLAY_PURE_ENGINES", raising=False)
    monkeypatch.delitem(sys.modules, "games.engine")  # as if the games package were being imported
    monkeypatch.delitem(sys.modules, "games.rng")
    manifest = compiled.manifest()
    (tmp_path / compiled.MANIFEST).write_text(json.dumps(manifest))
    return manifest


def test_it_uses_a_build_made_from_the_source_as_it_is(build):
    assert compiled._unusable() == ""


def test_it_ignores_a_build_once_a_rule_or_a_data_file_changed(build, tmp_path):
    for changed in ("games/karenza/rules.py", "games/kenta/data/cards.json"):
        files = dict(build["files"], **{changed: "0" * 64})
        (tmp_path / compiled.MANIFEST).write_text(json.dumps(dict(build, files=files)))
        assert compiled._unusable().startswith("the source changed")


def test_it_ignores_a_build_for_another_python_no_build_and_when_told(build, tmp_path, monkeypatch):
    (tmp_path / compiled.MANIFEST).write_text(json.dumps(dict(build, python="cpython-399")))
    assert compiled._unusable().startswith("built for cpython-399")
    (tmp_path / compiled.MANIFEST).unlink()
    assert compiled._unusable().startswith("not built")
    monkeypatch.setenv("KINPLAY_PURE_ENGINES", "1")
    assert compiled._unusable() == "KINPLAY_PURE_ENGINES is set"


def test_it_lists_every_data_file_of_every_engine():
    files = compiled.sources()
    assert "games/project_kin/rules.py" in files and "games/rng.py" in files
    for slug in compiled.KINDS:
        for path in (ROOT / "games" / slug / "data").iterdir():
            assert str(path.relative_to(ROOT)) in files
