"""DRF's token check, in one light query: every API request pays for it."""

from functools import cache

from django.contrib.auth import get_user_model
from django.db import connection
from rest_framework import authentication, exceptions
from rest_framework.authtoken.models import Token

from kinplay import sql

FIELDS = ("id", "username", "email", "is_active")


class TokenAuthentication(authentication.TokenAuthentication):
    """``Authorization: Token <key>`` as DRF reads it, loading only the user's id, name,
    address and active flag (the rest loads on first use) rather than token and full user."""

    def authenticate_credentials(self, key):
        user_model = get_user_model()
        with connection.cursor() as cursor:
            cursor.execute(_token_sql(user_model), [key])
            row = cursor.fetchone()
        if row is None:
            raise exceptions.AuthenticationFailed("Invalid token.")
        user = sql.instance(user_model, FIELDS, row)
        if not user.is_active:
            raise exceptions.AuthenticationFailed("User inactive or deleted.")
        return user, key


@cache
def _token_sql(user_model) -> str:
    """The statement, with the tables and columns the models name."""
    quote, token = connection.ops.quote_name, Token._meta
    return (f"SELECT {sql.columns(user_model, FIELDS, 'u.')} FROM {quote(user_model._meta.db_table)} u "
            f"JOIN {quote(token.db_table)} t ON t.{quote(token.get_field('user').column)} = u.{quote(user_model._meta.pk.column)} "
            f"WHERE t.{quote(token.get_field('key').column)} = %s")
