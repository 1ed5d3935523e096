"""The account emails: an address to confirm (or the news that it already has an account) and a
password reset. Rows of the outbox like every other email, sent by the relay after the request.

Strangers must not learn which addresses have an account, so the request does the
same work whatever the answer: registering or changing to an address writes one ``address`` row,
and which email it becomes — the confirmation link, or "this address already has an account" —
is decided when it is sent; a password reset only queues a task, and the worker looks the
address up. Links are made when the email is sent: nothing secret waits in the table.
"""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.forms import PasswordResetForm
from django.contrib.auth.tokens import default_token_generator
from django.core import signing
from django.core.mail import EmailMessage
from django.db import transaction
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.encoding import force_bytes
from django.utils.http import urlsafe_base64_encode

from kinplay.accounts.models import email_key
from kinplay.notifications.models import Outbox
from kinplay.notifications.services import kick

KINDS = (Outbox.ADDRESS, Outbox.PASSWORD_RESET)
EMAIL_CHANGE_SALT = "kinplay.accounts.email-change"
EMAIL_CHANGE_DAYS = 3
HEADERS = {"Auto-Submitted": "auto-generated"}  # RFC 3834: no vacation replies to these


def _site(path: str) -> str:
    return f"{settings.SITE_URL.rstrip('/')}{path}"


def _queue(kind: str, user, address: str) -> None:
    Outbox.objects.create(kind=kind, user=user, version=0, detail=address)
    transaction.on_commit(kick)


def ask_address(user, address: str) -> None:
    """Mail ``address`` so that its owner confirms it for ``user`` (accounts.services)."""
    _queue(Outbox.ADDRESS, user, address)


def owner_of(address: str, *, besides=None):
    """The other account that uses ``address`` already (one address, one account), or None.
    Compared by ``Profile.email_key``, the unique key that refuses a second owner, so this check
    and that refusal cannot disagree."""
    key = email_key(address)
    if key is None:
        return None  # no address: nothing to share
    users = get_user_model().objects.filter(profile__email_key=key)
    if besides is not None:
        users = users.exclude(pk=besides.pk)
    return users.order_by("pk").first()


def queue_password_resets(email: str) -> int:
    """One reset email to each account of ``email`` that may sign in with a password (Django's
    own rule, PasswordResetForm.get_users); the worker calls this."""
    users = list(PasswordResetForm().get_users(email))
    for user in users:
        _queue(Outbox.PASSWORD_RESET, user, user.email)
    return len(users)


def compose(row: Outbox) -> EmailMessage:
    user, address = row.user, row.detail
    context = {"user": user, "address": address, "login_url": _site(reverse("login")),
               "reset_url": _site(reverse("password_reset")), "days": EMAIL_CHANGE_DAYS}
    if row.kind == Outbox.PASSWORD_RESET:
        # Django's reset link; its token dies once the password changes or after PASSWORD_RESET_TIMEOUT
        context.update(uid=urlsafe_base64_encode(force_bytes(user.pk)), token=default_token_generator.make_token(user),
                       protocol=settings.SITE_URL.partition("://")[0], domain=settings.SITE_URL.partition("://")[2].rstrip("/"))
        subject = render_to_string("registration/password_reset_subject.txt", context).strip()
        body = render_to_string("registration/password_reset_email.txt", context)
    else:
        owner = owner_of(address, besides=user)
        if owner is not None:
            context["owner"] = owner
            subject = "This address already has a kinplay account"
        else:
            # "asked": when it was asked for, so that calling the change off voids this link
            token = signing.dumps({"user": user.pk, "old": user.email, "new": address,
                                   "asked": row.created_at.timestamp()}, salt=EMAIL_CHANGE_SALT)
            context["confirm_url"] = _site(reverse("settings-email-confirm", args=[token]))
            subject = "Confirm your kinplay email address"
        body = render_to_string("registration/address_email.txt", context)
    return EmailMessage(subject, body, settings.DEFAULT_FROM_EMAIL, [address], headers=dict(HEADERS))
