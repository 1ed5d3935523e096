from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ("accounts", "0004_security_username_key"),
    ]

    operations = [
        migrations.AddField(
            model_name="profile",
            name="confirm_moves",
            field=models.BooleanField(default=True),
        ),
    ]
