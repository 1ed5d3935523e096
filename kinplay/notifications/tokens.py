"""Reply tokens: the "+token" in a turn email's Reply-To names the outbox row that sent it.

The row knows who it was sent to, the game(s) and the version(s) it spoke of, and when it was
sent, so a token is bound to that one email: it stops working when the game moves on, ends,
or the token grows older than MAIL_TOKEN_MAX_AGE_DAYS.

The signature is an HMAC under MAIL_TOKEN_KEY (default: derived from SECRET_KEY with its own
salt, so a leaked token key is not the site's key and vice versa), truncated to 120 bits and
written in lower-case base32: an address's local part has at most 64 characters and some mail
servers fold it to lower case, so Django's base64 signatures would not survive the trip.
"""

from __future__ import annotations

import base64
import hmac
import re
from datetime import timedelta

from django.conf import settings
from django.utils import timezone
from django.utils.crypto import salted_hmac

from kinplay.notifications.models import Outbox

TOKEN = re.compile(r"\+(\d{1,19})-([a-z2-7]{24})@", re.IGNORECASE)


def _key() -> str:
    return settings.MAIL_TOKEN_KEY or salted_hmac("kinplay.mail-token-key", "derive", secret=settings.SECRET_KEY).hexdigest()


def _signature(row_id: int, purpose: str = "kinplay.mail-reply") -> str:
    """``purpose`` keeps a reply token and a bounce token of the same row apart."""
    digest = salted_hmac(purpose, str(row_id), secret=_key(), algorithm="sha256").digest()
    return base64.b32encode(digest[:15]).decode().lower()


def reply_address(row: Outbox) -> str:
    """The Reply-To of the email this outbox row sends (compose calls it)."""
    local, domain = settings.MAIL_REPLY_ADDRESS.rsplit("@", 1)
    return f"{local}+{row.pk}-{_signature(row.pk)}@{domain}"


BOUNCE_PURPOSE = "kinplay.mail-bounce"


def bounce_address(row: Outbox) -> str:
    """The envelope sender (Return-Path) of the email this row sends: a delivery report for it
    comes back to an address that names the row (VERP), signed so that none can be forged."""
    local, domain = settings.MAIL_BOUNCE_ADDRESS.rsplit("@", 1)
    return f"{local}+{row.pk}-{_signature(row.pk, BOUNCE_PURPOSE)}@{domain}"


def bounced_row(recipients: list[str]) -> Outbox | None:
    """The row whose email a delivery report sent to one of ``recipients`` is about, or None."""
    local, domain = settings.MAIL_BOUNCE_ADDRESS.rsplit("@", 1)
    pattern = re.compile(rf"^{re.escape(local)}\+(\d{{1,19}})-([a-z2-7]{{24}})@{re.escape(domain)}$", re.IGNORECASE)
    for address in recipients:
        match = pattern.match((address or "").strip())
        if match and hmac.compare_digest(match.group(2).lower(), _signature(int(match.group(1)), BOUNCE_PURPOSE)):
            return Outbox.objects.select_related("user").filter(pk=int(match.group(1))).first()
    return None


def games_of(row: Outbox) -> dict[int, int]:
    """{game id: version} the email spoke of: a digest lists several, other emails one."""
    games = getattr(row, "games", None)
    if games:
        return {int(k): int(v) for k, v in games.items()}
    assert row.game_id is not None  # a row given a reply address is about one game, or lists its games
    return {row.game_id: row.version}


def row_for(recipients: list[str]) -> tuple[str, Outbox | None]:
    """("ok", row), or ("no-token" | "bad-token" | "expired", None)."""
    found = "no-token"
    for address in recipients:
        match = TOKEN.search(address or "")
        if match is None:
            continue
        row_id, signature = int(match.group(1)), match.group(2).lower()
        if not hmac.compare_digest(signature, _signature(row_id)):
            found = "bad-token"
            continue
        row = Outbox.objects.select_related("user").filter(pk=row_id).first()
        if row is None:
            found = "bad-token"
            continue
        if row.created_at < timezone.now() - timedelta(days=settings.MAIL_TOKEN_MAX_AGE_DAYS):
            return "expired", row
        return "ok", row
    return found, None
