"""The house rules of this game that the club starts with (they were seeded by the shared
``games`` app before each game had its own app: a database from then keeps its rows)."""

from django.db import migrations

from games.seeding import HouseRules, seed_house_rules

VARIANTS = [
    HouseRules(
        "standard",
        "Estándar",
        "Standard",
        "Las reglas de Scout para 2 a 5 jugadores.",
        "Scout's rules for 2 to 5 players.",
        {},
        0,
    ),
]


class Migration(migrations.Migration):
    dependencies = [("games", "0004_rebuild_scout_states")]

    operations = [seed_house_rules("scout", VARIANTS)]
