"""The lists' indexes: a player's games in the order they are listed (seat_user_game), their
running games apart (seat_live, on the seats' new ``over``), and one status newest first
(game_status_id). The games already over mark their seats before seat_live is built."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


def mark_over(apps, schema_editor):
    Seat = apps.get_model("games", "Seat")
    Seat.objects.filter(game__status__in=("finished", "aborted")).update(over=True)


class Migration(migrations.Migration):

    dependencies = [
        ("games", "0010_called_off"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AddField(model_name="seat", name="over", field=models.BooleanField(default=False)),
        migrations.RunPython(mark_over, migrations.RunPython.noop, elidable=True),
        migrations.AddIndex(model_name="seat", index=models.Index(fields=["user", "game"], name="seat_user_game")),
        migrations.AlterField(
            model_name="seat", name="user",
            field=models.ForeignKey(blank=True, db_index=False, null=True, on_delete=django.db.models.deletion.PROTECT,
                                    related_name="seats", to=settings.AUTH_USER_MODEL),
        ),
        migrations.AddIndex(model_name="seat", index=models.Index(condition=models.Q(("over", False)), fields=["user", "game"],
                                                                  name="seat_live")),
        migrations.RemoveIndex(model_name="game", name="games_game_status"),
        migrations.AddIndex(model_name="game", index=models.Index(fields=["status", "id"], name="game_status_id")),
    ]
