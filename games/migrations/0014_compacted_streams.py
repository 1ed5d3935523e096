"""Compacted streams: a game that is over can have its events in one CompactedStream row (a JSON
array, lz4-compressed on PostgreSQL) instead of an Event row each (games.store.compact, swept by
games.tasks.compact_streams). The view games_history (the unmanaged model History) shows every
event of every game either way, with Event's columns: readers use it and see no difference.

The events table lets a row be deleted only once a stream holds its seq (games.triggers). A
change to a column of games_event that games_history reads (its type, its name) must drop the
view and create it again in the same migration (PostgreSQL refuses to alter a column a view
uses)."""

import django.db.models.deletion
from django.db import migrations, models

import games.models
from games import triggers

# Each compacted event is an array in games.store.COMPACTED_COLUMNS' order:
# id, seq, at, type, data, seat, idempotency_key, command, schema_version.
VIEW = {
    "postgresql": """
        CREATE VIEW games_history AS
        SELECT id, game_id, seq, type::text AS type, data, at, seat, idempotency_key::text AS idempotency_key,
               command, schema_version
        FROM games_event
        UNION ALL
        SELECT (e->>0)::bigint, s.game_id, (e->>1)::integer, e->>3, e->4, (e->>2)::timestamptz, (e->>5)::smallint,
               e->>6, CASE json_typeof(e->7) WHEN 'null' THEN NULL ELSE e->7 END, (e->>8)::smallint
        FROM games_compactedstream s CROSS JOIN LATERAL json_array_elements(s.events::json) e""",
    "sqlite": """
        CREATE VIEW games_history AS
        SELECT id, game_id, seq, type, data, at, seat, idempotency_key, command, schema_version
        FROM games_event
        UNION ALL
        SELECT json_extract(e.value, '$[0]'), s.game_id, json_extract(e.value, '$[1]'), json_extract(e.value, '$[3]'),
               json_extract(e.value, '$[4]'), json_extract(e.value, '$[2]'), json_extract(e.value, '$[5]'),
               json_extract(e.value, '$[6]'), json_extract(e.value, '$[7]'), json_extract(e.value, '$[8]')
        FROM games_compactedstream s, json_each(s.events) e""",
}
# lz4 compresses a stream about as well as pglz, several times faster; a row over 128 bytes
# (any stream) is compressed.
STORAGE = [
    "ALTER TABLE games_compactedstream ALTER COLUMN events SET COMPRESSION lz4",
    "ALTER TABLE games_compactedstream SET (toast_tuple_target = 128)",
]


def create_view(apps, schema_editor):
    vendor = schema_editor.connection.vendor
    if vendor == "postgresql":
        for statement in STORAGE:
            schema_editor.execute(statement)
    schema_editor.execute(VIEW[vendor])
    triggers.install(schema_editor.connection)


def drop_view(apps, schema_editor):
    schema_editor.execute("DROP VIEW IF EXISTS games_history")


class Migration(migrations.Migration):

    dependencies = [
        ('games', '0013_called_off_repaired'),
    ]

    operations = [
        migrations.CreateModel(
            name='History',
            fields=[
                ('id', models.BigIntegerField(primary_key=True, serialize=False)),
                ('seq', models.PositiveIntegerField()),
                ('type', models.CharField(max_length=64)),
                ('data', games.models.JSONText(default=dict)),
                ('at', models.DateTimeField()),
                ('seat', models.SmallIntegerField(null=True)),
                ('idempotency_key', models.CharField(blank=True, max_length=128, null=True)),
                ('command', games.models.JSONText(blank=True, null=True)),
                ('schema_version', models.PositiveSmallIntegerField(blank=True, null=True)),
            ],
            options={
                'verbose_name_plural': 'history',
                'db_table': 'games_history',
                'ordering': ['game', 'seq'],
                'managed': False,
            },
        ),
        migrations.CreateModel(
            name='CompactedStream',
            fields=[
                ('game', models.OneToOneField(on_delete=django.db.models.deletion.PROTECT, primary_key=True, related_name='+', serialize=False, to='games.game')),
                ('upto', models.PositiveIntegerField()),
                ('events', models.TextField()),
                ('at', models.DateTimeField(auto_now_add=True)),
            ],
            options={
                'abstract': False,
            },
        ),
        migrations.AddIndex(
            model_name='event',
            index=models.Index(condition=models.Q(('seq', 1)), fields=['game'], name='event_stream_head'),
        ),
        migrations.RunPython(create_view, drop_view),
    ]
