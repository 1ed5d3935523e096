from datetime import timedelta

import pytest
from django.core.management import call_command
from django.utils import timezone

from games import services
from games.models import Event
from kinplay.clocks.models import Deadline
from kinplay.notifications.models import Outbox
from kinplay.notifications.services import relay
from tests.play import accepted

pytestmark = pytest.mark.django_db


@pytest.fixture
def clock(time_machine):
    time_machine.move_to(timezone.now(), tick=False)
    return time_machine


def test_it_prunes_sent_email_and_done_deadlines_but_nothing_pending(clock, alice, bob):
    game = accepted(services.create_game(creator=alice, kind="knonsters", seats=[{"user": "alice"}, {"user": "bob"}], per_move=60))
    relay()
    Outbox.objects.create(kind=Outbox.REMINDER, game=game, user=alice, version=game.version)  # not sent yet
    Deadline.objects.filter(game=game, seat=0).update(done_at=timezone.now(), outcome="superseded")
    clock.shift(timedelta(days=31))
    call_command("prune_outbox", "--days=30")
    call_command("prune_deadlines", "--days=30")
    assert list(Outbox.objects.values_list("kind", flat=True)) == [Outbox.REMINDER]
    assert Deadline.objects.filter(game=game, seat=0).count() == 0
    assert Deadline.objects.filter(game=game, seat=1, done_at__isnull=True).exists()


def test_it_shows_games_deadlines_and_email_in_the_admin_and_keeps_events_read_only(alice, bob, client, django_user_model):
    admin = django_user_model.objects.create_superuser("root", "root@example.com", "a-long-password")
    client.force_login(admin)
    game = accepted(services.create_game(creator=alice, kind="knonsters", seats=[{"user": "alice"}, {"user": "bob"}], per_move=60))
    for url in ("/admin/games/game/", f"/admin/games/game/{game.pk}/change/", "/admin/games/event/",
                "/admin/clocks/deadline/", "/admin/notifications/outbox/"):
        assert client.get(url).status_code == 200, url
    event = Event.objects.filter(game=game).first()
    assert client.post(f"/admin/games/event/{event.pk}/delete/", {"post": "yes"}).status_code == 403
    assert client.get("/admin/games/event/add/").status_code == 403
    assert Event.objects.filter(pk=event.pk).exists()
