"""Every member gets a preferences row (new members get theirs when they sign up), so the
notifications' "last seen" is always a single UPDATE."""

from django.conf import settings
from django.db import migrations


def create_missing(apps, schema_editor):
    User = apps.get_model(*settings.AUTH_USER_MODEL.split("."))
    Preferences = apps.get_model("accounts", "Preferences")
    missing = User.objects.filter(preferences__isnull=True).values_list("pk", flat=True)
    Preferences.objects.bulk_create(
        [Preferences(user_id=pk) for pk in missing.iterator()], batch_size=500
    )


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0002_preferences_last_seen_and_languages"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [migrations.RunPython(create_missing, migrations.RunPython.noop)]
