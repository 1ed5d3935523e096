"""Who sent an inbound email, as a DMARC-checking mail server would see it.

A reply moves for a player only when
1. its From header holds exactly one mailbox (no groups, no second address, nothing the parser
   had to guess at, such as ``grace@example.org <mallory@evil.com>``), and
2. the message is authenticated for that mailbox's domain by one of:
   - the topmost ``Authentication-Results`` header whose authserv-id is in MAIL_AUTHSERV_ID
     (our own receiving server prepends it, so a header the sender forged with our id sits
     below it and is never read): ``dmarc=pass`` for the From domain, or ``dkim=pass`` with
     ``header.d`` aligned to it (same organisational domain, DMARC's relaxed alignment);
   - with MAIL_VERIFY_DKIM, our own DKIM verification (dkimpy through authheaders), aligned
     the same way;
   - for an inbound webhook, the provider's verdict where anymail passes one on (see
     ``provider_verdict``); mail the provider marks as spam is never authenticated;
   - or MAIL_TRUST_UNAUTHENTICATED, honoured only with DEBUG (development: any From is believed).
"""

from __future__ import annotations

import logging
import re
from email.errors import InvalidHeaderDefect
from typing import TypedDict

import authres
from django.conf import settings
from django.core import checks

from kinplay.notifications import headers

log = logging.getLogger("kinplay.notifications")

DNSFUNC = None  # dkimpy's DNS lookup; tests put a fake here


class BadFrom(Exception):
    pass


def sender_of(msg) -> str:
    """The one mailbox in From, lower-cased; BadFrom for anything else."""
    try:
        found = msg.get_all("From") or []
    except Exception as exc:  # noqa: BLE001  the stdlib parser's IndexError & co on hostile values
        raise BadFrom(f"unparsable From ({type(exc).__name__})") from None
    if len(found) != 1:
        raise BadFrom(f"{len(found)} From headers")
    header = found[0]
    if any(isinstance(d, InvalidHeaderDefect) for d in getattr(header, "defects", ())):
        raise BadFrom(f"unparsable From: {str(header)[:100]!r}")
    groups = getattr(header, "groups", None)
    addresses = getattr(header, "addresses", None)
    if groups is None or addresses is None:
        raise BadFrom("From was not parsed as an address header")
    if len(groups) != 1 or groups[0].display_name is not None or len(addresses) != 1:
        raise BadFrom(f"From must hold exactly one mailbox: {str(header)[:100]!r}")
    address = addresses[0].addr_spec
    local, at, domain = address.rpartition("@")
    if not (at and local and domain and "@" not in local.strip('"') and "." in domain):
        raise BadFrom(f"not a mailbox: {address[:100]!r}")
    return address.lower()


def domain_of(address: str) -> str:
    return address.rpartition("@")[2].lower().rstrip(".")


def _org(domain: str) -> str:
    # deferred: authheaders takes 0.2 s to import; only mail coming in needs it
    from authheaders.dmarc_lookup import get_org_domain

    return get_org_domain(domain.lower().rstrip("."))


def aligned(domain: str, results) -> bool:
    """results: (method, result, domain) triples. dmarc=pass for the domain itself, or
    dkim=pass from a signer in the same organisational domain."""
    domain = domain.lower().rstrip(".")
    for method, result, about in results:
        about = (about or "").lower().rstrip(".")
        if result != "pass" or not about:
            continue
        if method == "dmarc" and about == domain:
            return True
        if method == "dkim" and (about == domain or _org(about) == _org(domain)):
            return True
    return False


def _results(header_value: str) -> tuple[str, list]:
    """(authserv-id, [(method, result, domain)]) of one Authentication-Results header."""
    parsed = authres.AuthenticationResultsHeader.parse_value(re.sub(r"\s+", " ", header_value))
    out = []
    for r in parsed.results:
        props = {(p.type, p.name): p.value for p in r.properties}
        about = props.get(("header", "from")) if r.method == "dmarc" else props.get(("header", "d"))
        out.append((r.method, (r.result or "").lower(), about))
    return (parsed.authserv_id or "").lower(), out


def header_results(msg) -> list:
    """The results of the topmost Authentication-Results header with one of our authserv-ids."""
    ours = {i.lower() for i in settings.MAIL_AUTHSERV_ID}
    if not ours:
        return []
    for value in headers.values(msg, "Authentication-Results"):
        try:
            authserv_id, results = _results(value)
        except authres.AuthResError:  # junk is nobody's verdict
            continue
        if authserv_id in ours:
            return results
    return []


def dkim_results(raw: bytes | None) -> list:
    if not (settings.MAIL_VERIFY_DKIM and raw):
        return []
    # deferred: as in _org
    from authheaders import authenticate_message

    try:
        header = authenticate_message(raw, "kinplay", spf=False, dkim=True, dmarc=False, dnsfunc=DNSFUNC)
    except Exception as exc:  # noqa: BLE001  dkimpy and DNS fail many ways: not verified, never passed
        log.info("DKIM verification failed: %s", exc)
        return []
    return _results(header.split(":", 1)[1])[1]


class ProviderVerdict(TypedDict):
    spam: bool
    results: list[tuple[str, str, str]]  # (method, result, domain), as ``aligned`` takes them


def authenticated(msg, address: str, *, raw: bytes | None = None, provider: ProviderVerdict | None = None) -> bool:
    if provider and provider.get("spam"):
        return False
    if settings.MAIL_TRUST_UNAUTHENTICATED and settings.DEBUG:
        return True
    results = (list(provider.get("results", [])) if provider else []) + header_results(msg) + dkim_results(raw)
    return aligned(domain_of(address), results)


def provider_verdict(esp_name: str, event) -> ProviderVerdict:
    """What an anymail provider told us about the message: {"spam": bool, "results": [...]}.

    Amazon SES gives a DMARC verdict for the From domain; SendGrid a DKIM verdict per signing
    domain. Others (Mailgun, Postmark...) pass the message's headers on, including their own
    Authentication-Results: put the provider's authserv-id in MAIL_AUTHSERV_ID.
    """
    message = event.message
    verdict: ProviderVerdict = {"spam": bool(getattr(message, "spam_detected", None)), "results": []}
    esp = getattr(event, "esp_event", None)
    name = (esp_name or "").lower().replace(" ", "")
    try:
        if name in ("amazonses", "amazon_ses") and isinstance(esp, dict):
            receipt = (esp.get("receipt") or {})
            if (receipt.get("dmarcVerdict") or {}).get("status", "").upper() == "PASS" and message.from_email:
                verdict["results"].append(("dmarc", "pass", domain_of(message.from_email.addr_spec)))
            if (receipt.get("spamVerdict") or {}).get("status", "").upper() == "FAIL":
                verdict["spam"] = True
        elif name == "sendgrid" and esp is not None and hasattr(esp, "POST"):
            # "{@example.org : pass, @evil.com : fail}"
            for domain, result in re.findall(r"@([\w.-]+)\s*:\s*(\w+)", esp.POST.get("dkim", "")):
                verdict["results"].append(("dkim", result.lower(), domain))
    except (AttributeError, TypeError, ValueError):
        pass
    return verdict


@checks.register(checks.Tags.security, deploy=True)
def check_trust(app_configs=None, **kwargs):
    if settings.MAIL_TRUST_UNAUTHENTICATED and not settings.DEBUG:
        return [checks.Warning("MAIL_TRUST_UNAUTHENTICATED is ignored without DEBUG: replies by email must be "
                               "authenticated (set MAIL_AUTHSERV_ID or MAIL_VERIFY_DKIM).", id="kinplay.W101")]
    return []
