"""Reads one email (RFC 822) on standard input and applies the move it carries.

For an MTA alias such as ``play: "|/srv/kinplay/.venv/bin/python /srv/kinplay/manage.py receive_mail"``.
The sender must be authenticated (docs/email.md#how-a-reply-is-checked); on a development machine without
a mail server, ``--trust-unauthenticated`` believes the From header.
"""

import logging
import sys
import traceback
from email import policy
from email.parser import BytesParser
from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand
from django.db import DatabaseError
from django.utils import timezone

from kinplay.notifications.replies import receive_message

log = logging.getLogger("kinplay.notifications")
EX_TEMPFAIL = 75  # sysexits.h: the MTA keeps the message and tries again later


class Command(BaseCommand):
    help = "Apply a move sent by email (the message is read from standard input)."

    def add_arguments(self, parser):
        parser.add_argument("--trust-unauthenticated", action="store_true",
                            help="development only: believe the From header without authentication")

    def handle(self, **opts):
        if opts["trust_unauthenticated"]:
            self.stderr.write("receive_mail --trust-unauthenticated: believing the From header (development only)")
        raw = sys.stdin.buffer.read()
        msg = BytesParser(policy=policy.default).parsebytes(raw)
        try:
            outcome = receive_message(msg, raw=raw, trust_unauthenticated=opts["trust_unauthenticated"])
        except DatabaseError as exc:  # never lose a move to a database outage: let the MTA retry
            self.stderr.write(f"database unavailable, try again later: {exc}")
            sys.exit(EX_TEMPFAIL)
        except Exception as exc:  # noqa: BLE001  a bug: keep the message queued, no traceback in a bounce
            # The MTA may quote our output back to the sender: the traceback goes to var/log only.
            path = Path(settings.VAR_DIR) / "log" / "receive_mail.log"
            path.parent.mkdir(parents=True, exist_ok=True)
            with path.open("a") as f:
                f.write(f"{timezone.now().isoformat()} {traceback.format_exc()}\n")
            log.error("receive_mail failed (%s); traceback in %s", type(exc).__name__, path)
            self.stderr.write("temporary failure, try again later")
            sys.exit(EX_TEMPFAIL)
        self.stdout.write(outcome)
