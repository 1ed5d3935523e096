from django.db import migrations

from games import triggers


class Migration(migrations.Migration):
    dependencies = [("games", "0001_initial")]
    operations = [
        migrations.RunPython(
            lambda apps, editor: triggers.install(editor.connection),
            lambda apps, editor: triggers.remove(editor.connection),
        )
    ]
