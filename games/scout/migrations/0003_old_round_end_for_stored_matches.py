"""Keep the old end (b) of a round for the Scout matches stored before issue 23 that need it.

Issue 23 corrected end (b): a set scouted down to nothing keeps its owner, so when the others
scout every card of it the turn comes back to the owner and the round ends. Before, the owner
was dropped and the round went on. A match stored before the change whose log went past such
a point (or whose stored state has a set just scouted away, with no owner) replays to its
stored state and result only under the old rule.

For those matches this records in the match's options how many of its moves were played
under the old rule (the engine-internal ``LEGACY_MOVES_OPTION``, not a house rule): the engine
plays those moves under the old rule and every later one under the corrected rule. So a
finished match and its replay stay as they were, and a match in play continues under the
corrected rule from its next move while its whole log still replays. A match whose log
replays to its stored state under the corrected rule is left alone; no stored state changes.
"""

from django.db import migrations


def _replays(engine, match, options, moves) -> bool:
    """Whether ``moves`` replay under ``options`` to the match's stored state."""
    from games.engine import EngineError

    try:
        state = engine.new_game(match.players, options=options, seed=match.seed)
        for seat, code in moves:
            state = engine.apply(state, seat, engine.parse_move(code))
    except EngineError:  # a move the corrected rule does not allow: that round had ended
        return False
    return engine.dump(state) == match.state


def keep_old_rule(apps, schema_editor):
    from games.scout import engine

    Match = apps.get_model("games", "Match")
    MoveRecord = apps.get_model("games", "MoveRecord")
    for match in Match.objects.filter(game="scout", state__isnull=False).iterator():
        moves = list(
            MoveRecord.objects.filter(match=match).order_by("seq").values_list("seat", "code")
        )
        options = {
            key: value for key, value in match.options.items() if key != engine.LEGACY_MOVES_OPTION
        }
        if not moves or _replays(engine, match, options, moves):
            continue
        # Every one of these moves was played under the old rule, whatever else went wrong.
        match.options = {**options, engine.LEGACY_MOVES_OPTION: len(moves)}
        match.save(update_fields=["options"])


def forget_old_rule(apps, schema_editor):
    """Back to the engine before issue 23, which knows no such option (and plays the old rule)."""
    from games.scout import engine

    Match = apps.get_model("games", "Match")
    for match in Match.objects.filter(game="scout").iterator():
        if engine.LEGACY_MOVES_OPTION in (match.options or {}):
            match.options = {
                k: v for k, v in match.options.items() if k != engine.LEGACY_MOVES_OPTION
            }
            match.save(update_fields=["options"])


class Migration(migrations.Migration):
    dependencies = [("scout", "0002_rebuild_states")]

    operations = [migrations.RunPython(keep_old_rule, forget_old_rule)]
