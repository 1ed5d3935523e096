import sys
import types

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
def tiny_by_mail(request, monkeypatch):
    """The tiny test game (tests/web/tinygame.py), with the text board turn emails draw
    (kinplay.notifications.picture imports games.<slug>.render)."""
    from tests.web import tinygame

    kind = request.getfixturevalue("tiny")
    render = types.ModuleType("games.tiny.render")
    render.render = tinygame.render
    render.render_text = lambda view, seat, names: f"hand: {view.get('hand')}"
    monkeypatch.setitem(sys.modules, "games.tiny.render", render)
    return kind
