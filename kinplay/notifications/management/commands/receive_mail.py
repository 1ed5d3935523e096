"""Reads one email (RFC 822) on standard input and applies the move it carries.

For an MTA alias such as ``play: "|/srv/kinplay/.venv/bin/python /srv/kinplay/manage.py receive_mail"``.
The sender must be authenticated (README, "Playing by email"); on a development machine without
a mail server, ``--trust-unauthenticated`` believes the From header.
"""

import sys
from email import policy
from email.parser import BytesParser

from django.core.management.base import BaseCommand
from django.db import DatabaseError

from kinplay.notifications.replies import receive_message

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
        self.stdout.write(outcome)
