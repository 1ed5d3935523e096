"""Django's and psycopg's private names (``_something``) are used only in kinplay/infra/: an
upgrade that renames one breaks that package and nothing else. Anywhere else in the project a
private name must be one the project defines itself (a function, class, assignment, attribute
or parameter of its own); ``_meta``, Django's documented model options, is allowed everywhere.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCANNED = ("api", "games", "kinplay", "bench", "tests")
FENCED = ("kinplay/infra", "tests/infra")  # where vendor internals may be used, and the tests of that package
# Public by documentation although spelled with an underscore: Django's model options and a
# model instance's state (``_state.adding``, ``_state.db``), and the namedtuple methods and
# os._exit the standard library documents.
DOCUMENTED = {"_meta", "_state", "_replace", "_asdict", "_fields", "_make", "_exit"}


def private(name: str) -> bool:
    return name.startswith("_") and name != "_" and not (name.startswith("__") and name.endswith("__"))


def python_files(root: Path):
    for top in SCANNED:
        for path in sorted((root / top).rglob("*.py")):
            relative = path.relative_to(root).as_posix()
            if "/migrations/" in relative or "/.venv/" in relative:
                continue
            yield relative, ast.parse(path.read_text(encoding="utf-8"), filename=relative)


def own_names(tree) -> set[str]:
    """Every name ``tree`` defines: defs, classes, assignments (``self._x = ...`` too), parameters, aliases."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            read = {n.attr for n in ast.walk(node.value) if isinstance(n, ast.Attribute)} if node.value else set()
            # ``self._x = ...`` defines _x, unless it rewraps an inherited one (``self._x = f(self._x)``)
            names |= {t.attr for target in targets for t in ast.walk(target)
                      if isinstance(t, ast.Attribute) and isinstance(t.ctx, ast.Store) and t.attr not in read}
        elif isinstance(node, ast.arg):
            names.add(node.arg)
        elif isinstance(node, ast.alias) and node.asname:
            names.add(node.asname)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            names.add(node.name)
    return names


def used_names(tree):
    """(line, name) of every private-looking name ``tree`` reads from elsewhere: attributes,
    imported names and modules, and names given as text to getattr, setattr, patch..."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute):
            yield node.lineno, node.attr
        elif isinstance(node, ast.ImportFrom):
            for part in (node.module or "").split("."):
                yield node.lineno, part
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.Import):
            for alias in node.names:
                for part in alias.name.split("."):
                    yield node.lineno, part
        elif isinstance(node, ast.Call):
            called = getattr(node.func, "id", None) or getattr(node.func, "attr", None)
            literal = [a.value if isinstance(a, ast.Constant) and isinstance(a.value, str) else None for a in node.args]
            if called in ("getattr", "setattr", "hasattr", "delattr", "object") and len(literal) > 1 and literal[1]:
                yield node.lineno, literal[1]  # getattr(x, "_y"), monkeypatch.setattr(x, "_y", ...), patch.object
            elif called == "patch" and literal and literal[0]:
                for part in literal[0].split("."):  # mock.patch("module.Class._y")
                    yield node.lineno, part


def foreign_private_names(root: Path = ROOT) -> list[str]:
    """``path:line name`` of each private name used outside the fence that the project does not define."""
    files = list(python_files(root))
    outside = [(relative, tree) for relative, tree in files if not relative.startswith(FENCED)]
    ours = set().union(*(own_names(tree) for _, tree in outside)) | DOCUMENTED
    found = []
    for relative, tree in outside:
        found += [f"{relative}:{line} {name}" for line, name in used_names(tree) if private(name) and name not in ours]
    return sorted(set(found))


def test_it_uses_no_private_name_of_django_or_psycopg_outside_kinplay_infra():
    assert foreign_private_names() == []


# Django's database backends and the driver, imported only by kinplay/infra/ (bench/peer's floor
# measures psycopg alone, on purpose; bench/bigdata.py fills a database with COPY, beside the
# product). Settings name backends as text: no import.
VENDOR = ("django.db.backends", "psycopg")
FLOOR = ("bench/peer/", "bench/bigdata.py")


def vendor_imports(root: Path = ROOT) -> list[str]:
    found = []
    for relative, tree in python_files(root):
        if relative.startswith((*FENCED, *FLOOR)):
            continue
        for node in ast.walk(tree):
            modules = ([node.module or ""] if isinstance(node, ast.ImportFrom)
                       else [a.name for a in node.names] if isinstance(node, ast.Import) else [])
            found += [f"{relative}:{node.lineno} {m}" for m in modules if m == VENDOR[1] or m.startswith(
                tuple(v + "." for v in VENDOR)) or m in VENDOR]
    return found


def test_it_imports_the_database_driver_and_backends_only_in_kinplay_infra():
    assert vendor_imports() == []


def test_it_would_catch_a_private_name_of_a_library(tmp_path):
    """The check itself: the kinds of use the project once made outside the fence are found,
    and the project's own private names and a fenced file's are not."""
    (tmp_path / "games").mkdir()
    (tmp_path / "kinplay" / "infra").mkdir(parents=True)
    for top in SCANNED:
        (tmp_path / top).mkdir(exist_ok=True)
    (tmp_path / "kinplay" / "infra" / "base.py").write_text("def f(conn):\n    return conn._cursor()\n")
    (tmp_path / "games" / "uses.py").write_text(
        "from django.db.models.base import ModelState\n"
        "from rest_framework.serializers import _declared\n"
        "def _ours(handler, cursor, model, monkeypatch):\n"
        "    handler._middleware_chain = wrap(handler._middleware_chain)\n"
        "    monkeypatch.setattr(cursor, '_exec_command', print)\n"
        "    getattr(model, '_declared_fields')\n"
        "    model._meta.get_field('id')\n"
        "    handler._mine = 1\n"
        "    return handler._mine, _ours\n")
    assert foreign_private_names(tmp_path) == [
        "games/uses.py:2 _declared", "games/uses.py:4 _middleware_chain", "games/uses.py:5 _exec_command",
        "games/uses.py:6 _declared_fields"]
