"""The outbox under faults, on a clock the test controls: a mail server that is down, a
relay that dies after sending, two relays at once."""

import time
from collections import Counter
from datetime import timedelta

import pytest
from django.core.mail.backends.locmem import EmailBackend
from django.utils import timezone

from games import services
from kinplay.notifications import services as notifications
from kinplay.notifications.models import Outbox
from kinplay.notifications.services import deliver, relay
from tests.play import accepted

pytestmark = pytest.mark.django_db

SWEEP = timedelta(seconds=5)  # beat's default SWEEP_SECONDS


@pytest.fixture
def clock(time_machine):
    time_machine.move_to(timezone.now(), tick=False)
    return time_machine


@pytest.fixture
def mail_server(monkeypatch):
    """The mail server as the test wants it: up, down, or accepting a message and then
    dropping the connection before the relay hears back."""

    class Server:
        state = "up"

    real = EmailBackend.send_messages

    def send_messages(self, messages):
        if Server.state == "down":
            raise ConnectionRefusedError(111, "Connection refused")
        sent = real(self, messages)
        if Server.state == "drops-after-data":
            raise TimeoutError("timed out waiting for the reply to DATA")
        return sent

    monkeypatch.setattr(EmailBackend, "send_messages", send_messages)
    return Server


def a_game(alice, bob):
    return accepted(services.create_game(creator=alice, kind="knonsters", seats=[{"user": "alice"}, {"user": "bob"}], per_move=None))


def test_it_delivers_every_email_once_across_a_ten_minute_mail_outage(clock, alice, bob, mail_server, mailoutbox):
    mail_server.state = "down"
    a_game(alice, bob)
    for _ in range(int(timedelta(minutes=10) / SWEEP)):
        relay()
        clock.shift(SWEEP)
    assert mailoutbox == []
    written = Outbox.objects.count()
    assert written >= 2 and Outbox.objects.filter(failed_at__isnull=True, sent_at__isnull=True).count() == written  # still trying
    assert max(Outbox.objects.values_list("attempts", flat=True)) <= 6  # backing off, not hammering
    mail_server.state = "up"
    for _ in range(int(timedelta(minutes=20) / SWEEP)):
        relay()
        clock.shift(SWEEP)
    assert len(mailoutbox) == written == Outbox.objects.filter(sent_at__isnull=False).count()  # each once
    assert {m.to[0] for m in mailoutbox} == {"alice@example.com", "bob@example.com"}


def test_it_gives_up_after_hours_and_says_so_where_people_look(clock, alice, bob, mail_server, mailoutbox, caplog, client):
    mail_server.state = "down"
    a_game(alice, bob)
    started = timezone.now()
    while True:
        relay()
        retries = Outbox.objects.filter(failed_at__isnull=True).values_list("next_attempt_at", flat=True)
        if not retries:
            break
        clock.shift(min(retries) - timezone.now())  # straight to the next retry
        assert timezone.now() - started < timedelta(days=1)
    assert timezone.now() - started > timedelta(hours=4)  # retried over hours
    row = Outbox.objects.filter(user=alice).first()
    assert row.attempts == Outbox.MAX_ATTEMPTS and "Connection refused" in row.error
    assert [r for r in caplog.records if r.levelname == "ERROR" and "alice@example.com" in r.getMessage()]
    client.force_login(alice)
    page = client.get("/settings/").content.decode()
    assert "We could not reach you at <strong>alice@example.com</strong>" in page
    # once an email reaches her again, the warning goes away
    mail_server.state = "up"
    clock.shift(timedelta(minutes=1))
    Outbox.objects.create(kind=Outbox.REMINDER, game=row.game, user=alice, version=row.version)
    relay()
    assert "We could not reach you" not in client.get("/settings/").content.decode()


def test_it_keeps_the_message_id_when_an_email_is_sent_again(clock, alice, bob, mail_server, mailoutbox):
    """The server took the message but the relay never heard back (or died before marking it
    sent): the retry is the same message, which mail clients show once."""
    mail_server.state = "drops-after-data"
    a_game(alice, bob)
    relay()
    mail_server.state = "up"
    clock.shift(timedelta(minutes=1))
    relay()
    assert len(mailoutbox) == 2 * Outbox.objects.count()  # every message twice...
    ids = Counter(m.message()["Message-ID"] for m in mailoutbox)
    assert set(ids.values()) == {2}  # ...under the same Message-ID each time, one per row
    assert len(ids) == Outbox.objects.count() and all(i.endswith("@kinplay.local>") for i in ids)


def test_it_sends_an_email_once_when_two_relays_take_the_same_rows(alice, bob, mailoutbox):
    a_game(alice, bob)
    seen_by_second_relay = list(Outbox.pending().select_related("game", "user"))
    assert len(seen_by_second_relay) >= 2
    assert relay() == len(seen_by_second_relay)
    assert deliver(seen_by_second_relay) == 0  # its claims lose: nothing is sent twice
    assert len(mailoutbox) == len(seen_by_second_relay)


def test_it_sends_again_a_row_whose_relay_died(clock, alice, bob, mailoutbox):
    a_game(alice, bob)
    rows = list(Outbox.pending())
    assert all(r.claim() for r in rows)  # a relay claimed them, then died
    assert relay() == 0
    clock.shift(Outbox.CLAIM_TIMEOUT + timedelta(seconds=1))
    assert relay() == len(rows)


def test_it_bounds_every_smtp_call(settings):
    from django.core.mail import get_connection

    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    assert get_connection().timeout == 20


def test_it_answers_a_move_without_waiting_for_a_broker_that_hangs(alice, bob, monkeypatch, django_capture_on_commit_callbacks):
    """Publishing fails after its socket timeout; the moves that follow skip the broker for a
    while instead of each waiting that long. The outbox sweep sends the email."""
    from kinplay.notifications.tasks import relay_outbox

    calls = []

    def hung(*args, **kwargs):
        calls.append(1)
        raise TimeoutError("Timeout reading from socket")

    monkeypatch.setattr(relay_outbox, "apply_async", hung)
    monkeypatch.setattr(notifications, "_kick_paused_until", 0.0)
    now = [1000.0]
    monkeypatch.setattr(notifications.time, "monotonic", lambda: now[0])
    with django_capture_on_commit_callbacks(execute=True):
        a_game(alice, bob)
    with django_capture_on_commit_callbacks(execute=True):
        a_game(alice, bob)
    assert len(calls) == 1
    now[0] += notifications.KICK_PAUSE + 1
    with django_capture_on_commit_callbacks(execute=True):
        a_game(alice, bob)
    assert len(calls) == 2
    waiting = Outbox.pending().count()
    assert waiting >= 6 and relay() == waiting


def test_it_folds_a_burst_of_kicks_into_one_publish_and_still_sends_the_last(monkeypatch):
    """A busy server ends or creates games many times a second, and each kick would cost a
    publish to the broker: kicks within KICK_GAP of a publish share the next one."""
    published = []
    monkeypatch.setattr(notifications, "_publish", lambda: published.append(time.monotonic()))
    monkeypatch.setattr(notifications, "KICK_GAP", 0.3)
    kicker = notifications._Kicker()

    def until(count):
        deadline = time.monotonic() + 10
        while len(published) < count and time.monotonic() < deadline:
            time.sleep(0.01)

    kicker.wake()
    until(1)
    for _ in range(40):  # 0.1 s of kicks, all within the gap after the first publish
        kicker.wake()
        time.sleep(0.0025)
    until(2)
    time.sleep(0.5)
    assert len(published) == 2  # the first kick, then the burst's one (its last kick not lost)
    assert published[1] - published[0] >= 0.3


def test_it_queues_a_whole_season_of_emails_but_none_a_player_switched_off(make_user, alice):
    from kinplay.accounts.models import Profile

    players = [make_user(f"p{i}") for i in range(150)]
    Profile.objects.update_or_create(user=players[7], defaults={"email_turns": False})
    game = services.create_game(creator=alice, kind="karenza", seats=[{"user": "alice"}, {"bot": "random"}])
    Outbox.objects.all().delete()
    # 2,550 rows: more parameters than SQLite takes in one statement when built with its default limit (32,766)
    notifications.queue([Outbox(kind=Outbox.YOUR_TURN, game=game, user=u, version=v) for v in range(17) for u in players]
                        + [Outbox(kind=Outbox.GAME_CANCELLED, game=game, user=players[7], version=game.version)])
    sent = Counter(Outbox.objects.values_list("user__username", "kind"))
    assert sent == {**{(u.username, Outbox.YOUR_TURN): 17 for u in players if u != players[7]},
                    ("p7", Outbox.GAME_CANCELLED): 1}
