"""Before a round's time runs out, each player whose game still runs gets one email: which
games, when the round ends (UTC) and that games still running then are adjudicated."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from games import services as games
from kinplay.accounts.models import Profile
from kinplay.tournaments import emails, services
from kinplay.tournaments.models import Tournament
from kinplay.web.templatetags.kinplay_web import utc


def _four_at_two_tables(players, time_machine, round_days=2, rounds=1):
    """alice, bob, charlie and p4 in a Swiss (one round unless said): two games. Returns the tournament
    and its games, each with its players."""
    time_machine.move_to(timezone.now(), tick=False)
    four = players(4)
    t = services.create(organiser=four[0], name="Winter Swiss", kind="karenza", format="swiss", rounds=rounds, round_days=round_days)
    for u in four:
        services.join(t.pk, u)
    services.start(t.pk, four[0])
    t = Tournament.objects.get(pk=t.pk)
    tables = services.load(t)["rounds"][0]["tables"]
    by_id = {u.pk: u for u in four}
    return t, [(tb["games"][0]["game"], [by_id[p] for p in tb["players"]]) for tb in tables]


def _warnings(inbox):
    return [m for m in inbox() if "still running" in m.subject]


def test_it_warns_once_only_the_players_whose_game_still_runs(players, time_machine, inbox):
    t, ((done, finishers), (open_, waiting)) = _four_at_two_tables(players, time_machine)
    games.resign(done, user=finishers[0])  # this table's game is over before the warning
    inbox().clear()
    time_machine.shift(timedelta(hours=35))  # a two-day round: warned 12 hours before its end
    services.sweep()
    assert _warnings(inbox) == []
    time_machine.shift(timedelta(hours=1, minutes=1))
    services.sweep()
    services.sweep()
    sent = _warnings(inbox)
    assert sorted(m.to[0] for m in sent) == sorted(u.email for u in waiting)
    ends = utc(t.round_ends_at)
    for m in sent:
        other = next(u for u in waiting if u.email != m.to[0])
        assert "round 1 ends soon" in m.subject and f"ends {ends}" in m.body
        assert f"against {other.username}: http" in m.body and f"/games/{open_}/" in m.body
        assert "adjudicated" in m.body
    time_machine.shift(timedelta(hours=6))
    services.sweep()
    assert len(_warnings(inbox)) == 2  # once per round, however often the sweep runs


def test_it_warns_nobody_of_a_round_whose_games_all_finished(players, time_machine, inbox):
    t, tables = _four_at_two_tables(players, time_machine, round_days=7, rounds=2)
    for gid, (first, _) in tables:
        games.resign(gid, user=first)
    time_machine.shift(timedelta(days=5))
    services.sweep()  # round 2 is paired: its own week, its own warning
    assert len(services.load(Tournament.objects.get(pk=t.pk))["rounds"]) == 2
    time_machine.shift(timedelta(days=1, minutes=1))  # round 1's warning time
    services.sweep()
    assert _warnings(inbox) == []


def test_it_warns_once_when_two_sweeps_list_the_round_at_once(players, time_machine, inbox):
    t, tables = _four_at_two_tables(players, time_machine)
    time_machine.shift(timedelta(hours=37))
    seen_by_second_sweep = list(Tournament.objects.filter(pk=t.pk))
    services.sweep()
    assert services.warn(seen_by_second_sweep[0]) == 0  # its claim loses: nothing is sent twice
    assert len(_warnings(inbox)) == 4


def test_it_warns_after_a_sweep_died_between_the_claim_and_the_emails(players, time_machine, inbox, monkeypatch):
    t, tables = _four_at_two_tables(players, time_machine)
    time_machine.shift(timedelta(hours=37))
    monkeypatch.setattr(emails, "queue", lambda *a, **kw: (_ for _ in ()).throw(RuntimeError("worker killed")))
    services.sweep()
    monkeypatch.undo()
    assert Tournament.objects.get(pk=t.pk).warn_at is not None  # the claim went back with the emails
    services.sweep()
    assert len(_warnings(inbox)) == 4


def test_it_respects_a_players_email_switch(players, time_machine, inbox):
    t, tables = _four_at_two_tables(players, time_machine)
    quiet = tables[0][1][0]
    Profile.objects.filter(pk=Profile.of(quiet).pk).update(email_turns=False)
    time_machine.shift(timedelta(hours=37))
    services.sweep()
    assert len(_warnings(inbox)) == 3 and quiet.email not in {m.to[0] for m in _warnings(inbox)}


@pytest.mark.parametrize(("round_days", "hours"), [(7, 24), (1, 6)])  # a day before, a quarter of a short round
def test_it_says_on_the_round_line_when_the_reminder_goes(players, time_machine, round_days, hours):
    t, tables = _four_at_two_tables(players, time_machine, round_days=round_days)
    when = utc(t.round_ends_at - timedelta(hours=hours))
    page = Client().get(f"/tournaments/{t.pk}/").content.decode()
    assert f"Players whose game is still running are emailed a reminder {when}" in page


def test_it_gives_the_running_rounds_warning_time_in_the_api_as_its_schema_says(players, time_machine, api):
    t, _ = _four_at_two_tables(players, time_machine, round_days=1, rounds=2)
    alice = t.organiser
    (running,) = api(alice).get(f"/api/tournaments/{t.pk}/").json()["rounds"]
    assert running["status"] == "running" and running["warns_at"] is not None
    assert timezone.datetime.fromisoformat(running["warns_at"]) == t.warn_at == t.round_ends_at - timedelta(hours=6)
    time_machine.shift(timedelta(hours=18, minutes=1))
    services.sweep()  # the warning goes: the round still says when it went
    assert Tournament.objects.get(pk=t.pk).warn_at is None
    assert api(alice).get(f"/api/tournaments/{t.pk}/").json()["rounds"] == [running]
    schema = api().get("/api/schema/?format=json").json()
    assert "warns_at" in schema["components"]["schemas"]["TournamentOut"]["properties"]["rounds"]["description"]
