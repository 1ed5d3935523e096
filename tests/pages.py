"""Helpers for tests of the web pages: a signed-in browser session, an API serializer's fields."""

from django.test import Client
from rest_framework import serializers


def client_for(user):
    """A test client signed in as ``user`` (a session, as the pages use)."""
    c = Client()
    c.force_login(user)
    return c


def api_fields(serializer, prefix=""):
    """Every field of ``serializer``, nested ones as ``outer.inner``."""
    for name, f in serializer.fields.items():
        if isinstance(f, serializers.Serializer):
            yield from api_fields(f, f"{prefix}{name}.")
        else:
            yield prefix + name
