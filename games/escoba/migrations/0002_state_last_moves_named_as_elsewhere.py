"""Stored Escoba states keep their recent public events under ``last_moves``, the name every
engine's dump, state and view now share (it was ``history`` in Escoba's dump alone).

Only the key changes: the events are the same lists, in the same order.
"""

from django.db import migrations


def _rename(apps, old: str, new: str) -> None:
    Match = apps.get_model("games", "Match")
    for match in Match.objects.filter(game="escoba", state__isnull=False).iterator():
        if old in match.state:
            match.state = {(new if key == old else key): value for key, value in match.state.items()}
            match.save(update_fields=["state"])


def to_last_moves(apps, schema_editor):
    _rename(apps, "history", "last_moves")


def to_history(apps, schema_editor):
    _rename(apps, "last_moves", "history")


class Migration(migrations.Migration):
    dependencies = [("escoba", "0001_house_rules"), ("games", "0008_match_summary")]

    operations = [migrations.RunPython(to_last_moves, to_history)]
