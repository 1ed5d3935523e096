"""DRF's token check in one query, loading only what a request uses of the player: every API
request makes it, so the ORM builds its statement once (kinplay.infra.sql.one).

Nothing of it is kept between requests: a token replaced or deleted (the settings page's "new
token", a new password) or a player deactivated is refused by every web process from the next
request on."""

from django.contrib.auth import get_user_model
from rest_framework import authentication, exceptions

from kinplay.infra import sql

# The rest of the player's fields load on first use (the admin, the settings page).
FIELDS = ("id", "username", "email", "is_active")


class TokenAuthentication(authentication.TokenAuthentication):
    """``Authorization: Token <key>`` as DRF reads it: the player joined to the token, rather
    than DRF's token row with the whole player."""

    def authenticate_credentials(self, key):
        user = sql.one(get_user_model(), FIELDS, "auth_token__key", key)
        if user is None:
            raise exceptions.AuthenticationFailed("Invalid token.")
        if not user.is_active:
            raise exceptions.AuthenticationFailed("User inactive or deleted.")
        return user, key
