"""Moved to the Scout app's own migrations (0002_rebuild_states) when each game got an app.

Kept, empty, because databases made before then recorded it as applied; the game apps'
migrations depend on it so that they run after every table of the shared app exists.
"""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [("games", "0003_match_for_fixture")]

    operations = []
