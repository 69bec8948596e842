"""Rebuild the saved state of every Scout match from its move log.

The Scout state now keeps a summary of every finished round (``round_summaries``) instead of
the points alone (``round_scores``), so a state saved before cannot be loaded. The move log is
the truth: replaying it with the engine gives the state in the new form, summaries included.

It was the shared ``games`` app's 0004 before Scout had an app of its own. A database that ran
it then runs it again here: replaying the log gives the same states, so that changes nothing.

Every log replayed here was played before issue 23 changed end (b) of a round (a set scouted
away keeps its owner), so it is replayed under the rule of its time: the engine-internal
``LEGACY_MOVES_OPTION`` set to the number of its moves (0003 records it on the matches that
need it; the stored state does not carry it once every move is played).
"""

from django.db import migrations


def rebuild(apps, schema_editor):
    from games.scout import engine

    Match = apps.get_model("games", "Match")
    MoveRecord = apps.get_model("games", "MoveRecord")
    matches = Match.objects.filter(game="scout", state__isnull=False)
    for match in matches.iterator():
        moves = list(
            MoveRecord.objects.filter(match=match).order_by("seq").values_list("seat", "code")
        )
        options = {**match.options, engine.LEGACY_MOVES_OPTION: len(moves)}
        state = engine.new_game(match.players, options=options, seed=match.seed)
        for seat, code in moves:
            state = engine.apply(state, seat, engine.parse_move(code))
        match.state = engine.dump(state)
        match.save(update_fields=["state"])


class Migration(migrations.Migration):
    dependencies = [("scout", "0001_house_rules")]

    operations = [migrations.RunPython(rebuild, migrations.RunPython.noop)]
