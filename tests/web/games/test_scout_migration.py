"""Scout's migration 0003 (issue 23): matches stored before the round-end fix still replay.

A match stored before the fix was played under the old end (b) (a set scouted away lost its
owner, so the round went on). The migration records, on the matches whose log needs it, how
many moves were played under that rule; finished matches then replay to their stored state
and result, and a match in play continues under the corrected rule.
"""

from __future__ import annotations

import random

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from games import writes
from games.engine import EngineError
from games.models import Match, MoveRecord
from games.scout import engine
from games.scout.engine import LEGACY_MOVES_OPTION, Scout
from tests.web.table_helpers import start_match

BEFORE = ("scout", "0002_rebuild_states")
AFTER = ("scout", "0003_old_round_end_for_stored_matches")


def migrate(target):
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate([target])


def old_rule_log(players, seed, stop=None):
    """A random game's move log under the old rule, and whether the rules differed on it.

    Scouts are preferred, so that sets are often scouted away. Stops when ``stop(state)``
    says so, once the rules have differed at least once.
    """
    rng = random.Random(seed)
    state = engine.new_game(players, {LEGACY_MOVES_OPTION: 10**6}, seed=seed)
    log, differed = [], False
    while not engine.is_over(state):
        if differed and stop is not None and stop(state):
            break
        seat = rng.choice(engine.to_move(state))
        moves = engine.legal_moves(state, seat)
        scouts = [m for m in moves if isinstance(m, Scout)]
        move = rng.choice(scouts if scouts and rng.random() < 0.75 else moves)
        # The old rule went on where the corrected one ends the round: the last card of the
        # set scouted by the seat before its owner.
        if isinstance(move, Scout) and len(state.active) == 1:
            differed = differed or (seat + 1) % players == state.owner
        log.append((seat, move.code))
        state = engine.apply(state, seat, move)
    return log, differed


def replay(players, seed, log, options=None):
    state = engine.new_game(players, options, seed=seed)
    for seat, code in log:
        state = engine.apply(state, seat, engine.parse_move(code))
    return state


def store_as_before(match, seed, log, finished):
    """Give ``match`` this seed and log, and the state the engine before the fix stored."""
    match.moves.all().delete()
    match.seed = seed
    state = replay(match.players, match.seed, log, {LEGACY_MOVES_OPTION: len(log)})
    MoveRecord.objects.bulk_create(
        MoveRecord(match=match, seq=i, seat=seat, code=code)
        for i, (seat, code) in enumerate(log, start=1)
    )
    match.options = {}
    match.state = engine.dump(state)
    match.moves_played = len(log)
    match.version = len(log)
    if finished:
        assert engine.is_over(state)
        match.mark_finished()
    match.save()
    return state


def replays_under_the_corrected_rule(match, log):
    try:
        return engine.dump(replay(match.players, match.seed, log)) == match.state
    except EngineError:
        return False


def just_shown_two(state):
    """Three players, a 2-card set shown by the seat before the one to move."""
    return (
        state.phase == engine.PLAY
        and len(state.active) == 2
        and state.owner == (state.turn - 1) % state.players
        and state.last_moves[-1].kind == "show"
    )


@pytest.mark.django_db(transaction=True)
def test_stored_scout_matches_replay_as_before_and_one_in_play_continues_under_the_fix(
    make_member,
):
    users = [make_member(name) for name in ("ana", "berta", "carla")]
    migrate(BEFORE)

    # Finished, 3 players, the rules differed on it: its log replays only under the old rule.
    finished = start_match("scout", users)
    log_finished, differed = old_rule_log(3, 101)
    assert differed
    final = store_as_before(finished, 101, log_finished, finished=True)
    assert not replays_under_the_corrected_rule(finished, log_finished)

    # In play, 3 players, past a point where the rules differed, and a 2-card set just shown.
    playing = start_match("scout", users)
    log_playing, differed = old_rule_log(3, 102, stop=just_shown_two)
    assert differed
    assert not engine.is_over(store_as_before(playing, 102, log_playing, finished=False))
    assert not replays_under_the_corrected_rule(playing, log_playing)

    # Finished, 2 players: the fix changes nothing there, so the match is left alone.
    two = start_match("scout", users[:2])
    log_two, _ = old_rule_log(2, 103)
    store_as_before(two, 103, log_two, finished=True)
    assert replays_under_the_corrected_rule(two, log_two)

    stored = {m.pk: (m.state, m.options) for m in Match.objects.all()}
    migrate(AFTER)

    for match in Match.objects.all():
        state, options = stored[match.pk]
        assert match.state == state, "no stored state changes"
        if match.pk in (finished.pk, playing.pk):
            assert match.options == {LEGACY_MOVES_OPTION: match.moves_played}
        else:
            assert match.options == options
        # The move log is the truth: Match.replay gives back the stored state.
        assert engine.dump(match.replay()) == match.state
    finished.refresh_from_db()
    assert engine.outcome(finished.replay()) == engine.outcome(final)

    # The match in play continues under the corrected rule: the two others scout the 2-card
    # set away, and the turn coming back to its owner ends the round, the owner exempt.
    playing.refresh_from_db()
    state = engine.load(playing.state)
    owner, rnd = state.owner, state.round
    for _ in range(2):
        seat = state.turn
        result = writes.play_move(playing.pk, users[seat], "c:L:0:0", playing.version)
        playing.refresh_from_db()
        state = result.state
    assert state.round == rnd + 1 or engine.is_over(state)
    summary = state.summaries[rnd - 1]
    assert (summary.end, summary.ender) == (engine.END_ALL_SCOUTED, owner)
    assert engine.dump(playing.replay()) == playing.state

    # Back to before: the option is gone, so the engine before the fix would load them again.
    migrate(BEFORE)
    assert not any(LEGACY_MOVES_OPTION in m.options for m in Match.objects.all())
    migrate(AFTER)
