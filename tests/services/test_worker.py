"""With a real broker and a real Celery worker + beat (issue 2, "Tests that must exist and run
in CI"): deadlines swept by beat are applied exactly once, "your turn" email reaches a real
SMTP server through the worker, and a move made while the broker is down is accepted and its
email still goes out once the broker is back.
"""

from __future__ import annotations

import html
import time
from collections import Counter

import pytest

from games import services
from games.engine import canonical
from games.models import Event, Game
from games.registry import get
from games.store import load_state
from kinplay.clocks.models import Deadline
from kinplay.notifications.models import Outbox
from tests.conftest import wait_for
from tests.play import accepted
from tests.services.conftest import SITE_URL

pytestmark = pytest.mark.services


def _timeout_events(game):
    rows = Event.objects.filter(game=game, command__isnull=False).order_by("seq")
    return [e for e in rows if str((e.command or {}).get("by", "")).startswith("timeout")]


def _assert_each_deadline_applied_once(game):
    """Every applied move deadline has exactly one command in the stream, and every timeout
    command in the stream was applied for a due deadline of that seat."""
    events = _timeout_events(game)
    deadlines = list(Deadline.objects.filter(game=game, kind=Deadline.MOVE))
    for seat in {e.seat for e in events} | {d.seat for d in deadlines}:
        mine = [e for e in events if e.seat == seat]
        applied = [d for d in deadlines if d.seat == seat and d.outcome.startswith("timeout")]
        in_flight = [d for d in deadlines if d.seat == seat and d.outcome == "claimed"]
        assert len(applied) <= len(mine) <= len(applied) + len(in_flight), (
            f"seat {seat}: {len(mine)} timeout commands in the stream for {len(applied)} applied deadlines "
            f"(+{len(in_flight)} in flight)"
        )
        by_outcome = Counter(d.outcome for d in applied)
        by_command = Counter(e.command["by"] for e in mine)
        for outcome, n in by_outcome.items():
            assert by_command[outcome] >= n, f"seat {seat}: {n} deadlines say {outcome}, {by_command[outcome]} commands do"
        for e in mine:
            due = [d.due_at for d in deadlines if d.seat == seat]
            assert due and min(due) <= e.at, f"seat {seat}: timeout command at seq {e.seq} before any deadline was due"
    seqs = list(Event.objects.filter(game=game).order_by("seq").values_list("seq", flat=True))
    assert seqs == list(range(1, len(seqs) + 1)), "the stream must stay gap-free"


# ------------------------------------------------------------------ (a) deadlines


def test_it_lets_the_bot_move_once_for_a_player_whose_time_ran_out(start_worker, broker, alice):
    worker = start_worker(broker)
    game = services.create_game(
        creator=alice, kind="knonsters", options={}, per_move=2, on_timeout="bot",
        seats=[{"user": "alice"}, {"bot": "heuristic"}],
    )
    started = time.time()
    first_deadline = Deadline.objects.filter(game=game, kind=Deadline.MOVE, seat=0).order_by("due_at").first()
    assert first_deadline is not None, "a 2 s clock must leave a deadline row for the human"

    def alices_timeout():
        return next((e for e in _timeout_events(game) if e.seat == 0), None)

    event = wait_for(alices_timeout, "the bot's move for alice after her 2 s ran out", on_fail=worker.dump)
    waited = time.time() - started

    assert event.command["by"] == "timeout-bot"
    assert event.command["seat"] == 0
    assert event.at >= first_deadline.due_at, "the deadline was applied before it was due"
    assert waited >= 1.5, f"alice's move was made for her after {waited:.1f}s of a 2 s clock"
    # The action is one alice could have chosen herself at that point of the game.
    game.refresh_from_db()
    state_before = load_state(game, event.seq - 1)
    legal = [a["action"] for a in get("knonsters").rules.legal_actions(state_before, 0)]
    assert canonical(event.command["action"]) in {canonical(a) for a in legal}
    wait_for(lambda: Deadline.objects.get(pk=first_deadline.pk).outcome != "claimed", "the sweep to record its outcome")
    assert Deadline.objects.get(pk=first_deadline.pk).outcome == "timeout-bot"

    # Let beat sweep a few more times: nothing is applied twice, nothing without a deadline.
    time.sleep(3.5)
    assert worker.alive(), "the worker died"
    _assert_each_deadline_applied_once(game)
    decided_at = Counter((e.seat, e.seq) for e in _timeout_events(game))
    assert all(n == 1 for n in decided_at.values())


def test_it_applies_a_deadline_once_when_two_sweepers_race(start_worker, broker, alice, bob):
    """Beat in the worker and a second sweeper in this process claim the same due rows:
    the compare-and-set claim lets only one apply each deadline."""
    from kinplay.clocks.services import sweep

    worker = start_worker(broker)
    game = accepted(services.create_game(
        creator=alice, kind="knonsters", options={}, per_move=1, on_timeout="bot",
        seats=[{"user": "alice"}, {"user": "bob"}],
    ))
    until = time.monotonic() + 6
    while time.monotonic() < until:
        sweep()  # races the worker's beat
        time.sleep(0.05)
    wait_for(lambda: len(_timeout_events(game)) >= 2, "timeouts for both players", on_fail=worker.dump)
    wait_for(lambda: not Deadline.objects.filter(game=game, outcome="claimed").exists() or None,
             "in-flight deadlines to finish", timeout=10)
    _assert_each_deadline_applied_once(game)
    assert worker.alive()


# ------------------------------------------------------------------ (b) your-turn email


def _hidden_cards(game, seat):
    """Card codes some other seat held that ``seat`` was never shown (not in its own hand,
    not in anything its redacted log says): none of them may appear in its email."""
    from games import selectors

    rules = get(game.kind).rules
    others = set()
    for e in Event.objects.filter(game=game).order_by("seq"):
        d = e.data
        if e.type in ("setup", "restarted"):
            for s, hand in enumerate(d["hands"]):
                if s != seat:
                    others.update(hand)
        elif e.type == "drew" and d["seat"] != seat:
            others.add(d["card"])
    known = canonical([{"type": x["type"], "data": x["data"]} for x in selectors.redacted_events(game, seat)])
    return {c for c in others if f'"{c}"' not in known}, rules


def _assert_no_leak(message, game, seat):
    hidden, rules = _hidden_cards(game, seat)
    assert hidden, "this game deals no card the recipient cannot know about: the leak check would prove nothing"
    texts = [message["text"], message["html"], html.unescape(message["html"]), message["subject"]]
    for code in hidden:
        label = rules.card_label(code)
        for text in texts:
            assert code not in text, f"the email to seat {seat} names {code}, held by another seat"
            assert label not in text, f"the email to seat {seat} names “{label}”, held by another seat"
    assert game.seed not in "".join(texts), "the email reveals the game's secret seed"


def test_it_sends_your_turn_email_through_the_worker_to_a_real_smtp_server(start_worker, broker, smtp, alice, bob):
    worker = start_worker(broker, smtp)
    game = accepted(services.create_game(
        creator=alice, kind="knonsters", options={}, per_move=None,
        seats=[{"user": "alice"}, {"user": "bob"}, {"bot": "random"}],
    ))
    subject = f"Your turn in Knonsters #{game.pk}"
    link = f"{SITE_URL}/games/{game.pk}/"

    wait_for(lambda: len(smtp.messages(subject=subject)) >= 2, "the first two your-turn emails", on_fail=worker.dump)
    to_alice = smtp.messages(to=alice.email)
    assert len(to_alice) == 1 and to_alice[0]["to"] == [alice.email]
    assert to_alice[0]["subject"] == subject
    assert link in to_alice[0]["text"] and link in to_alice[0]["html"]
    assert "alice" in to_alice[0]["text"]
    _assert_no_leak(to_alice[0], game, 0)

    # Both players choose; the race starts and every human whose turn comes gets one email
    # for it, composed at that version: with their own hand and nothing of the others'.
    alice_pick = get("knonsters").rules.legal_actions(load_state(game), 0)[0]["action"]
    services.act(game.pk, 0, action=alice_pick)
    game.refresh_from_db()
    bob_pick = get("knonsters").rules.legal_actions(load_state(game), 1)[-1]["action"]
    services.act(game.pk, 1, action=bob_pick)
    game.refresh_from_db()
    assert game.status == Game.ACTIVE and load_state(game)["phase"] == "race"
    # Play on (with the bots' choices) until a human has been told it is their turn in the race.
    from tests.play import step

    for _ in range(20):
        game.refresh_from_db()
        if game.status != Game.ACTIVE:
            break
        if Outbox.objects.filter(game=game, kind=Outbox.YOUR_TURN, version__gt=3).exists():
            break
        step(game)
    rows = list(Outbox.objects.filter(game=game, kind=Outbox.YOUR_TURN).select_related("user"))
    wait_for(lambda: len(smtp.messages(subject=subject)) >= len(rows), f"{len(rows)} your-turn emails", on_fail=worker.dump)
    time.sleep(2.5)  # two more outbox sweeps: still one email per row
    got = smtp.messages(subject=subject)
    assert len(got) == len(rows), f"{len(got)} emails for {len(rows)} outbox rows"
    assert Counter(m["to"][0] for m in got) == Counter(r.user.email for r in rows)
    assert all(Outbox.objects.get(pk=r.pk).sent_at for r in rows)
    assert not any(m["to"][0] for m in got if not m["to"][0].endswith("@example.com")), "mail to a bot"
    game.refresh_from_db()
    for m in got:
        seat = 0 if m["to"] == [alice.email] else 1
        assert link in m["text"]
        _assert_no_leak(m, game, seat)
    # A race-phase email lists the recipient's own moves (cards from their hand).
    race_mail = [m for m in got if "Your moves" in m["text"] and "play " in m["text"]]
    assert race_mail or game.status != Game.ACTIVE, "no race-phase email listed the player's moves"
    assert worker.alive()


# ------------------------------------------------------------------ (c) broker down at the move


def test_it_accepts_a_move_while_the_broker_is_down_and_mails_once_it_is_back(
    start_worker, private_redis, smtp, alice, bob, api
):
    from tests.services.conftest import Broker

    broker = Broker("redis", private_redis.url, None)
    worker = start_worker(broker, smtp)
    game = accepted(services.create_game(
        creator=alice, kind="knonsters", options={}, per_move=None,
        seats=[{"user": "alice"}, {"user": "bob"}],
    ))
    subject = f"Your turn in Knonsters #{game.pk}"
    wait_for(lambda: smtp.messages(to=alice.email, subject=subject), "the first your-turn email", on_fail=worker.dump)
    assert len(smtp.messages(to=alice.email)) == 1
    # Both choose favourites; the one who does not start the race chooses last, with the broker down,
    # so the email owed to the starter can only go out once the broker is back.
    starter = load_state(game)["turn"]
    other = 1 - starter
    users = {0: alice, 1: bob}
    first = get("knonsters").rules.legal_actions(load_state(game), starter)[0]["notation"]
    assert api(users[starter]).post(f"/api/games/{game.pk}/actions/", {"notation": first}, format="json").status_code == 201
    recipient = users[starter]
    # Everything owed so far (the invitation, both first turns) must be out before the broker goes
    # down, or an email still on its way would be counted as sent with the broker down.
    wait_for(lambda: not Outbox.objects.filter(sent_at__isnull=True).exists(), "every email owed before the outage",
             on_fail=worker.dump)
    before = len(smtp.messages(to=recipient.email))

    private_redis.stop()
    game.refresh_from_db()
    notation = get("knonsters").rules.legal_actions(load_state(game), other)[-1]["notation"]  # not the same pair: no restart
    began = time.monotonic()
    response = api(users[other]).post(f"/api/games/{game.pk}/actions/", {"notation": notation}, format="json")
    took = time.monotonic() - began
    assert response.status_code == 201, response.content
    print(f"move with the broker down answered in {took:.2f}s")
    assert took < 6, f"the move waited {took:.1f}s on the dead broker (publishing must give up after 2 s)"
    game.refresh_from_db()
    version = response.json()["version"]
    assert game.version == version
    # Both have chosen: the race starts and it is the starter's turn, so one email is owed.
    assert game.to_act == [starter]
    owed = Outbox.objects.filter(game=game, user=recipient, kind=Outbox.YOUR_TURN, version=version)
    assert owed.count() == 1 and owed.get().sent_at is None
    alice = recipient

    time.sleep(2.5)  # beat ticks while the broker is down: nothing can reach the worker
    assert len(smtp.messages(to=alice.email)) == before, "an email went out with the broker down?"

    private_redis.start()  # the same port: worker, beat and this process reconnect
    wait_for(lambda: len(smtp.messages(to=alice.email)) > before, "the owed email after the broker came back",
             timeout=45, on_fail=worker.dump)
    time.sleep(3)  # more sweeps: the email is not sent twice
    mails = smtp.messages(to=alice.email)
    assert len(mails) == before + 1, f"{len(mails)} emails to {alice.username}"
    assert mails[-1]["subject"] == subject
    assert f"{SITE_URL}/games/{game.pk}/" in mails[-1]["text"]
    assert "Your moves" in mails[-1]["text"]
    row = owed.get()
    assert row.sent_at is not None and row.attempts == 1
    assert worker.alive(), "the worker did not survive the broker's restart"
