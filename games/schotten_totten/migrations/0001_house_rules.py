"""The house rules of this game that the club starts with (they were seeded by the shared
``games`` app before each game had its own app: a database from then keeps its rows)."""

from django.db import migrations

from games.seeding import HouseRules, seed_house_rules

VARIANTS = [
    HouseRules(
        "standard",
        "Estándar",
        "Standard",
        "Reglas de 2016: juegas, reclamas mojones y robas. Una ronda.",
        "2016 rules: play, claim stones, then draw. One round.",
        {},
        0,
    ),
    HouseRules(
        "reglas-1999",
        "Reglas de 1999",
        "1999 rules",
        "Los mojones se reclaman al principio del turno, antes de jugar la carta.",
        "Stones are claimed at the start of the turn, before playing a card.",
        {"claim_timing": "before_play"},
        10,
    ),
    HouseRules(
        "a-3-rondas",
        "A 3 rondas",
        "Three rounds",
        "Tres rondas: el ganador de cada ronda suma 5 puntos y el perdedor 1 por mojón.",
        "Three rounds: each round's winner scores 5, the loser 1 per stone held.",
        {"rounds": 3},
        20,
    ),
]


class Migration(migrations.Migration):
    dependencies = [("games", "0004_rebuild_scout_states")]

    operations = [seed_house_rules("schotten_totten", VARIANTS)]
