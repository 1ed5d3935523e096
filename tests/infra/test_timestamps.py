"""kinplay.infra.postgres reads timestamps with psycopg's compiled loader, as Django's own loader
would: aware, in UTC (Django's timezone object), to the microsecond, whatever offset was sent."""

from datetime import UTC, datetime

import pytest
from django.db import connection
from django.utils import timezone

from games.models import Game
from kinplay.infra.postgres.base import utc_loader

pytestmark = [pytest.mark.django_db, pytest.mark.postgresql]


def test_it_reads_a_timestamp_as_django_does():
    with connection.cursor() as cursor:
        cursor.execute("SELECT '2024-03-05 12:34:56.5+02'::timestamptz, '1999-12-31 23:59:59.999999-05:30'::timestamptz")
        first, second = cursor.fetchone()
        loader = cursor.cursor.adapters.get_loader(cursor.cursor.adapters.types["timestamptz"].oid, 0)
    assert first == datetime(2024, 3, 5, 10, 34, 56, 500000, tzinfo=UTC) and first.tzinfo is UTC
    assert second == datetime(2000, 1, 1, 5, 29, 59, 999999, tzinfo=UTC) and second.tzinfo is UTC
    assert loader.__qualname__ == utc_loader(UTC).__qualname__  # the compiled one, not Django's


def test_it_reads_a_model_s_time_back_unchanged(alice):
    game = Game.objects.create(kind="kenta", seed="s", seed_sha256="h", created_by=alice)
    read = Game.objects.values_list("created_at", flat=True).get(pk=game.pk)
    assert read == game.created_at and read.tzinfo is UTC and timezone.is_aware(read)
