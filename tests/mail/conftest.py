import pytest

from tests.mail.mails import AUTHSERV
from tests.web.conftest import signed_in, tiny  # noqa: F401  (the fixtures; tiny is used by tiny_by_mail)


@pytest.fixture(autouse=True)
def _our_mail_server(settings):
    """These tests play the part of a receiving server that adds Authentication-Results."""
    settings.MAIL_AUTHSERV_ID = [AUTHSERV]
    settings.MAIL_TRUST_UNAUTHENTICATED = False
    settings.MAIL_VERIFY_DKIM = False


@pytest.fixture
def tiny_by_mail(request):
    """The tiny test game (tests/web/tinygame.py), with the text board turn emails draw."""
    kind = request.getfixturevalue("tiny")
    kind.render_text = lambda view, seat, names: f"hand: {view.get('hand')}"
    return kind


@pytest.fixture
def hourly_digest(alice, bob, inbox):
    """bob on hourly digests: a turn email at 9:00, then two more games waiting for him at 9:10
    (alice says "your move, bob" in the first of them), held until the digest at 10:11. Yields
    (digest, second, third) with the clock still stopped at 10:11, inside the digest's hour."""
    from datetime import timedelta

    import time_machine

    from games import chat
    from kinplay.accounts.models import Profile
    from kinplay.notifications.held import release_held
    from tests.mail.test_digests_and_quiet_hours import MORNING, game_waiting_for_bob, settings_of, to

    settings_of(bob, email_every=Profile.HOURLY)
    with time_machine.travel(MORNING, tick=False) as clock:
        game_waiting_for_bob(alice)
        assert len(to(inbox, "bob")) == 1  # the first email of the hour goes at once
        clock.shift(timedelta(minutes=10))
        second, third = game_waiting_for_bob(alice), game_waiting_for_bob(alice)
        chat.post_chat(second.pk, alice, "your move, bob")
        assert len(to(inbox, "bob")) == 1  # the others wait for the digest
        clock.shift(timedelta(minutes=61))
        release_held()
        yield to(inbox, "bob")[-1], second, third


@pytest.fixture(scope="session")
def mail_system(django_db_setup):
    """kinplay's and the players' mail servers (tests/mail/servers.py), for the whole session."""
    import shutil
    import tempfile
    from pathlib import Path

    from django.conf import settings
    from django.db import connection

    from tests.conftest import unavailable
    from tests.mail import servers

    why = servers.missing()
    if why:
        unavailable(why)
    # Not pytest's tmp_path: its parents are closed to the servers' own users (postfix, nobody...).
    root = Path(tempfile.mkdtemp(prefix="kinplay-mail-"))
    root.chmod(0o755)
    system = servers.MailSystem(root, servers.receive_mail_env(connection.settings_dict, settings),
                                mailboxes=["alice", "bob", "charlie.new"])
    try:
        system.start()
        yield system
    finally:
        system.stop()
        shutil.rmtree(root, ignore_errors=True)


@pytest.fixture
def through_postfix(mail_system, settings, alice, bob, charlie):
    """kinplay sends through its Postfix (SMTP on loopback), as a deployment does; alice and bob
    read their mail at players.test, charlie's address there has no mailbox. Returns the system."""
    from tests.mail import servers

    mail_system.clear()
    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    settings.EMAIL_HOST, settings.EMAIL_PORT = "127.0.0.1", mail_system.kinplay.port
    settings.EMAIL_USE_TLS = False
    settings.DEFAULT_FROM_EMAIL, settings.SITE_URL = servers.FROM, servers.SITE_URL
    settings.MAIL_REPLY_ADDRESS, settings.MAIL_BOUNCE_ADDRESS = "play@kinplay.test", "bounces@kinplay.test"
    settings.ALLOWED_HOSTS = [*settings.ALLOWED_HOSTS, "kinplay.test"]
    for user in (alice, bob, charlie):
        user.email = f"{user.username}@players.test"
        user.save(update_fields=["email"])
    return mail_system
