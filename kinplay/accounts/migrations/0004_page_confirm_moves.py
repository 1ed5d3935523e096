from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ("accounts", "0003_mailout_email_settings"),
    ]

    operations = [
        migrations.AddField(
            model_name="profile",
            name="confirm_moves",
            field=models.BooleanField(default=True),
        ),
    ]
