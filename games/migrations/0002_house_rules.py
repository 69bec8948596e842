"""Each game's house rules are now seeded by the game's own app (``<game>/migrations``).

Kept, empty, because databases made before then recorded it as applied, with the rows it
created: those rows stay, and the game apps' seeding leaves a game that has rules alone.
"""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [("games", "0001_initial")]

    operations = []
