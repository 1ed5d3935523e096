"""Nodes that start together: two ``manage.py migrate`` at once on a new database both succeed
(the second waits for the first), on SQLite and on PostgreSQL."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import unavailable

ROOT = Path(__file__).resolve().parents[2]
PG = os.environ.get("TEST_PG_ADMIN_URL", "postgres://postgres@127.0.0.1:5432/postgres")


def environment(tmp_path, database_url: str) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL")}
    env.update(KINPLAY_VAR=str(tmp_path), DATABASE_URL=database_url, DJANGO_SETTINGS_MODULE="kinplay.settings",
               SECRET_KEY="tests-only-" + "k" * 50, PYTHONPATH=str(ROOT))
    return env


def migrate_twice_at_once(env) -> None:
    runs = [subprocess.Popen([sys.executable, "manage.py", "migrate", "--noinput", "-v0"], cwd=ROOT, env=env,
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True) for _ in range(2)]
    outputs = [run.communicate(timeout=300)[0] for run in runs]
    assert [run.returncode for run in runs] == [0, 0], outputs
    plan = subprocess.run([sys.executable, "manage.py", "showmigrations", "--plan"], cwd=ROOT, env=env,
                          capture_output=True, text=True, check=True).stdout
    assert "[ ]" not in plan and plan.count("[X]") > 20


def test_it_migrates_a_new_sqlite_database_from_two_processes_at_once(tmp_path):
    migrate_twice_at_once(environment(tmp_path, f"sqlite:///{tmp_path / 'kinplay.sqlite3'}"))


@pytest.mark.services
def test_it_migrates_a_new_postgresql_database_from_two_processes_at_once(tmp_path):
    name = f"kp_migrate_{os.getpid()}"
    if shutil.which("psql") is None or not psql("SELECT 1"):
        unavailable(f"no psql, or no PostgreSQL at {PG}")
    assert psql(f'DROP DATABASE IF EXISTS "{name}"') and psql(f'CREATE DATABASE "{name}"')
    try:
        migrate_twice_at_once(environment(tmp_path, PG.rsplit("/", 1)[0] + f"/{name}"))
    finally:
        psql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def psql(statement: str) -> bool:
    return subprocess.run(["psql", PG, "-qc", statement], capture_output=True, timeout=60).returncode == 0
