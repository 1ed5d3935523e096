from datetime import datetime, timedelta

from django.db import migrations, models


def arm_running_rounds(apps, schema_editor):
    """Rounds already running get their warning too: a day before they end, or a quarter of
    the round for short ones (kinplay.tournaments.plan.warning_at at the time of writing)."""
    Tournament = apps.get_model("tournaments", "Tournament")
    for t in Tournament.objects.filter(status="running", round_ends_at__isnull=False).only("pk", "state", "round_ends_at"):
        rounds = t.state.get("rounds") or []
        if not rounds:
            continue
        length = t.round_ends_at - datetime.fromisoformat(rounds[-1]["starts_at"])
        warn_at = t.round_ends_at - min(timedelta(hours=24), length / 4)
        Tournament.objects.filter(pk=t.pk).update(warn_at=warn_at)


class Migration(migrations.Migration):

    dependencies = [
        ("tournaments", "0001_tournaments_initial"),
    ]

    operations = [
        migrations.AddField(
            model_name="tournament",
            name="warn_at",
            field=models.DateTimeField(blank=True, null=True),
        ),
        migrations.RunPython(arm_running_rounds, migrations.RunPython.noop),
    ]
