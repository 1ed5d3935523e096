"""Leaner events (docs/scaling.md): (game, seq) the one unique key an event has. The idempotency
key loses its unique index ((game, seq) already lets one of two repeats land) and is found
through a partial index of the keyed commands that holds no key; on PostgreSQL the id loses its
primary-key index (nothing looks an event up by id, and ids come from their sequence; SQLite's
id is the row's own number and costs no index), and the payloads are json text, not jsonb.

On PostgreSQL the column types rewrite the table, under a lock, once. On SQLite, changing a
column's field rebuilds the table, and its append-only triggers with it: they are installed
again."""

from django.db import migrations, models

import games.models
from games import triggers


def reinstall_triggers(apps, schema_editor):
    triggers.install(schema_editor.connection)


def primary_key(schema_editor) -> str | None:
    with schema_editor.connection.cursor() as cursor:
        cursor.execute("SELECT conname FROM pg_constraint WHERE conrelid = 'games_event'::regclass AND contype = 'p'")
        row = cursor.fetchone()
    return row and row[0]


def drop_id_index(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql" and (name := primary_key(schema_editor)):
        schema_editor.execute(f'ALTER TABLE games_event DROP CONSTRAINT "{name}"')


def restore_id_index(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql" and not primary_key(schema_editor):
        schema_editor.execute("ALTER TABLE games_event ADD PRIMARY KEY (id)")


class Migration(migrations.Migration):

    dependencies = [
        ("games", "0011_list_indexes"),
    ]

    operations = [
        migrations.RemoveConstraint(model_name="event", name="event_unique_seat_idempotency_key"),
        migrations.AlterField(model_name="event", name="data", field=games.models.JSONText(default=dict)),
        migrations.AlterField(model_name="event", name="command", field=games.models.JSONText(blank=True, null=True)),
        migrations.AddIndex(
            model_name="event",
            index=models.Index(condition=models.Q(("idempotency_key__isnull", False)), fields=["game", "seat"],
                               name="event_keyed_seat"),
        ),
        migrations.RunPython(reinstall_triggers, reinstall_triggers),
        migrations.RunPython(drop_id_index, restore_id_index),
    ]
