"""What every save of a user keeps true of its profile (connected in AccountsConfig.ready)."""

from kinplay.accounts.models import Profile, email_key
from kinplay.accounts.usernames import key


def keep_keys(sender, instance, raw=False, update_fields=None, **kwargs):
    """Every way of saving a user (sign-up, API, admin, createsuperuser) keeps the unique keys
    of the name and the address: a name that looks like another's, or an address another
    account has, fails here with IntegrityError even if a form forgot to check, or two
    requests checked at the same moment."""
    if raw:
        return  # fixtures
    touched = {}
    if update_fields is None or "username" in update_fields:
        touched["username_key"] = key(instance.username)
    if update_fields is None or "email" in update_fields:
        touched["email_key"] = email_key(instance.email)
    if touched:  # not for a save that left both alone (last_login, password)
        Profile.objects.update_or_create(user=instance, defaults=touched)
