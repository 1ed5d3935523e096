import pytest

from tests.mail.mails import AUTHSERV


@pytest.fixture(autouse=True)
def _our_mail_server(settings):
    """These tests play the part of a receiving server that adds Authentication-Results."""
    settings.MAIL_AUTHSERV_ID = [AUTHSERV]
    settings.MAIL_TRUST_UNAUTHENTICATED = False
    settings.MAIL_VERIFY_DKIM = False
