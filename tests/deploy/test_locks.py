"""The lock files `make run` and `make test` install from (requirements*.lock): they must agree
with the pins people edit (requirements*.txt), and production must not get the test tools."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# mypy is not among them: it brings mypyc, which compiles the engines at `make run` (bin/compile-engines).
TEST_ONLY = {"pytest", "pytest-django", "pytest-xdist", "hypothesis", "playwright", "schemathesis", "ruff",
             "import-linter", "time-machine", "aiosmtpd", "django-stubs"}


def _name(text: str) -> str:
    """A distribution name as pip compares them (PEP 503), without extras."""
    return re.sub(r"[-_.]+", "-", text.split("[")[0]).lower()


def pins(path: Path) -> dict[str, str]:
    """name -> version of every ``name==version`` line (``-r`` includes followed)."""
    out: dict[str, str] = {}
    for line in path.read_text().splitlines():
        line = line.split("#")[0].strip()
        if line.startswith("-r "):
            out.update(pins(path.parent / line[3:].strip()))
        elif "==" in line:
            name, version = line.split("==", 1)
            out[_name(name)] = version.split(";")[0].strip()
        elif line:
            raise AssertionError(f"{path.name}: {line!r} is not pinned with ==")
    return out


def test_it_locks_every_pinned_requirement_at_the_same_version():
    for wanted, lock in (("requirements.txt", "requirements.lock"), ("requirements-dev.txt", "requirements-dev.lock")):
        locked = pins(ROOT / lock)
        for name, version in pins(ROOT / wanted).items():
            assert locked.get(name) == version, f"{lock} has {name} {locked.get(name)}, {wanted} pins {version}: make lock"


def test_it_keeps_test_tools_out_of_the_production_install():
    production = pins(ROOT / "requirements.lock")
    assert not TEST_ONLY & set(production), "requirements.lock installs test tools"
    assert set(pins(ROOT / "requirements-dev.lock")) >= TEST_ONLY


def test_it_installs_in_production_what_the_tests_ran_with():
    production, dev = pins(ROOT / "requirements.lock"), pins(ROOT / "requirements-dev.lock")
    differ = {name: (version, dev.get(name)) for name, version in production.items() if dev.get(name) != version}
    assert not differ, f"production and test locks disagree (run make lock): {differ}"
