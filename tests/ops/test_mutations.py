"""The mutation check: break each claim (deadline, outbox, game row, round warning) and the tests that
defend it must fail. Each mutant runs its test module in a child pytest on a private SQLite
database; a mutant that survives fails this test."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.mutants import MUTANTS

ROOT = Path(__file__).resolve().parents[2]

DEFENDED_BY = {
    "deadline-claim": ["tests/clocks/test_deadlines.py"],
    "outbox-claim": ["tests/mail/test_outbox.py"],
    "game-row-cas": ["tests/store/test_faults.py", "-k", "overwrites"],
    "round-warning-claim": ["tests/tournaments/test_round_warning.py", "-k", "two_sweeps"],
}


@pytest.mark.mutation
@pytest.mark.parametrize("mutant", sorted(MUTANTS))
def test_it_fails_when_a_claim_is_broken(mutant, tmp_path):
    env = {k: v for k, v in os.environ.items()
           if k not in ("DATABASE_URL", "REDIS_URL", "KINPLAY_VAR", "PYTEST_XDIST_WORKER", "PYTEST_ADDOPTS")}
    env.update(KINPLAY_MUTANT=mutant, KINPLAY_VAR=str(tmp_path))
    cmd = [sys.executable, "-m", "pytest", "-p", "tests.mutants", "-p", "no:cacheprovider", "-q", "-x",
           "-o", "addopts=", *DEFENDED_BY[mutant]]
    run = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    tail = run.stdout[-3000:] + run.stderr[-2000:]
    assert run.returncode == 1, f"the {mutant} mutant survived (exit {run.returncode}):\n{tail}"
    assert " failed" in run.stdout, tail
