from django.conf import settings
from django.db import migrations, models


def fill_keys(apps, schema_editor):
    """Every existing player gets a key; of two look-alike names already taken, the older keeps
    it (the newer can still sign in, and no third look-alike can register)."""
    from kinplay.accounts.usernames import key

    User = apps.get_model(*settings.AUTH_USER_MODEL.split("."))
    Profile = apps.get_model("accounts", "Profile")
    seen = set()
    for user in User.objects.order_by("pk").only("pk", "username"):
        k = key(user.username)
        profile, _ = Profile.objects.get_or_create(user_id=user.pk)
        if k not in seen:
            seen.add(k)
            profile.username_key = k
            profile.save(update_fields=["username_key"])


class Migration(migrations.Migration):

    dependencies = [
        ('accounts', '0003_mailout_email_settings'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AddField(
            model_name='profile',
            name='username_key',
            field=models.CharField(blank=True, max_length=150, null=True, unique=True),
        ),
        migrations.RunPython(fill_keys, migrations.RunPython.noop),
    ]
