from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ("games", "0005_ratings_game_rated_finished_at"),
    ]

    operations = [
        migrations.AddField(
            model_name="game",
            name="window",
            field=models.PositiveIntegerField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name="seat",
            name="standing",
            field=models.CharField(
                choices=[("ask", "ask me every time"), ("unable", "pass for me when I cannot react"),
                         ("always", "always pass (let cards resolve, never raise my hand) unless I answer")],
                default="ask", max_length=8),
        ),
    ]
