"""Writes to accounts: registering (page and API alike) and changing the email address.

An email address serves one account and is used only once its owner followed the link sent
there, at registration as for a change; the answer to the request never says whether the
address has an account already (kinplay.accounts.emails decides which email goes out).
"""

import logging

from django.contrib.auth import get_user_model, password_validation
from django.core import signing
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.utils import timezone
from rest_framework.authtoken.models import Token

from kinplay.accounts import emails, tasks, usernames
from kinplay.accounts.emails import EMAIL_CHANGE_DAYS, EMAIL_CHANGE_SALT
from kinplay.accounts.models import Profile
from kinplay.notifications import bounces
from kinplay.notifications.models import Outbox

log = logging.getLogger("kinplay.accounts")


def address_sent(address: str) -> str:
    """What the page or the API says after registering or changing to ``address``: the same
    words whether the address is new to kinplay or not."""
    return f"We sent a link to {address}: follow it to get kinplay's emails there."


def register(username: str, email: str, password: str):
    """A new player, whose address waits for its confirmation link; ValidationError({field:
    [messages]}) for a bad or taken name or a weak password. Names are public (player pages,
    leaderboards), so "taken" says nothing new; nothing here depends on the address."""
    try:
        username = usernames.clean(username)
    except ValidationError as exc:
        raise ValidationError({"username": exc.error_list}) from None  # codes kept: "taken" is no typo
    user_model = get_user_model()
    try:
        password_validation.validate_password(password, user_model(username=username, email=email))
    except ValidationError as exc:
        raise ValidationError({"password": exc.error_list}) from None
    try:
        with transaction.atomic():
            user = user_model.objects.create_user(username, "", password)
            emails.ask_address(user, email)
            return user
    except IntegrityError:  # the same (or a look-alike) name registered at the same moment
        raise ValidationError({"username": [usernames.taken()]}) from None


def request_email_change(user, new_email: str) -> None:
    """Mail a confirmation link to ``new_email`` (or, if another account has it, the news that it
    does); the address changes only when the link is followed. Mail keeps going to the old
    address till then."""
    emails.ask_address(user, new_email)


def cancel_email_change(user) -> None:
    """The player takes back their change of address: the links sent for it stop working, and
    one not sent yet does not go."""
    now = timezone.now()
    Profile.objects.filter(user=user).update(address_cancelled_at=now)
    Outbox.objects.filter(user=user, kind=Outbox.ADDRESS, sent_at__isnull=True).update(sent_at=now)  # done with


def confirm_email_change(user, token: str) -> str:
    """Apply a confirmed change; ValidationError if the link is foreign, stale or expired, or the
    address went to another account meanwhile (only the mailbox's owner has the link)."""
    try:
        data = signing.loads(token, salt=EMAIL_CHANGE_SALT, max_age=EMAIL_CHANGE_DAYS * 24 * 3600)
    except signing.SignatureExpired:
        raise ValidationError("This confirmation link has expired. Please ask for a new one.") from None
    except signing.BadSignature:
        raise ValidationError("This confirmation link is not valid.") from None
    if data.get("user") != user.pk:
        raise ValidationError("This confirmation link belongs to another account.")
    cancelled = Profile.of(user).address_cancelled_at
    if cancelled is not None and data.get("asked", 0) <= cancelled.timestamp():  # links without "asked" predate any cancel
        raise ValidationError("You cancelled this change of address. Please ask for a new one.")
    if data.get("new") == user.email:  # followed again (a second click, a mail scanner first): done already
        return user.email
    if data.get("old") != user.email:
        raise ValidationError("Your address changed since this link was sent. Please ask for a new one.")
    taken = ValidationError("This address belongs to another kinplay account now, and an address serves one account.")
    if emails.owner_of(data["new"], besides=user) is not None:
        raise taken
    user.email = data["new"]
    try:
        with transaction.atomic():
            user.save(update_fields=["email"])  # Profile.email_key: the check above, made safe against a race
    except IntegrityError:
        user.refresh_from_db(fields=["email"])
        raise taken from None
    bounces.confirmed(user.email)  # its owner read the link there: the mailbox works
    return user.email


def password_set(user) -> bool:
    """A new password (changed, or reset by email) ends the account's API token, as it ends its
    other sessions: whoever knew the old password may have made one. True if there was one."""
    deleted, _ = Token.objects.filter(user=user).delete()  # refused from the next request on (api.authentication)
    return bool(deleted)


def ask_password_reset(email: str) -> None:
    """The reset page's request: only a task, known address or not (tasks.password_reset)."""
    try:
        tasks.password_reset.apply_async((email,), retry=False)  # each broker call is bounded (settings)
    except Exception as exc:  # broker down: look it up here rather than lose the email
        log.warning("could not reach the broker (%s); queueing the password reset inline", exc)
        emails.queue_password_resets(email)
