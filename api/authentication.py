"""DRF's token check, in one light query: every API request pays for it."""

from django.contrib.auth import get_user_model
from rest_framework import authentication, exceptions

USER_BY_TOKEN = """
    SELECT u.id, u.username, u.email, u.is_active FROM auth_user u
    JOIN authtoken_token t ON t.user_id = u.id WHERE t.key = %s"""


class TokenAuthentication(authentication.TokenAuthentication):
    """``Authorization: Token <key>`` as DRF reads it, loading only the user's id, name,
    address and active flag (the rest loads on first use) rather than token and full user."""

    def authenticate_credentials(self, key):
        user = next(iter(get_user_model().objects.raw(USER_BY_TOKEN, [key])), None)
        if user is None:
            raise exceptions.AuthenticationFailed("Invalid token.")
        if not user.is_active:
            raise exceptions.AuthenticationFailed("User inactive or deleted.")
        return user, key
