"""Scout, issue 23: a round ends when a show was scouted away (rules, "End of a round" (b)).

A set scouted down to 0 cards keeps its owner, so when the other players scout every card of it
the turn comes back to the owner and the round ends, the owner its ender and exempt from the
hand penalty. The rule before the fix survives only behind the engine-internal
``LEGACY_MOVES_OPTION``, to replay matches stored before the change.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.engine import InvalidOptions
from games.scout import bots, engine
from games.scout.engine import LEGACY_MOVES_OPTION, Scout, ScoutShow, Show, apply, legal_moves


def position(players, hands, legacy_moves=0):
    """Seat 0 to move on an empty table in round 1, with these hands."""
    data = engine.dump(engine.new_game(players, seed=1))
    data.update(
        phase="play",
        decided=[True] * players,
        turn=0,
        first=0,
        active=[],
        owner=None,
        hands=[list(h) for h in hands],
    )
    if legacy_moves:
        data["legacy_moves"] = legacy_moves
    return engine.load(data)


def run_of(length, rest=("9/1",)):
    """A rising run 2, 3, ... of ``length`` cards, then ``rest``, which stays in the hand."""
    return [f"{v}/1" for v in range(2, 2 + length)] + list(rest)


OTHERS = [["6/1", "8/2"], ["7/1", "10/2"], ["5/1", "10/3"], ["4/1", "10/4"]]


def scout_it_all_away(players, legacy_moves=0, rest=("9/1",)):
    """Seat 0 shows a run of ``players - 1`` cards, and every other seat scouts one card of it."""
    hands = [run_of(players - 1, rest), *OTHERS[: players - 1]]
    state = position(players, hands, legacy_moves)
    state = apply(state, 0, Show(0, players - 1))
    for seat in range(1, players):
        assert state.round == 1 and engine.to_move(state) == (seat,)
        state = apply(state, seat, Scout("L", False, 0))
    return state


@pytest.mark.parametrize("players", [3, 4, 5])
def test_when_the_others_scout_every_card_of_a_show_the_round_ends_with_its_owner_the_ender(
    players,
):
    state = scout_it_all_away(players)
    # The turn came back to seat 0 with the table empty: the round is over, seat 0 ended it.
    assert state.round == 2 and state.phase == engine.DECIDE
    (summary,) = engine.view(state, 1)["round_summaries"]
    assert (summary["end"], summary["ender"]) == ("all_scouted", 0)
    rows = summary["seats"]
    # Seat 0 kept its 9 but is exempt; it received a token for every scout.
    assert (rows[0]["hand"], rows[0]["exempt"], rows[0]["tokens"]) == (1, True, players - 1)
    assert rows[0]["points"] == players - 1
    for row in rows[1:]:
        assert (row["hand"], row["exempt"], row["tokens"]) == (3, False, 0)
        assert row["points"] == -3
    assert [row["seat"] for row in rows if row["exempt"]] == [0]
    last = engine.view(state, None)["last_moves"]
    assert [e["kind"] for e in last[-players:]] == ["scout"] * (players - 1) + ["round_end"]
    assert last[-1]["seat"] == 0


@pytest.mark.parametrize("players", [3, 4, 5])
def test_a_set_scouted_away_early_keeps_its_owner_and_the_next_player_must_show(players):
    # Fewer cards than other players: the table is empty before the turn comes back, so the
    # next seat cannot scout and must show, onto the empty table; that show takes nothing.
    hands = [run_of(players - 2), *OTHERS[: players - 1]]
    state = position(players, hands)
    state = apply(state, 0, Show(0, players - 2))
    for seat in range(1, players - 1):
        state = apply(state, seat, Scout("L", False, 0))
    assert state.active == () and state.owner == 0 and state.round == 1
    seat = players - 1
    assert engine.to_move(state) == (seat,)
    moves = legal_moves(state, seat)
    assert moves and all(isinstance(m, Show) for m in moves)
    assert {(m.start, m.length) for m in moves} == {(0, 1), (1, 1)}  # any single card
    state = apply(state, seat, Show(1, 1))
    assert (state.owner, state.taken[seat]) == (seat, ())


def test_a_single_card_scouted_away_by_the_only_other_player_ends_nothing_in_the_two_player_game():
    # Two players: the scout keeps the turn, so with nothing left to scout that player shows.
    state = position(2, [["3/1", "9/1"], ["6/1", "8/2"]])
    state = apply(state, 0, Show(0, 1))
    state = apply(state, 1, Scout("L", False, 0))
    assert state.round == 1 and state.owner == 0 and engine.to_move(state) == (1,)
    assert all(isinstance(m, Show) for m in legal_moves(state, 1))


# --------------------------------------------------------------------------------------------
# Property: no round passes a full circle of scouts after a show
# --------------------------------------------------------------------------------------------


def pick(rng, moves):
    """A random legal move, scouts preferred, so that sets are often scouted away."""
    scouts = [m for m in moves if isinstance(m, Scout)]
    if scouts and rng.random() < 0.75:
        return rng.choice(scouts)
    return rng.choice(moves)


@settings(max_examples=40, deadline=None)
@given(st.sampled_from([3, 4, 5]), st.integers(0, 2**32 - 1))
def test_no_round_passes_a_full_circle_of_scouts_after_a_show(players, seed):
    rng = random.Random(seed)
    state = engine.new_game(players, seed=seed)
    shower, scouts = None, 0  # the seat of the round's last show, and the scouts since
    for _ in range(20_000):
        if engine.is_over(state):
            break
        seat = rng.choice(engine.to_move(state))
        move = pick(rng, legal_moves(state, seat))
        before = state.round
        state = apply(state, seat, move)
        if state.round != before or engine.is_over(state):
            if isinstance(move, Scout):
                # Only end (b) ends a round on a scout: the one that completed the circle.
                ended = state.summaries[before - 1]
                assert scouts == players - 2
                assert (ended.end, ended.ender) == (engine.END_ALL_SCOUTED, shower)
            shower, scouts = None, 0
        elif isinstance(move, Show | ScoutShow):
            shower, scouts = seat, 0
        elif isinstance(move, Scout):
            scouts += 1
            # The round goes on, so the turn has not come back to the owner of the last show,
            # who is still the owner, cards left or not.
            assert scouts < players - 1
            assert state.owner == shower and engine.to_move(state) != (shower,)
    else:
        pytest.fail("a random game did not end")


def test_random_games_do_reach_the_end_by_a_full_circle_of_scouts_on_an_emptied_set():
    # The property above is not vacuous: in these seeded games rounds end with the last card of
    # the set scouted by the seat before its owner, the case the fix is about.
    emptied = 0
    for seed in range(30):
        rng = random.Random(seed)
        players = 3 + seed % 3
        state = engine.new_game(players, seed=seed)
        while not engine.is_over(state):
            seat = rng.choice(engine.to_move(state))
            move = pick(rng, legal_moves(state, seat))
            after = apply(state, seat, move)
            ended = after.round != state.round or engine.is_over(after)
            if ended and isinstance(move, Scout) and len(state.active) == 1:
                assert after.summaries[-1].ender == state.owner
                emptied += 1
            state = after
    assert emptied >= 10


# --------------------------------------------------------------------------------------------
# The old rule, kept to replay matches stored before the change
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("players", [3, 4, 5])
def test_under_the_old_rule_a_set_scouted_away_lost_its_owner_and_the_round_went_on(players):
    state = scout_it_all_away(players, legacy_moves=players)
    assert state.round == 1 and state.owner is None and state.active == ()
    assert engine.to_move(state) == (0,)
    assert all(isinstance(m, Show) for m in legal_moves(state, 0))
    assert state.legacy_moves == 0  # every old-rule move is spent


def test_the_old_rule_counts_down_move_by_move_and_the_dump_carries_it_only_while_it_lasts():
    state = engine.new_game(3, {LEGACY_MOVES_OPTION: 4}, seed=7)
    assert state.legacy_moves == 4 and state.options == ()
    assert engine.view(state, 0)["options"] == {}  # not a house rule: never shown
    seen = []
    while not engine.is_over(state) and len(seen) < 6:
        data = engine.dump(state)
        seen.append(data.get("legacy_moves", 0))
        assert engine.dump(engine.load(data)) == data
        seat = engine.to_move(state)[0]
        state = apply(state, seat, legal_moves(state, seat)[0])
    assert seen == [4, 3, 2, 1, 0, 0]
    assert "legacy_moves" not in engine.dump(state)


def test_the_old_rule_applies_to_the_first_moves_and_the_corrected_rule_after_them():
    # Three old-rule moves: the show and the two scouts that take the whole set.
    state = scout_it_all_away(3, legacy_moves=3, rest=("9/1", "8/2", "5/3"))
    assert state.round == 1 and state.owner is None and engine.to_move(state) == (0,)
    # From here the corrected rule: 9-8 shown and scouted away by both others ends the round.
    state = apply(state, 0, Show(0, 2))
    state = apply(state, 1, Scout("L", False, 0))
    assert state.owner == 0 and state.round == 1
    state = apply(state, 2, Scout("L", False, 0))
    assert state.round == 2
    assert (state.summaries[0].end, state.summaries[0].ender) == (engine.END_ALL_SCOUTED, 0)


def test_a_state_stored_before_the_change_loads_and_continues_under_the_corrected_rule():
    # A dump as the old engine stored it: a set scouted away, no owner, no "legacy_moves" key.
    stored = engine.dump(scout_it_all_away(3, legacy_moves=3, rest=("9/1", "8/2", "5/3")))
    assert "legacy_moves" not in stored and stored["owner"] is None and stored["active"] == []
    state = engine.load(stored)
    assert engine.dump(state) == stored
    state = apply(state, 0, Show(0, 2))
    state = apply(state, 1, Scout("L", False, 0))
    state = apply(state, 2, Scout("L", False, 0))
    assert state.round == 2 and state.summaries[0].ender == 0


@pytest.mark.parametrize("bad", [-1, "3", 2.5, True, None])
def test_the_old_rule_option_must_be_a_whole_number_of_moves(bad):
    with pytest.raises(InvalidOptions, match=LEGACY_MOVES_OPTION):
        engine.new_game(3, {LEGACY_MOVES_OPTION: bad}, seed=1)


# --------------------------------------------------------------------------------------------
# A round can still go round in circles, and the bots end it
# --------------------------------------------------------------------------------------------


def table(state):
    """What repeats in a circle: hands, active set, owner, turn (tokens only ever grow)."""
    return (state.hands, state.active, state.owner, state.turn)


def test_the_rules_still_allow_a_round_to_go_round_in_circles():
    # Three players: each shows the first card of their hand onto the empty table and the next
    # scouts it to the end of theirs; the one after cannot scout, so must show. Nothing is
    # taken, nobody's show is scouted by all the others, and the same table comes back.
    state = position(3, [["2/1", "9/1"], ["6/1", "8/2"], ["7/1", "10/2"]])
    seen = {}
    for step in range(60):
        seen.setdefault(table(state), step)
        seat = state.turn
        move = Scout("L", False, len(state.hands[seat])) if state.active else Show(0, 1)
        assert move in legal_moves(state, seat)
        state = apply(state, seat, move)
        assert state.round == 1 and all(not taken for taken in state.taken)
    assert table(state) in seen, "the table never came back"


def circling_position():
    """Four seats with 1 to 3 cards, where easy shows one or two cards onto the empty table and
    the others scout them away, round after round (found in the hard bot's simulations)."""
    data = engine.dump(engine.new_game(4, seed=1))
    data.update(
        phase="play",
        decided=[True] * 4,
        turn=1,
        hands=[["4/2"], ["5/7", "8/3"], ["6/4"], ["5/1", "10/1"]],
        active=["9/8", "10/8"],
        owner=0,
        chips=[True] * 4,
    )
    return engine.load(data)


def play_easy(state, rng, moves):
    """Easy plays every seat for up to ``moves`` moves; returns the state and the first repeat."""
    seen = set()
    repeated = False
    for _ in range(moves):
        if state.round != 1:
            break
        repeated = repeated or table(state) in seen
        seen.add(table(state))
        seat = state.turn
        view = engine.view(state, seat)
        state = apply(state, seat, bots.choose(view, legal_moves(state, seat), "easy", rng))
    return state, repeated


def test_without_the_stall_guard_easy_goes_round_in_circles(monkeypatch):
    # Why bots.py keeps its guard: a real circle remains after the fix.
    monkeypatch.setattr(bots, "_stalling", lambda view: False)
    state, repeated = play_easy(circling_position(), random.Random(0), 200)
    assert repeated and state.round == 1


@pytest.mark.parametrize("seed", range(8))
def test_the_stall_guard_lets_easy_break_the_circle_and_end_the_round(seed):
    state, _ = play_easy(circling_position(), random.Random(seed), 200)
    assert state.round == 2
