"""DRF's token check, in one light query, and that query's answer kept a few seconds per
process: every API request pays for the check, a player's requests come in bursts."""

import threading
import time
from functools import cache

from django.contrib.auth import get_user_model
from django.db import connection
from rest_framework import authentication, exceptions
from rest_framework.authtoken.models import Token

from kinplay.infra import sql

FIELDS = ("id", "username", "email", "is_active")

# What a token check answers is reused for this long in the process that asked. The price: a
# token replaced or deleted (the settings page's "new token"), or a player deactivated, still
# works for up to this long in the other web processes (this one forgets at once: forget()).
SECONDS = 10.0
MOST = 10_000  # tokens remembered at once; past that the memory starts again empty

_rows: dict[str, tuple[float, tuple]] = {}
_lock = threading.Lock()


class TokenAuthentication(authentication.TokenAuthentication):
    """``Authorization: Token <key>`` as DRF reads it, loading only the user's id, name,
    address and active flag (the rest loads on first use) rather than token and full user."""

    def authenticate_credentials(self, key):
        user_model = get_user_model()
        row = _user_row(key, user_model)
        if row is None:
            raise exceptions.AuthenticationFailed("Invalid token.")
        user = sql.instance(user_model, FIELDS, row)  # a fresh instance per request: nothing cached on it is shared
        if not user.is_active:
            raise exceptions.AuthenticationFailed("User inactive or deleted.")
        return user, key


def _user_row(key, user_model):
    now = time.monotonic()
    known = _rows.get(key)
    if known is not None and known[0] > now:
        return known[1]
    with connection.cursor() as cursor:
        cursor.execute(_token_sql(user_model), [key])
        row = cursor.fetchone()
    if row is not None:
        with _lock:
            if len(_rows) >= MOST:
                _rows.clear()
            _rows[key] = (now + SECONDS, tuple(row))
    return row


def forget(**kwargs):
    """A token deleted or a user saved (deactivated, renamed): this process asks again."""
    with _lock:
        _rows.clear()


@cache
def _token_sql(user_model) -> str:
    """The statement, with the tables and columns the models name."""
    quote, token = connection.ops.quote_name, Token._meta
    return (f"SELECT {sql.columns(user_model, FIELDS, 'u.')} FROM {quote(user_model._meta.db_table)} u "
            f"JOIN {quote(token.db_table)} t ON t.{quote(token.get_field('user').column)} = u.{quote(user_model._meta.pk.column)} "
            f"WHERE t.{quote(token.get_field('key').column)} = %s")
