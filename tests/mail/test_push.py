"""Web Push: the outbox's notifications pushed to each browser a player subscribed, checked by a
push service run in the test (tests/mail/push_service.py) that verifies the VAPID signature and
decrypts the payload as the browser would."""

from datetime import UTC, datetime, timedelta

import pytest
import time_machine
from django.core.cache import cache

from games import selectors
from kinplay.notifications import push
from kinplay.notifications.held import release_held
from kinplay.notifications.models import Outbox, PushSubscription
from kinplay.notifications.services import relay
from tests.mail.push_service import PushService, vapid_pair
from tests.play import alice_moves, alices_turn, finish, step

pytestmark = pytest.mark.django_db

NOON = datetime(2026, 11, 24, 12, 0, tzinfo=UTC)


@pytest.fixture(autouse=True)
def _no_looks_remembered():
    cache.clear()  # the looks written lately (presence.LOOK_EVERY) are remembered in the cache


@pytest.fixture
def service(settings):
    pair = vapid_pair()
    settings.VAPID_PRIVATE_KEY, settings.VAPID_PUBLIC_KEY = pair["private_key"], pair["public_key"]
    settings.VAPID_SUBJECT = "mailto:turns@kinplay.example"
    settings.SITE_URL = "https://kinplay.example"
    running = PushService(pair["public_key"])
    yield running
    running.stop()


def subscribed(service, user, name):
    """``user``'s browser ``name`` subscribed (as the settings page's script posts it)."""
    browser = service.browser(name)
    keys = browser.subscription["keys"]
    push.subscribe(user, endpoint=browser.endpoint, p256dh=keys["p256dh"], auth=keys["auth"])
    return browser


def pushes(service, to):
    relay()
    return [r["payload"] for r in service.received if r["to"] == to]


def test_it_pushes_the_turn_to_the_players_browser_signed_and_encrypted(alice, bob, service):
    with time_machine.travel(NOON, tick=False):
        game = alices_turn(alice)
        subscribed(service, bob, "bobs-phone")
        alice_moves(game)
        got = pushes(service, "bobs-phone")
    assert service.refused == []
    names = selectors.seat_names(game)
    said = " ".join(selectors.said_to(line["text"], "bob", names)
                    for line in selectors.log_lines(game, 1, after=0, upto=game.version, names=names)[-2:])
    assert "alice" in said  # alice's move, as bob's page says it
    assert got == [{"title": f"Your turn in Knonsters #{game.pk}", "body": said,
                    "url": f"https://kinplay.example/games/{game.pk}/"}]
    claims = service.received[-1]["claims"]
    assert claims["sub"] == "mailto:turns@kinplay.example" and claims["aud"] == service.origin
    assert service.received[-1]["ttl"] == push.TTL
    row = Outbox.objects.get(channel=Outbox.PUSH, game=game, user=bob, kind=Outbox.YOUR_TURN)
    assert row.sent_at is not None and row.error == ""
    assert service.received[-1]["topic"] == f"outbox-{row.pk}"  # a repeat of the row replaces it at the push service


def test_it_pushes_to_every_browser_of_the_player_once(alice, bob, service):
    game = alices_turn(alice)
    subscribed(service, bob, "bobs-phone")
    subscribed(service, bob, "bobs-laptop")
    alice_moves(game)
    relay()
    relay()  # a second relay finds nothing left to send
    turn = f"Your turn in Knonsters #{game.pk}"
    assert [p["title"] for p in pushes(service, "bobs-phone") ] == [turn]
    assert [p["title"] for p in pushes(service, "bobs-laptop") ] == [turn]


def test_it_says_nothing_of_the_game_a_player_may_not_know(alice, bob, service):
    """A push carries its title, the last line as the player's own log says it, and the link: in
    Karenza, alice's hand and draws stay hers."""
    game = alices_turn(alice, kind="karenza")
    subscribed(service, bob, "bobs-phone")
    secret = 0
    for _ in range(6):
        alice_moves(game)
        (got,) = pushes(service, "bobs-phone")
        service.received.clear()
        assert set(got) == {"title", "body", "url"}
        names = selectors.seat_names(game)
        hers, his = (selectors.log_lines(game, seat, after=0, upto=game.version, names=names) for seat in (0, 1))
        assert got["body"] == " ".join(selectors.said_to(line["text"], "bob", names) for line in his[-2:])
        secret += any(line not in his for line in hers)
        step(game, seat=1)
        game.refresh_from_db()
        while game.status == "active" and game.to_act != [0]:
            step(game)
            game.refresh_from_db()
        if game.status != "active":
            break
    assert secret  # alice's log said things bob's does not: the pushes above said none of them


def test_it_pushes_the_game_over_and_the_invitation(alice, bob, service):
    from games import services

    subscribed(service, bob, "bobs-phone")
    game = services.create_game(creator=alice, kind="knonsters", seats=[{"user": "alice"}, {"user": "bob"}],
                                per_move=None)
    got = pushes(service, "bobs-phone")
    assert len(got) == 1 and "alice" in got[0]["title"] and got[0]["url"].endswith(f"/games/{game.pk}/")
    services.accept_invitation(game.pk, bob)
    finish(game)
    titles = [p["title"] for p in pushes(service, "bobs-phone")]
    assert f"Knonsters #{game.pk} is over" in titles


def test_it_drops_a_subscription_the_push_service_says_is_gone(alice, bob, service):
    game = alices_turn(alice)
    subscribed(service, bob, "bobs-phone")
    service.answers["bobs-phone"] = [410]
    alice_moves(game)
    relay()
    assert not PushSubscription.objects.filter(user=bob).exists()
    row = Outbox.objects.get(channel=Outbox.PUSH, game=game, user=bob)
    assert row.sent_at is not None and row.failed_at is None and "gone (410)" in row.error
    alice_moves(alices_turn(alice))  # bob's next turn pushes nothing: no subscription left
    relay()
    assert Outbox.objects.filter(channel=Outbox.PUSH, user=bob).count() == 1
    assert service.received == []


def test_it_drops_one_answered_404_too(alice, bob, service):
    game = alices_turn(alice)
    subscribed(service, bob, "bobs-phone")
    service.answers["bobs-phone"] = [404]
    alice_moves(game)
    relay()
    assert not PushSubscription.objects.filter(user=bob).exists()


def test_it_retries_another_failure_and_pushes_once(alice, bob, service):
    with time_machine.travel(NOON, tick=False) as clock:
        game = alices_turn(alice)
        subscribed(service, bob, "bobs-phone")
        service.answers["bobs-phone"] = [503]
        alice_moves(game)
        assert pushes(service, "bobs-phone") == []
        row = Outbox.objects.get(channel=Outbox.PUSH, game=game, user=bob)
        assert row.sent_at is None and row.next_attempt_at is not None and "503" in row.error
        assert PushSubscription.objects.filter(user=bob).exists()  # not gone: kept
        clock.shift(timedelta(minutes=1))
        assert len(pushes(service, "bobs-phone")) == 1
        clock.shift(timedelta(minutes=10))
        assert len(pushes(service, "bobs-phone")) == 1


def test_it_pushes_no_turn_while_the_player_is_at_the_table(alice, bob, service, signed_in):
    with time_machine.travel(NOON, tick=False) as clock:
        game = alices_turn(alice)
        subscribed(service, bob, "bobs-phone")
        page = signed_in(bob)
        assert page.get(f"/games/{game.pk}/").status_code == 200
        clock.shift(5)
        alice_moves(game)
        assert pushes(service, "bobs-phone") == []  # held while bob is at the table
        clock.shift(40)
        assert page.get(f"/games/{game.pk}/live/").status_code == 200  # his page polls and sees the move
        clock.shift(timedelta(minutes=10))
        release_held()
        assert pushes(service, "bobs-phone") == []
    row = Outbox.objects.get(channel=Outbox.PUSH, game=game, user=bob)
    assert row.error == "not sent: seen on the site"


def test_it_pushes_it_after_the_hold_when_the_player_has_gone(alice, bob, service, signed_in):
    with time_machine.travel(NOON, tick=False) as clock:
        game = alices_turn(alice)
        subscribed(service, bob, "bobs-phone")
        signed_in(bob).get(f"/games/{game.pk}/")
        clock.shift(5)
        alice_moves(game)  # bob closed the tab just before
        assert pushes(service, "bobs-phone") == []
        clock.shift(timedelta(minutes=6))
        release_held()
        assert len(pushes(service, "bobs-phone")) == 1


def test_it_pushes_no_kind_the_player_switched_off(alice, bob, service):
    game = alices_turn(alice)
    subscribed(service, bob, "bobs-phone")
    push.choose(bob, on=["game_over", "invitation", "reminder"])
    alice_moves(game)
    assert pushes(service, "bobs-phone") == []
    assert not Outbox.objects.filter(channel=Outbox.PUSH, user=bob).exists()


def test_it_pushes_even_to_a_player_whose_turn_emails_are_off(alice, bob, service):
    """Two channels, two choices: a player may want their phone to buzz and no email."""
    from kinplay.accounts.models import Profile

    game = alices_turn(alice)
    Profile.objects.update_or_create(user=bob, defaults={"email_turns": False})
    subscribed(service, bob, "bobs-phone")
    alice_moves(game)
    assert len(pushes(service, "bobs-phone")) == 1
    assert not Outbox.emails().filter(user=bob, kind=Outbox.YOUR_TURN, game=game, version=game.version).exists()


def test_it_pushes_nothing_without_vapid_keys(alice, bob, service, settings):
    game = alices_turn(alice)
    subscribed(service, bob, "bobs-phone")
    settings.VAPID_PRIVATE_KEY = settings.VAPID_PUBLIC_KEY = ""
    alice_moves(game)
    assert pushes(service, "bobs-phone") == []
    assert not Outbox.objects.filter(channel=Outbox.PUSH).exists()


def test_it_keeps_counting_emails_only_for_the_digest_interval(alice, bob, service):
    """A push is not an email: the hourly digest player's first turn email still goes at once."""
    from kinplay.accounts.models import Profile

    game = alices_turn(alice)
    subscribed(service, bob, "bobs-phone")
    Profile.objects.update_or_create(user=bob, defaults={"email_every": Profile.HOURLY})
    alice_moves(game)
    relay()
    email = Outbox.emails().filter(user=bob, kind=Outbox.YOUR_TURN, game=game).latest("pk")
    assert email.sent_at is not None and email.held_at is None


def test_it_pushes_a_reminder_to_a_player_whose_turn_emails_are_off(alice, bob, service):
    from kinplay.accounts.models import Profile
    from kinplay.notifications.services import remind

    game = alices_turn(alice)
    alice_moves(game)
    Profile.objects.update_or_create(user=bob, defaults={"email_turns": False})
    assert remind(game.pk, 1) == "mail-off"  # no subscription yet: nothing to send
    subscribed(service, bob, "bobs-phone")
    assert remind(game.pk, 1) == "reminded"
    (got,) = pushes(service, "bobs-phone")
    assert got["title"] == f"Reminder: Your turn in Knonsters #{game.pk}"
    assert not Outbox.emails().filter(user=bob, kind=Outbox.REMINDER).exists()


def test_it_pushes_a_tournament_round_to_its_players(alice, bob, service):
    from kinplay.tournaments import services as tournaments

    subscribed(service, bob, "bobs-phone")
    for name, on in (("Autumn Swiss", list(push.GROUPS)), ("Winter Swiss", ["turn", "reminder"])):
        push.choose(bob, on=on)
        t = tournaments.create(organiser=alice, name=name, kind="karenza", format="swiss", rounds=1, round_days=1)
        for u in (alice, bob):
            tournaments.join(t.pk, u)
        tournaments.start(t.pk, alice)
    got = pushes(service, "bobs-phone")
    autumn = [p for p in got if "Autumn Swiss" in p["title"]]
    assert len(autumn) == 1 and "/games/" in autumn[0]["url"]
    assert [p for p in got if "Winter Swiss" in p["title"]] == []  # tournaments and leagues switched off


def test_it_pushes_a_line_of_table_talk_to_the_other_players_only(alice, bob, service):
    from games import chat

    game = alices_turn(alice)
    subscribed(service, alice, "alices-phone")
    subscribed(service, bob, "bobs-phone")
    chat.post_chat(game.pk, alice, "Good luck,   bob!")
    assert pushes(service, "bobs-phone") == [{"title": f"alice in Knonsters #{game.pk}", "body": "Good luck, bob!",
                                              "url": f"https://kinplay.example/games/{game.pk}/#chat"}]
    assert pushes(service, "alices-phone") == []  # her own line
    assert not Outbox.emails().filter(kind=Outbox.CHAT).exists()  # pushed, never emailed
    chat.post_chat(game.pk, bob, "x" * 300)
    (got,) = pushes(service, "alices-phone")
    assert got["title"] == f"bob in Knonsters #{game.pk}" and got["body"] == "x" * (push.BODY_MAX - 1) + "…"


def test_it_pushes_no_spectators_talk_and_no_chat_a_player_switched_off(alice, bob, make_user, service):
    from games import chat

    game = alices_turn(alice)
    subscribed(service, bob, "bobs-phone")
    chat.post_chat(game.pk, make_user("carol"), "bob should resign")  # the spectators' channel: bob may not read it yet
    push.choose(bob, on=[g for g in push.GROUPS if g != "chat"])
    chat.post_chat(game.pk, alice, "your move")
    assert pushes(service, "bobs-phone") == []
    push.choose(bob, on=list(push.GROUPS))
    chat.post_chat(game.pk, alice, "still there?")
    assert [p["body"] for p in pushes(service, "bobs-phone")] == ["still there?"]


def test_it_pushes_no_chat_while_the_player_is_at_the_table_and_after_the_hold_when_he_has_gone(
        alice, bob, service, signed_in):
    from games import chat

    with time_machine.travel(NOON, tick=False) as clock:
        game = alices_turn(alice)
        subscribed(service, bob, "bobs-phone")
        page = signed_in(bob)
        assert page.get(f"/games/{game.pk}/").status_code == 200
        clock.shift(5)
        chat.post_chat(game.pk, alice, "nice move")
        assert pushes(service, "bobs-phone") == []  # held: bob's page shows the line
        clock.shift(40)
        assert page.get(f"/games/{game.pk}/live/").status_code == 200  # his page polls and sees it
        clock.shift(timedelta(minutes=10))
        release_held()
        assert pushes(service, "bobs-phone") == []
        assert Outbox.objects.get(channel=Outbox.PUSH, kind=Outbox.CHAT, user=bob).error == "not sent: seen on the site"
        assert page.get(f"/games/{game.pk}/live/").status_code == 200
        clock.shift(5)
        chat.post_chat(game.pk, alice, "are you there?")  # bob closed the tab just before
        assert pushes(service, "bobs-phone") == []
        clock.shift(timedelta(minutes=6))
        release_held()
        assert [p["body"] for p in pushes(service, "bobs-phone")] == ["are you there?"]
