"""docs/email.md gives a deployment the Postfix, OpenDKIM and OpenDMARC settings the mail tests
run with (tests/mail/servers.py): a setting changed in one place and not the other fails here."""

from pathlib import Path

import pytest

from tests.mail import servers

DOCS = Path(__file__).resolve().parents[2] / "docs" / "email.md"


def words(line: str) -> str:
    return " ".join(line.split())


@pytest.mark.parametrize("block", ["OPENDKIM", "OPENDMARC", "POSTFIX"])
def test_it_documents_the_mail_server_settings_the_tests_use(block):
    documented = {words(line) for line in DOCS.read_text().splitlines()}
    missing = [line for line in getattr(servers, block).splitlines() if words(line) not in documented]
    assert missing == [], f"docs/email.md lacks these {block} settings of tests/mail/servers.py"
