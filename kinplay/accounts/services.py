"""Writes to accounts: registering (page and API alike) and changing the email address."""

from django.conf import settings
from django.contrib.auth import get_user_model, password_validation
from django.core import signing
from django.core.exceptions import ValidationError
from django.core.mail import send_mail
from django.db import IntegrityError, transaction

from kinplay.accounts import usernames

EMAIL_CHANGE_SALT = "kinplay.accounts.email-change"
EMAIL_CHANGE_DAYS = 3


def register(username: str, email: str, password: str):
    """A new player; ValidationError({field: [messages]}) for a bad or taken name or password."""
    try:
        username = usernames.clean(username)
    except ValidationError as exc:
        raise ValidationError({"username": exc.messages}) from None
    user_model = get_user_model()
    try:
        password_validation.validate_password(password, user_model(username=username, email=email))
    except ValidationError as exc:
        raise ValidationError({"password": exc.messages}) from None
    try:
        with transaction.atomic():
            return user_model.objects.create_user(username, email, password)
    except IntegrityError:  # the same (or a look-alike) name registered at the same moment
        raise ValidationError({"username": ["This username is taken (or looks too much like one that is). Please choose another one."]}) from None


def request_email_change(user, new_email: str, confirm_url) -> None:
    """Mail a confirmation link to ``new_email``; the address changes only when it is followed
    (``confirm_url(token)`` makes the link). Turn emails keep going to the old address till then."""
    token = signing.dumps({"user": user.pk, "old": user.email, "new": new_email}, salt=EMAIL_CHANGE_SALT)
    send_mail(
        "Confirm your new kinplay email address",
        f"Hello {user.username},\n\nSomeone (we hope you) asked kinplay to send your turn emails to this "
        f"address. To confirm, open this link within {EMAIL_CHANGE_DAYS} days:\n\n{confirm_url(token)}\n\n"
        "If it was not you, ignore this email: nothing changes.\n",
        settings.DEFAULT_FROM_EMAIL, [new_email],
    )


def confirm_email_change(user, token: str) -> str:
    """Apply a confirmed change; ValidationError if the link is foreign, stale or expired."""
    try:
        data = signing.loads(token, salt=EMAIL_CHANGE_SALT, max_age=EMAIL_CHANGE_DAYS * 24 * 3600)
    except signing.SignatureExpired:
        raise ValidationError("This confirmation link has expired. Please ask for a new one.") from None
    except signing.BadSignature:
        raise ValidationError("This confirmation link is not valid.") from None
    if data.get("user") != user.pk:
        raise ValidationError("This confirmation link belongs to another account.")
    if data.get("old") != user.email:
        raise ValidationError("Your address changed since this link was sent. Please ask for a new one.")
    user.email = data["new"]
    user.save(update_fields=["email"])
    return user.email
