"""The English description of the house rules "No points for ties" named the suit "oros" where
every table says "Coins" (found at a club night). Only a description still as the first
migration wrote it is changed: one an admin rewrote is theirs."""

from django.db import migrations

SLUG = "sin-puntos-en-empate"
OLD = "A tie for most cards, oros or sevens gives that point to nobody."
NEW = "A tie for most cards, coins or sevens gives that point to nobody."


def _swap(apps, before: str, after: str) -> None:
    RuleVariant = apps.get_model("games", "RuleVariant")
    RuleVariant.objects.filter(game="escoba", slug=SLUG, description_en=before).update(
        description_en=after
    )


def to_coins(apps, schema_editor):
    _swap(apps, OLD, NEW)


def to_oros(apps, schema_editor):
    _swap(apps, NEW, OLD)


class Migration(migrations.Migration):
    dependencies = [("escoba", "0002_state_last_moves_named_as_elsewhere")]

    operations = [migrations.RunPython(to_coins, to_oros)]
