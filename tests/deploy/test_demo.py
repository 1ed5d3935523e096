"""The demo players of `make run`, whose passwords the README publishes, only where asked for."""

import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command

from games.models import Game

pytestmark = pytest.mark.django_db


def test_it_refuses_to_create_the_demo_players_when_debug_is_off(settings):
    settings.DEBUG = False
    with pytest.raises(CommandError, match="published"):
        call_command("load_demo")
    assert not get_user_model().objects.exists() and not Game.objects.exists()


@pytest.mark.parametrize("debug, flags", [(True, []), (False, ["--public-passwords"])])
def test_it_creates_them_once_in_development_or_when_told(settings, debug, flags):
    settings.DEBUG = debug
    call_command("load_demo", *flags)
    games = Game.objects.count()
    call_command("load_demo", *flags)
    assert sorted(get_user_model().objects.values_list("username", flat=True)) == ["alice", "bob", "charlie"]
    assert get_user_model().objects.get(username="alice").check_password("alice-plays-kin")
    assert Game.objects.count() == games >= 3
