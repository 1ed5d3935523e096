"""The rules engines stay readable: no function in games/ runs over 60 lines (an event's or an
action's handling is a small function in a table, docs/adding-a-game.md). The offenders are named."""

import ast
from pathlib import Path

GAMES = Path(__file__).resolve().parents[1] / "games"
MOST = 60


def long_functions(root: Path = GAMES) -> list[str]:
    found = []
    for path in sorted(root.rglob("*.py")):
        if "migrations" in path.parts:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                lines = node.end_lineno - node.lineno + 1
                if lines > MOST:
                    found.append(f"{path.relative_to(root.parent)}:{node.lineno} {node.name} ({lines} lines)")
    return found


def test_it_keeps_every_function_in_games_to_sixty_lines():
    assert long_functions() == []


def test_it_names_a_long_function(tmp_path):
    body = "\n".join(f"    x{i} = {i}" for i in range(MOST))
    (tmp_path / "rules.py").write_text(f"def evolve(state):\n{body}\n    return state\n")
    assert long_functions(tmp_path) == [f"{tmp_path.name}/rules.py:1 evolve ({MOST + 2} lines)"]
