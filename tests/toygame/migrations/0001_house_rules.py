"""The toy game's house rules: the plain game, and a quick one of one card each."""

from django.db import migrations

from games.seeding import HouseRules, seed_house_rules

VARIANTS = [
    HouseRules("standard", "Estándar", "Standard", "Tres cartas cada uno.", "Three cards each."),
    HouseRules(
        "quick",
        "Rápida",
        "Quick",
        "Una carta cada uno.",
        "One card each.",
        {"cards_each": 1},
        10,
    ),
]


class Migration(migrations.Migration):
    dependencies = [("games", "0004_rebuild_scout_states")]

    operations = [seed_house_rules("toygame", VARIANTS)]
