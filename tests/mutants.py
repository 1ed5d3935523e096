"""Broken variants ("mutants") of the four claims, for tests/ops/test_mutations.py.

``pytest -p tests.mutants`` with KINPLAY_MUTANT set runs the suite against one of them; the
mutation check asserts that the suite then fails (a claim no test defends is a claim a
refactoring can break silently).
"""

import os

import pytest


def _deadline_claim_always_wins(monkeypatch):
    from django.utils import timezone

    from kinplay.clocks.models import Deadline

    def claim(self, now=None, outcome="claimed"):
        Deadline.objects.filter(pk=self.pk).update(done_at=now or timezone.now(), outcome=outcome)
        return True

    monkeypatch.setattr(Deadline, "claim", claim)


def _outbox_claim_always_wins(monkeypatch):
    from django.db.models import F
    from django.utils import timezone

    from kinplay.notifications.models import Outbox

    def claim(self):
        Outbox.objects.filter(pk=self.pk).update(claimed_at=timezone.now(), attempts=F("attempts") + 1)
        return True

    monkeypatch.setattr(Outbox, "claim", claim)


def _game_row_cas_ignored(monkeypatch):
    from kinplay.infra import sql

    real = sql.update_if

    def update_if(*args, **kwargs):
        real(*args, **kwargs)
        return True

    monkeypatch.setattr(sql, "update_if", update_if)


def _round_warning_claim_always_wins(monkeypatch):
    from kinplay.tournaments.models import Tournament

    def claim_warning(self, now):
        Tournament.objects.filter(pk=self.pk).update(warn_at=None)
        return True

    monkeypatch.setattr(Tournament, "claim_warning", claim_warning)


MUTANTS = {
    "deadline-claim": _deadline_claim_always_wins,
    "outbox-claim": _outbox_claim_always_wins,
    "game-row-cas": _game_row_cas_ignored,
    "round-warning-claim": _round_warning_claim_always_wins,
}


@pytest.fixture(autouse=True)
def _mutant(monkeypatch):
    name = os.environ.get("KINPLAY_MUTANT")
    if name:
        MUTANTS[name](monkeypatch)
    yield
