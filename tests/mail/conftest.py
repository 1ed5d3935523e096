import pytest

from tests.mail.mails import AUTHSERV
from tests.web.conftest import tiny  # noqa: F401  (the fixture, used by tiny_by_mail)


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
