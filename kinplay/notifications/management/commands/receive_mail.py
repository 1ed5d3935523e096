"""Reads one email (RFC 822) on standard input and applies the move it carries.

For an MTA alias such as ``play: "|/srv/kinplay/.venv/bin/python /srv/kinplay/manage.py receive_mail"``.
"""

import sys
from email import policy
from email.parser import BytesParser
from email.utils import getaddresses, parseaddr

from django.core.management.base import BaseCommand

from kinplay.notifications.replies import receive


class Command(BaseCommand):
    help = "Apply a move sent by email (the message is read from standard input)."

    def handle(self, **opts):
        msg = BytesParser(policy=policy.default).parse(sys.stdin.buffer)
        recipients = [addr for _, addr in getaddresses(
            [str(v) for h in ("To", "Cc", "Delivered-To", "X-Original-To") for v in msg.get_all(h, [])]
        )]
        body = msg.get_body(preferencelist=("plain",))
        text = body.get_content() if body is not None else ""
        outcome = receive(sender=parseaddr(str(msg.get("From", "")))[1], recipients=recipients, text=text)
        self.stdout.write(outcome)
