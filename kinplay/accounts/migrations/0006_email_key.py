from django.conf import settings
from django.db import migrations, models


def fill_keys(apps, schema_editor):
    """Every player with an address gets its key. Of two accounts that share one already (only
    a race could make them), the older keeps it; the newer still signs in and plays, but a save
    of the whole account (the admin, a password reset) is refused until its address changes."""
    User = apps.get_model(*settings.AUTH_USER_MODEL.split("."))
    Profile = apps.get_model("accounts", "Profile")
    seen = set()
    for user in User.objects.order_by("pk").only("pk", "email"):
        k = (user.email or "").strip().lower() or None  # accounts.models.email_key, as of this migration
        if k is None or k in seen:
            continue
        seen.add(k)
        profile, _ = Profile.objects.get_or_create(user_id=user.pk)
        profile.email_key = k
        profile.save(update_fields=["email_key"])


class Migration(migrations.Migration):

    dependencies = [
        ("accounts", "0005_page_confirm_moves"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AddField(
            model_name="profile",
            name="email_key",
            field=models.CharField(blank=True, max_length=254, null=True, unique=True),
        ),
        migrations.RunPython(fill_keys, migrations.RunPython.noop),
    ]
