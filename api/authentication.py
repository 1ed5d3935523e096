"""DRF's token check in one query, loading only what a request uses of the player.

Nothing of it is kept between requests: a token replaced or deleted (the settings page's "new
token", a new password) or a player deactivated is refused by every web process from the next
request on."""

from django.contrib.auth import get_user_model
from rest_framework import authentication, exceptions

# The rest of the player's fields load on first use (the admin, the settings page).
FIELDS = ("id", "username", "email", "is_active")


class TokenAuthentication(authentication.TokenAuthentication):
    """``Authorization: Token <key>`` as DRF reads it: the player joined to the token, rather
    than DRF's token row with the whole player."""

    def authenticate_credentials(self, key):
        try:
            user = get_user_model().objects.only(*FIELDS).get(auth_token__key=key)
        except get_user_model().DoesNotExist:
            raise exceptions.AuthenticationFailed("Invalid token.") from None
        if not user.is_active:
            raise exceptions.AuthenticationFailed("User inactive or deleted.")
        return user, key
