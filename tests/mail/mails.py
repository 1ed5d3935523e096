"""Replies as a mail server hands them to kinplay: whole RFC 5322 messages."""

import itertools
from email import policy
from email.parser import BytesParser

from kinplay.notifications.replies import receive_message

AUTHSERV = "mx.kinplay.test"  # our receiving server's authserv-id in these tests
_ids = itertools.count(1)


def raw_reply(*, to, sender, body, headers=(), authenticated=True, message_id=None, subject="Re: your turn"):
    """The bytes of a reply; by default our server vouched for the sender's domain (DMARC pass)."""
    lines = []
    if authenticated:
        domain = sender.rpartition("@")[2].rstrip(">")
        lines.append(f"Authentication-Results: {AUTHSERV}; dmarc=pass header.from={domain}")
    lines += [f"{name}: {value}" for name, value in headers]
    lines += [
        "Received: from mail.example.com by mx.kinplay.test; Tue, 24 Nov 2026 10:00:00 +0000",
        f"From: {sender}",
        f"To: {to}",
        f"Subject: {subject}",
        f"Message-ID: {message_id or f'<reply-{next(_ids)}@example.com>'}",
        "Content-Type: text/plain; charset=utf-8",
        "",
        body,
    ]
    return "\r\n".join(lines).encode()


def parse(raw: bytes):
    return BytesParser(policy=policy.default).parsebytes(raw)


def reply(*, to, sender, body, **kw) -> str:
    """Hand a reply to kinplay as the MTA pipe would; returns the outcome."""
    raw = raw_reply(to=to, sender=sender, body=body, **kw)
    return receive_message(parse(raw), raw=raw)
