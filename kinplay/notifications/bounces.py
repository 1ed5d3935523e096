"""Delivery reports: every email leaves with a VERP envelope sender (``bounces+<row>-<sig>@…``,
tokens.bounce_address), so a report that comes back names the email it is about, whatever the
reporting server wrote in it. flufl.bounce (GNU Mailman's detectors) reads which recipients
failed and whether for good (RFC 3464 reports and the older formats some servers still send).

MAIL_HARD_BOUNCES hard bounces stop every email to that address (the account's emails to a new
address excepted) until its owner confirms an address again; soft bounces are only recorded:
the sending server is still retrying them.
"""

from __future__ import annotations

import logging

from django.db import IntegrityError, transaction
from flufl.bounce import all_failures

from kinplay.notifications import headers, tokens
from kinplay.notifications.models import Bounce, Outbox

log = logging.getLogger("kinplay.notifications")

# Emails that go out whatever bounced: the account's own (a confirmation goes to the new address;
# a password reset is how a player gets back in once their mailbox works again).
ALWAYS = (Outbox.ADDRESS, Outbox.PASSWORD_RESET)


def envelope(msg, row: Outbox):
    """Give ``msg`` (an EmailMessage) the VERP envelope sender of ``row``; its From stays."""
    msg.extra_headers.setdefault("From", msg.from_email)
    msg.from_email = tokens.bounce_address(row)


def stopped(row: Outbox) -> bool:
    """An address that bounced for good gets no more email (see ALWAYS)."""
    return row.kind not in ALWAYS and Bounce.failing(row.user.email)


def receive(msg, recipients: list[str], report_id: str) -> str | None:
    """Record a delivery report sent to a bounce address; None when none of ``recipients`` is one."""
    row = tokens.bounced_row(recipients)
    if row is None:
        return None
    temporary, permanent = all_failures(msg)
    if not (temporary or permanent):
        log.info("a message to the bounce address of outbox row %s reports no failure", row.pk)
        return "bounce-unreadable"
    # The address the email went to: the row says it (a report may name an alias it was forwarded to).
    address = (row.detail if row.kind == Outbox.ADDRESS else row.user.email).strip().lower()
    hard = bool(permanent)
    try:
        with transaction.atomic():
            Bounce.objects.create(address=address, outbox=row, hard=hard, report_id=report_id)
    except IntegrityError:
        return "duplicate"
    log.warning("%s bounce for %s (outbox row %s): %s", "hard" if hard else "soft", address, row.pk,
                headers.clean(", ".join(a.decode(errors="replace") for a in permanent | temporary)))
    return "bounce-hard" if hard else "bounce-soft"


def confirmed(address: str):
    """Its owner confirmed ``address``: the bounces before count no more."""
    Bounce.objects.filter(address=address.strip().lower()).delete()
