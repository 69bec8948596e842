"""Scout engine: the rules of ``shared/rules/scout.md`` case by case, plus properties."""

from __future__ import annotations

import json
import random
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.engine import IllegalMove, InvalidMove, InvalidOptions
from games.scout import engine
from games.scout.engine import (
    KEEP,
    PASS,
    ROTATE,
    Scout,
    ScoutShow,
    Show,
    apply,
    beats,
    legal_moves,
    round_points,
    set_kind,
    show_windows,
)

# --------------------------------------------------------------------------------------------
# Helpers
# --------------------------------------------------------------------------------------------


def position(
    players=3,
    hands=None,
    active=(),
    owner=None,
    turn=0,
    tokens=None,
    chips=None,
    first=0,
    rnd=1,
):
    """A state in the middle of a round, built from a dump of a real game."""
    data = engine.dump(engine.new_game(players, seed=1))
    data.update(
        phase="play",
        decided=[True] * players,
        turn=turn,
        first=first,
        round=rnd,
        active=list(active),
        owner=owner,
    )
    if hands is not None:
        data["hands"] = [list(h) for h in hands]
    if tokens is not None:
        data["tokens"] = list(tokens)
    if chips is not None:
        data["chips"] = list(chips)
    return engine.load(data)


def up(cards):
    return [int(c.split("/")[0]) for c in cards]


def codes(moves):
    return {m.code for m in moves}


def play_all_decisions(state, rotate=()):
    for seat in engine.to_move(state):
        state = apply(state, seat, ROTATE if seat in rotate else KEEP)
    return state


def summary_rows(summary):
    """A round summary's seats as ``(taken, tokens, hand, exempt, points, total)``."""
    keys = ("taken", "tokens", "hand", "exempt", "points", "total")
    return [tuple(row[k] for k in keys) for row in summary["seats"]]


def random_playout(players, seed, on_state=None):
    rng = random.Random(seed)
    state = engine.new_game(players, seed=seed)
    while not engine.is_over(state):
        if on_state:
            on_state(state)
        seat = rng.choice(engine.to_move(state))
        state = apply(state, seat, rng.choice(legal_moves(state, seat)))
    return state


# --------------------------------------------------------------------------------------------
# Sets and their strength (rules, "A turn", Show)
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("values", "kind"),
    [
        ([7], "single"),
        ([4, 4], "group"),
        ([4, 4, 4], "group"),
        ([3, 4, 5], "run"),
        ([7, 6, 5], "run"),
        ([9, 10], "run"),
        ([10, 1], None),  # no wrap from 10 to 1
        ([9, 10, 1], None),
        ([3, 5], None),
        ([3, 4, 3], None),
        ([3, 4, 4], None),
        ([5, 5, 6], None),
        ([], None),
    ],
)
def test_set_kind_names_singles_groups_and_runs_in_hand_order(values, kind):
    assert set_kind(values) == kind


@pytest.mark.parametrize(
    ("new", "active", "expected"),
    [
        # 1. more cards beat fewer, whatever the values and types
        ([1, 2], [10], True),
        ([2, 3, 4, 5], [9, 9, 9], True),  # the seed: 4 consecutive beat 3 identical
        ([9, 9, 9], [2, 3, 4, 5], False),
        ([10], [1, 2], False),
        # 2. as many cards: matching beats consecutive
        ([1, 1], [8, 9], True),
        ([8, 9], [1, 1], False),
        ([2, 2, 2], [8, 9, 10], True),
        # 3. same number and type: the higher lowest value
        ([5, 6], [4, 5], True),
        ([4, 5], [5, 6], False),
        ([7, 6], [5, 6], True),  # descending 7-6 has lowest 6 > 5
        ([6, 5], [5, 6], False),  # the same set backwards is equal: no beat
        ([5, 6], [6, 5], False),
        ([6, 6], [5, 5], True),
        ([5, 5], [5, 5], False),
        ([8], [7], True),
        ([7], [7], False),
        ([6], [7], False),
        ([3, 4, 5], [2, 3, 4], True),
        ([6, 5, 4], [5, 6, 7], False),
        # no active set: any set; never a non-set
        ([1], [], True),
        ([3, 4, 5], [], True),
        ([3, 5], [], False),
        ([3, 5], [1], False),
        ([], [], False),
    ],
)
def test_beats_compares_length_then_type_then_lowest_value(new, active, expected):
    assert beats(new, active) is expected


def test_beats_refuses_an_active_set_that_is_no_set():
    with pytest.raises(ValueError):
        beats([5], [1, 3])


def test_show_windows_lists_every_window_that_beats_the_active_set():
    hand = [3, 4, 5, 5, 5, 9, 8]
    assert show_windows(hand, []) == [
        (0, 1),
        (0, 2),
        (0, 3),
        (1, 1),
        (1, 2),
        (2, 1),
        (2, 2),
        (2, 3),
        (3, 1),
        (3, 2),
        (4, 1),
        (5, 1),
        (5, 2),
        (6, 1),
    ]
    assert show_windows(hand, [6, 7]) == [(0, 3), (2, 2), (2, 3), (3, 2), (5, 2)]
    assert show_windows(hand, [4, 4]) == [(0, 3), (2, 2), (2, 3), (3, 2)]
    assert show_windows(hand, [5, 5, 5]) == []
    assert show_windows(hand, [8]) == [
        (0, 2),
        (0, 3),
        (1, 2),
        (2, 2),
        (2, 3),
        (3, 2),
        (5, 1),
        (5, 2),
    ]


values = st.lists(st.integers(1, 10), max_size=12)


def any_set():
    return st.one_of(
        st.just([]),
        st.integers(1, 10).map(lambda v: [v]),
        st.tuples(st.integers(1, 10), st.integers(2, 4)).map(lambda t: [t[0]] * t[1]),
        st.tuples(st.integers(1, 7), st.integers(2, 4), st.booleans()).map(
            lambda t: list(range(t[0], min(t[0] + t[1], 11)))[:: -1 if t[2] else 1]
        ),
    )


@settings(max_examples=60)
@given(values, any_set())
def test_show_windows_agrees_with_set_kind_and_beats_on_every_window(hand, active):
    expected = [
        (s, n)
        for s in range(len(hand))
        for n in range(1, len(hand) - s + 1)
        if beats(hand[s : s + n], active)
    ]
    assert show_windows(hand, active) == expected


def test_round_points_count_taken_cards_and_tokens_minus_the_hand_except_for_the_ender():
    assert round_points([4, 0, 2], [1, 3, 0], [0, 5, 2], 0) == [5, -2, 0]
    assert round_points([4, 0, 2], [1, 3, 0], [3, 5, 2], 0) == [5, -2, 0]  # ender keeps cards
    assert round_points([4, 0, 2], [1, 3, 0], [3, 5, 2], 1) == [2, 3, 0]
    assert round_points([1, 1], [3, 0], [2, 2], None) == [2, -1]


# --------------------------------------------------------------------------------------------
# Set-up (rules, "Set-up by player count")
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("players", "size", "removed", "rounds"),
    [(2, 11, {"9-10"}, 2), (3, 12, {f"{a}-10" for a in range(1, 10)}, 3), (4, 11, {"9-10"}, 4)]
    + [(5, 9, set(), 5)],
)
def test_setup_deals_the_right_cards_to_every_player_count(players, size, removed, rounds):
    state = engine.new_game(players, seed=4)
    data = engine.dump(state)
    assert [len(h) for h in data["hands"]] == [size] * players
    assert {engine._ID[engine._card(c)] for c in data["deck"]} == removed
    assert len(data["set_aside"]) == (22 if players == 2 else 0)
    assert Counter(engine.all_cards(state)) == Counter(engine.DECK)
    seen = engine.view(state, 0)
    assert seen["rounds"] == rounds
    assert seen["phase"] == "decide"
    assert engine.to_move(state) == tuple(range(players))
    assert [s["tokens"] for s in seen["seats"]] == [3 if players == 2 else 0] * players
    assert [s["chip_spent"] for s in seen["seats"]] == [None if players == 2 else False] * players


def test_the_deck_has_45_cards_one_per_pair():
    assert len(engine.DECK) == 45 == len(set(engine.DECK))
    assert "1-10" in engine.DECK and "9-10" in engine.DECK and "10-9" not in engine.DECK


def test_shuffling_turns_cards_both_ways_and_each_round_deals_anew():
    state = engine.new_game(5, seed=9)
    cards = [c for h in engine.dump(state)["hands"] for c in h]
    ups = [int(c.split("/")[0]) > int(c.split("/")[1]) for c in cards]
    assert 10 < sum(ups) < 35  # both orientations occur
    first = engine.dump(state)["hands"]
    state = random_playout_until_round(5, 9, 2)
    assert engine.dump(state)["hands"] != first


def random_playout_until_round(players, seed, rnd):
    rng = random.Random(seed)
    state = engine.new_game(players, seed=seed)
    while state.round < rnd:
        seat = rng.choice(engine.to_move(state))
        state = apply(state, seat, rng.choice(legal_moves(state, seat)))
    return state


@pytest.mark.parametrize("players", [1, 6, 0])
def test_new_game_refuses_bad_player_counts(players):
    with pytest.raises(InvalidOptions):
        engine.new_game(players)


# --------------------------------------------------------------------------------------------
# Hand decision (rules, "Set-up", Hand decision)
# --------------------------------------------------------------------------------------------


def test_rotating_reverses_the_order_and_turns_every_card():
    state = engine.new_game(3, seed=2)
    data = engine.dump(state)
    data["hands"][1] = ["1/5", "7/3", "10/2"]
    state = engine.load(data)
    seen = engine.view(state, 1)
    assert seen["rotated_hand"] == ["2/10", "3/7", "5/1"]
    state = apply(state, 1, ROTATE)
    assert engine.view(state, 1)["hand"] == ["2/10", "3/7", "5/1"]
    assert engine.view(state, 1)["rotated_hand"] is None
    kept = apply(engine.load(data), 1, KEEP)
    assert engine.view(kept, 1)["hand"] == ["1/5", "7/3", "10/2"]


def test_every_seat_decides_at_once_and_play_starts_with_the_first_player():
    state = engine.new_game(4, seed=2)
    assert engine.to_move(state) == (0, 1, 2, 3)
    state = apply(state, 2, ROTATE)
    assert engine.to_move(state) == (0, 1, 3)
    assert legal_moves(state, 2) == []
    with pytest.raises(IllegalMove):
        apply(state, 2, KEEP)
    with pytest.raises(IllegalMove):
        apply(state, 0, Show(0, 1))
    state = apply(apply(apply(state, 0, KEEP), 3, KEEP), 1, ROTATE)
    assert engine.to_move(state) == (0,)
    assert engine.view(state, 0)["phase"] == "play"
    with pytest.raises(IllegalMove):
        apply(state, 0, KEEP)


def test_a_seat_sees_only_whether_the_others_decided_not_how():
    state = engine.new_game(3, seed=5)
    kept = apply(state, 1, KEEP)
    rotated = apply(state, 1, ROTATE)
    for seat in (0, 2, None):
        assert engine.view(kept, seat) == engine.view(rotated, seat)
    seen = engine.view(kept, 0)
    assert [s["decided"] for s in seen["seats"]] == [False, True, False]
    assert seen["last_moves"][-1]["kind"] == "decide"
    assert engine.view(kept, 0)["rotated_hand"] is not None


def test_the_first_player_moves_one_seat_on_each_round():
    firsts = []

    def record(state):
        if state.phase == "play" and (not firsts or firsts[-1][0] != state.round):
            firsts.append((state.round, state.first))

    random_playout(4, 3, record)
    assert firsts == [(1, 0), (2, 1), (3, 2), (4, 3)]


# --------------------------------------------------------------------------------------------
# Show, scout, scout & show (rules, "A turn")
# --------------------------------------------------------------------------------------------

HANDS_3P = [["3/1", "4/2", "9/7"], ["6/1", "6/2", "8/1"], ["5/1", "2/1", "10/1"]]


def test_a_show_takes_the_beaten_set_and_becomes_the_active_set():
    state = position(hands=HANDS_3P, active=["1/9", "2/8"], owner=2, turn=0)
    assert codes(legal_moves(state, 0)) >= {"s:0:2"}
    assert "s:2:1" not in codes(legal_moves(state, 0))  # a single never beats a pair
    after = apply(state, 0, Show(0, 2))
    data = engine.dump(after)
    assert data["active"] == ["3/1", "4/2"]
    assert data["owner"] == 0
    assert data["taken"][0] == ["1/9", "2/8"]
    assert data["hands"][0] == ["9/7"]
    assert engine.to_move(after) == (1,)
    assert engine.view(after, 2)["seats"][0]["taken"] == 2


def test_a_set_that_does_not_beat_or_is_no_set_is_refused_with_a_reason():
    state = position(hands=HANDS_3P, active=["4/9", "4/8"], owner=2, turn=0)
    with pytest.raises(IllegalMove, match="does not beat"):
        apply(state, 0, Show(0, 2))
    with pytest.raises(IllegalMove, match="no set"):
        apply(state, 0, Show(1, 2))
    with pytest.raises(IllegalMove, match="no window"):
        apply(state, 0, Show(2, 2))
    with pytest.raises(IllegalMove, match="not seat 1's turn"):
        apply(state, 1, Show(0, 1))


def test_with_no_active_set_any_set_may_be_shown():
    state = position(hands=HANDS_3P, turn=1)
    assert codes(legal_moves(state, 1)) == {"s:0:1", "s:0:2", "s:1:1", "s:2:1"}


@pytest.mark.parametrize("end", ["L", "R"])
@pytest.mark.parametrize("turned", [False, True])
@pytest.mark.parametrize("pos", [0, 1, 2, 3])
def test_scout_takes_either_end_either_way_up_into_any_position(end, turned, pos):
    state = position(hands=HANDS_3P, active=["4/1", "5/2", "6/3"], owner=2, turn=0)
    move = Scout(end, turned, pos)
    assert move in legal_moves(state, 0)
    after = apply(state, 0, move)
    data = engine.dump(after)
    card = {"L": "4/1", "R": "6/3"}[end]
    if turned:
        card = "/".join(reversed(card.split("/")))
    expected = list(HANDS_3P[0])
    expected.insert(pos, card)
    assert data["hands"][0] == expected
    assert data["active"] == (["5/2", "6/3"] if end == "L" else ["4/1", "5/2"])
    assert data["owner"] == 2
    assert data["tokens"] == [0, 0, 1]  # the owner receives a token
    assert engine.to_move(after) == (1,)
    scouted = engine.view(after, 1)["last_moves"][-1]
    assert scouted["kind"] == "scout" and scouted["scouted"] == {"L": "4/1", "R": "6/3"}[end]
    assert scouted["end"] == {"L": "left", "R": "right"}[end]


def test_a_one_card_set_has_one_end_and_scouting_it_away_empties_the_table_not_the_owner():
    state = position(hands=HANDS_3P, active=["7/1"], owner=2, turn=0)
    moves = legal_moves(state, 0)
    assert not any(isinstance(m, Scout) and m.end == "R" for m in moves)
    with pytest.raises(IllegalMove):
        apply(state, 0, Scout("R", False, 0))
    after = apply(state, 0, Scout("L", False, 3))
    data = engine.dump(after)
    # Rules, "A turn", Scout: a set scouted down to 0 cards keeps its owner.
    assert data["active"] == [] and data["owner"] == 2
    assert data["tokens"] == [0, 0, 1]
    # Nothing to scout: the next seat must show, and may show anything.
    assert not any(isinstance(m, Scout | ScoutShow) for m in legal_moves(after, 1))
    assert codes(legal_moves(after, 1)) >= {"s:0:2", "s:2:1"}


def test_scout_and_show_is_measured_against_what_is_left_of_the_active_set():
    # Active 5-6-7 (a run of 3). Scouting the 7 leaves 5-6; scouting the 5 leaves 6-7.
    hands = [["8/1", "3/2", "4/1"], ["6/1", "6/2", "8/3"], ["5/1", "2/1", "10/1"]]
    state = position(hands=hands, active=["5/9", "6/9", "7/9"], owner=1, turn=0)
    moves = legal_moves(state, 0)
    ss = {m.code for m in moves if isinstance(m, ScoutShow)}
    # The 7 before the 8 makes 7-8: a run of two with lowest 7 beats the 5-6 that is left.
    assert "cs:R:0:0:0:2" in ss
    # 3-4 (lowest 3) does not beat 5-6, although it would have been shown before a 2-card set.
    assert "cs:R:0:0:2:2" not in ss
    # The 5 after the 8 reads 8-5: no set.
    assert "cs:L:0:1:0:2" not in ss
    # The 7 after the 8 reads 8-7, a descending run with lowest 7.
    assert "cs:R:0:1:0:2" in ss
    # Against the whole 3-card set none of these would do: only the reduced set counts.
    assert not beats([7, 8], [5, 6, 7])
    after = apply(state, 0, parse("cs:R:0:0:0:2"))
    data = engine.dump(after)
    assert data["active"] == ["7/9", "8/1"]
    assert data["taken"][0] == ["5/9", "6/9"]
    assert data["tokens"] == [0, 1, 0]
    assert data["chips"] == [True, False, False]
    assert data["hands"][0] == ["3/2", "4/1"]
    assert engine.view(after, 2)["seats"][0]["chip_spent"] is True
    # Once a round: seat 0's chip is spent.
    later = engine.load({**engine.dump(after), "turn": 0, "owner": 2})
    assert not any(isinstance(m, ScoutShow) for m in legal_moves(later, 0))
    with pytest.raises(IllegalMove, match="already spent"):
        apply(later, 0, ScoutShow("L", False, 0, 0, 1))


def test_scout_and_show_is_offered_only_when_a_show_can_follow():
    # Active 9-9-9: whatever is scouted, 9-9 is left, and no pair or longer set can be made.
    hands = [["1/2", "3/2", "5/1"], ["6/1", "6/2", "8/3"], ["4/1", "2/1", "10/1"]]
    state = position(hands=hands, active=["9/1", "9/2", "9/3"], owner=1, turn=0)
    assert not any(isinstance(m, ScoutShow) for m in legal_moves(state, 0))
    assert any(isinstance(m, Scout) for m in legal_moves(state, 0))


def parse(code):
    return engine.parse_move(code)


def test_equivalent_scout_and_show_codes_parse_to_the_listed_one():
    assert parse("cs:L:1:4:4:1") == ScoutShow("L", True, 0, 0, 1)
    assert parse("cs:R:0:5:3:2") == ScoutShow("R", False, 3, 4, 2)
    assert parse("cs:R:0:3:4:2") == ScoutShow("R", False, 3, 4, 2)


# --------------------------------------------------------------------------------------------
# Every legal move, checked against trying every code (and distinct)
# --------------------------------------------------------------------------------------------


def every_code(state, seat):
    n = len(state.hands[seat])
    yield from ("k", "r", "p")
    for s in range(n + 1):
        for length in range(1, n + 2):
            yield f"s:{s}:{length}"
    for end in "LR":
        for t in "01":
            for p in range(n + 2):
                yield f"c:{end}:{t}:{p}"
                for s in range(n + 2):
                    for length in range(1, n + 3 - s):
                        yield f"cs:{end}:{t}:{p}:{s}:{length}"


def outcome_of(state, seat, move):
    try:
        return apply(state, seat, move)  # states are frozen values: equal iff the same
    except IllegalMove:
        return None


def round_may_end_by_scouting(state, seat):
    # Then every scout ends the round the same way, wherever the card went: skip such a turn.
    return state.players > 2 and state.owner == (seat + 1) % state.players


def check_moves_complete_and_distinct(state, seat):
    listed = legal_moves(state, seat)
    listed_outcomes = [outcome_of(state, seat, m) for m in listed]
    assert None not in listed_outcomes, "a listed move is refused by apply"
    assert len(set(listed_outcomes)) == len(listed), "two listed moves do the same"
    every = {outcome_of(state, seat, parse(c)) for c in every_code(state, seat)} - {None}
    assert every == set(listed_outcomes), "a legal outcome is missing from legal_moves"


card_text = st.tuples(st.integers(1, 10), st.integers(1, 10)).filter(lambda t: t[0] != t[1])


@st.composite
def small_positions(draw):
    players = draw(st.sampled_from([2, 3, 5]))
    cards = draw(
        st.lists(card_text, min_size=4, max_size=9, unique_by=lambda t: frozenset(t)).map(
            lambda ts: [f"{a}/{b}" for a, b in ts]
        )
    )
    split = draw(st.integers(1, min(6, len(cards) - 1)))
    hand, rest = cards[:split], cards[split:]
    kind = draw(any_set())
    active = []
    for value in kind:
        match = next((c for c in rest if int(c.split("/")[0]) == value), None)
        if match is None:
            break
        rest.remove(match)
        active.append(match)
    if set_kind(up(active)) is None and active:
        active = active[:1]
    hands = [hand, *[["1/2"] for _ in range(players - 1)]]
    return position(
        players=players,
        hands=hands,
        active=active,
        owner=players - 1 if active else None,  # the seat before: the round cannot end now
        turn=0,
        tokens=[draw(st.integers(0, 1))] * players if players == 2 else None,
    )


@settings(max_examples=30, deadline=None)
@given(small_positions())
def test_legal_moves_list_every_legal_outcome_exactly_once(state):
    check_moves_complete_and_distinct(state, 0)


def test_legal_moves_are_complete_and_distinct_in_real_games():
    checked = 0

    def check(state):
        nonlocal checked
        seat = engine.to_move(state)[0]
        if (
            state.phase == "play"
            and len(state.hands[seat]) <= 8
            and not round_may_end_by_scouting(state, seat)
            and checked < 12
        ):
            check_moves_complete_and_distinct(state, seat)
            checked += 1

    random_playout(4, 21, check)
    assert checked == 12


# --------------------------------------------------------------------------------------------
# End of a round and scoring (rules, "End of a round", "Scoring each round")
# --------------------------------------------------------------------------------------------


def test_emptying_the_hand_ends_the_round_and_exempts_that_player():
    hands = [["3/1", "4/2"], ["6/1", "6/2", "8/1"], ["5/1", "2/1", "10/1"]]
    state = position(hands=hands, active=["1/9"], owner=2, turn=0, tokens=[0, 2, 1])
    after = apply(state, 0, Show(0, 2))
    # seat 0: 1 taken; seat 1: 2 tokens - 3 cards; seat 2: 1 token - 3 cards
    (summary,) = engine.view(after, 0)["round_summaries"]
    assert (summary["round"], summary["end"], summary["ender"]) == (1, "empty_hand", 0)
    assert summary_rows(summary) == [
        # taken, tokens, hand, exempt, points, total
        (1, 0, 0, True, 1, 1),
        (0, 2, 3, False, -1, -1),
        (0, 1, 3, False, -2, -2),
    ]
    assert after.round == 2 and after.phase == "decide"
    last = engine.view(after, 1)["last_moves"]
    assert last[-1] == {
        "seat": 0,
        "kind": "round_end",
        "round": 1,
        "cards": [],
        "scouted": None,
        "end": None,
        "took": 0,
    }
    assert last[-2]["kind"] == "show" and last[-2]["cards"] == ["3/1", "4/2"]


def test_when_everyone_else_scouts_the_round_ends_and_the_owner_keeps_their_cards():
    hands = [["3/1", "4/2", "5/3", "9/2"], ["6/1", "6/2", "8/1"], ["5/1", "2/1", "10/1"]]
    state = position(hands=hands, turn=0)
    state = apply(state, 0, Show(0, 3))  # 3-4-5, owner 0, one card left in hand
    state = apply(state, 1, Scout("L", False, 0))
    assert state.round == 1
    state = apply(state, 2, Scout("L", False, 0))
    # The turn came back to seat 0, whose 5 is still the active set: the round is over.
    assert state.round == 2
    # seat 0: 2 tokens, 1 card in hand but exempt; seats 1 and 2: -4 cards each.
    (summary,) = engine.view(state, 0)["round_summaries"]
    assert (summary["end"], summary["ender"]) == ("all_scouted", 0)
    assert summary_rows(summary) == [
        (0, 2, 1, True, 2, 2),
        (0, 0, 4, False, -4, -4),
        (0, 0, 4, False, -4, -4),
    ]
    assert engine.view(state, 0)["scores"] == [2, -4, -4]


def test_a_set_scouted_away_before_the_turn_comes_back_makes_the_next_player_show():
    # Three players, one card shown: the next seat scouts it, and the one after has nothing to
    # scout, so must show onto the empty table; the turn never came back to the owner.
    hands = [["3/1", "9/2"], ["6/1", "6/2", "8/1"], ["5/1", "2/1", "10/1"]]
    state = position(hands=hands, turn=0)
    state = apply(state, 0, Show(0, 1))
    state = apply(state, 1, Scout("L", False, 0))  # the set is gone, its owner stays
    assert engine.dump(state)["owner"] == 0
    assert all(isinstance(m, Show) for m in legal_moves(state, 2))
    state = apply(state, 2, Show(0, 1))
    state = apply(state, 0, Scout("L", False, 0))
    assert engine.dump(state)["owner"] == 2
    assert state.round == 1 and engine.to_move(state) == (1,)


def test_the_game_ends_after_as_many_rounds_as_players_and_ties_share_a_rank():
    state = random_playout(3, 8)
    assert len(state.summaries) == 3
    assert list(state.scores) == [sum(r.points[i] for r in state.summaries) for i in range(3)]
    assert engine.to_move(state) == ()
    data = engine.dump(state)
    data["scores"] = [4, 9, 4]
    ranks = {row["seat"]: row["rank"] for row in engine.outcome(engine.load(data))}
    assert ranks == {0: 2, 1: 1, 2: 2}
    with pytest.raises(IllegalMove):
        apply(state, 0, KEEP)


def test_the_scout_and_show_chip_returns_every_round():
    hands = [["3/1"], ["6/1", "6/2", "8/1"], ["5/1", "2/1", "10/1"]]
    state = position(hands=hands, active=["1/9"], owner=2, turn=0, chips=[True, True, False])
    state = apply(state, 0, Show(0, 1))
    assert engine.dump(state)["chips"] == [False, False, False]
    assert engine.dump(state)["tokens"] == [0, 0, 0]


# --------------------------------------------------------------------------------------------
# Round summaries: every finished round's scoring stays public for the rest of the game
# --------------------------------------------------------------------------------------------

ENDS_BY_PLAYERS = {2: {"empty_hand", "pass"}, 3: {"empty_hand", "all_scouted"}}


def check_summaries(summaries, players, scores):
    """Each summary adds up by the rules, and its totals run on to the game's scores."""
    totals = [0] * players
    for number, summary in enumerate(summaries, start=1):
        assert summary["round"] == number
        assert summary["end"] in ENDS_BY_PLAYERS[min(players, 3)]
        ender = summary["ender"]
        assert [row["seat"] for row in summary["seats"]] == list(range(players))
        assert [row["seat"] for row in summary["seats"] if row["exempt"]] == [ender]
        if summary["end"] == "empty_hand":
            assert summary["seats"][ender]["hand"] == 0
        for row in summary["seats"]:
            penalty = 0 if row["exempt"] else row["hand"]
            assert row["points"] == row["taken"] + row["tokens"] - penalty
            totals[row["seat"]] += row["points"]
            assert row["total"] == totals[row["seat"]]
    assert totals == list(scores)


@pytest.mark.parametrize(("players", "seed"), [(2, 3), (3, 4), (4, 5), (5, 6), (5, 7)])
def test_every_round_leaves_a_summary_that_adds_up_to_the_game_totals(players, seed):
    state = random_playout(players, seed)
    seen = engine.view(state, None)
    assert len(seen["round_summaries"]) == seen["rounds"]
    check_summaries(seen["round_summaries"], players, seen["scores"])
    assert [row["score"] for row in engine.outcome(state)] == seen["scores"]


def test_a_round_summary_outlives_the_recent_moves():
    just_ended = {}

    def watch(state):
        summaries = engine.view(state, None)["round_summaries"]
        if summaries and summaries[-1]["round"] not in just_ended:
            just_ended[summaries[-1]["round"]] = summaries[-1]

    state = random_playout(5, 9, watch)
    seen = engine.view(state, 2)
    assert all(e["round"] > 1 for e in seen["last_moves"]), "round 1 left the recent moves"
    assert seen["round_summaries"][0] == just_ended[1]
    assert seen["round_summaries"][0]["ender"] is not None
    assert seen["round_summaries"][:4] == [just_ended[r] for r in range(1, 5)]


def test_the_two_ways_to_end_a_round_are_both_summarised():
    hands = [["3/1", "4/2", "5/3", "9/2"], ["6/1", "6/2", "8/1"], ["5/1", "2/1", "10/1"]]
    state = position(hands=hands, turn=0)
    state = apply(state, 0, Show(0, 3))
    state = apply(state, 1, Scout("L", False, 0))
    scouted = apply(state, 2, Scout("L", False, 0))
    emptied = apply(
        position(hands=[["9/1"], *hands[1:]], active=["2/5"], owner=2, turn=0), 0, Show(0, 1)
    )
    for after, end, exempt_hand in ((scouted, "all_scouted", 1), (emptied, "empty_hand", 0)):
        (summary,) = engine.view(after, 1)["round_summaries"]
        assert (summary["end"], summary["ender"]) == (end, 0)
        assert summary["seats"][0]["exempt"] and summary["seats"][0]["hand"] == exempt_hand


def test_the_exemption_spares_only_the_ender_who_still_holds_cards():
    hands = [["3/1", "4/2", "5/3", "9/2", "9/4"], ["6/1", "6/2", "8/1"], ["5/1", "2/1", "10/1"]]
    state = position(hands=hands, turn=0, tokens=[0, 1, 0])
    state = apply(state, 0, Show(0, 3))
    state = apply(state, 1, Scout("R", True, 3))
    state = apply(state, 2, Scout("L", False, 0))
    (summary,) = engine.view(state, 0)["round_summaries"]
    # seat 0 keeps 2 cards but is exempt; seat 1 holds 4 cards and 1 token, seat 2 4 cards.
    assert summary_rows(summary) == [
        (0, 2, 2, True, 2, 2),
        (0, 1, 4, False, -3, -3),
        (0, 0, 4, False, -4, -4),
    ]


@settings(max_examples=15, deadline=None)
@given(st.integers(2, 5), st.integers(0, 10**6))
def test_the_round_points_of_random_games_sum_to_the_final_scores(players, seed):
    state = random_playout(players, seed)
    summaries = engine.view(state, None)["round_summaries"]
    sums = [sum(s["seats"][i]["points"] for s in summaries) for i in range(players)]
    totals = [row["total"] for row in summaries[-1]["seats"]]
    assert sums == list(state.scores) == totals
    for seat in range(players):
        assert engine.view(state, seat)["round_summaries"] == summaries, "public to every seat"


def test_round_summaries_survive_dump_and_load_and_name_no_card():
    state = engine.new_game(4, seed=17)
    rng = random.Random(17)
    while state.round < 3:
        seat = rng.choice(engine.to_move(state))
        state = apply(state, seat, rng.choice(legal_moves(state, seat)))
    data = json.loads(json.dumps(engine.dump(state)))
    assert len(data["round_summaries"]) == 2
    loaded = engine.load(data)
    assert loaded == state and engine.dump(loaded) == data
    assert engine.view(loaded, 1)["round_summaries"] == engine.view(state, 1)["round_summaries"]

    def strings(value):
        if isinstance(value, str):
            yield value
        elif isinstance(value, dict):
            for item in value.values():
                yield from strings(item)
        elif isinstance(value, list):
            for item in value:
                yield from strings(item)

    assert set(strings(data["round_summaries"])) <= {"empty_hand", "all_scouted", "pass"}
    data["round_summaries"][0]["end"] = "resigned"
    with pytest.raises(ValueError, match="resigned"):
        engine.load(data)


# --------------------------------------------------------------------------------------------
# Two players (rules, "Two players")
# --------------------------------------------------------------------------------------------


def test_two_players_pay_a_token_to_scout_and_keep_the_turn():
    hands = [["3/1", "4/2", "9/7"], ["6/1", "6/2", "8/1"]]
    state = position(players=2, hands=hands, active=["5/9", "6/9"], owner=1, turn=0)
    moves = legal_moves(state, 0)
    assert PASS in moves
    assert not any(isinstance(m, ScoutShow) for m in moves)
    state = apply(state, 0, Scout("R", False, 2))
    assert engine.dump(state)["tokens"] == [2, 3]  # the opponent receives nothing
    assert engine.to_move(state) == (0,)
    state = apply(state, 0, Scout("L", False, 0))
    state = apply(state, 0, Show(0, 1))  # 5 against no active set
    assert engine.dump(state)["tokens"] == [1, 3]
    assert engine.to_move(state) == (1,)
    with pytest.raises(IllegalMove):
        apply(state, 1, ScoutShow("L", False, 0, 0, 1))


def test_two_players_without_a_token_cannot_scout():
    hands = [["3/1", "4/2"], ["6/1", "6/2", "8/1"]]
    state = position(players=2, hands=hands, active=["9/5"], owner=1, turn=0, tokens=[0, 3])
    assert not any(isinstance(m, Scout) for m in legal_moves(state, 0))
    with pytest.raises(IllegalMove, match="no scout token"):
        apply(state, 0, Scout("L", False, 0))


def test_a_pass_ends_the_two_player_round_and_unspent_tokens_score():
    hands = [["3/1", "4/2", "9/7"], ["6/1", "6/2"]]
    state = position(players=2, hands=hands, active=["5/9"], owner=1, turn=0, tokens=[1, 3])
    state = apply(state, 0, PASS)
    # seat 0: 1 token - 3 cards; seat 1 owns the active set: 3 tokens, its 2 cards not counted.
    (summary,) = engine.view(state, 0)["round_summaries"]
    assert (summary["end"], summary["ender"]) == ("pass", 1)
    assert summary_rows(summary) == [(0, 1, 3, False, -2, -2), (0, 3, 2, True, 3, 3)]
    assert state.round == 2


def test_no_pass_without_an_active_set_nor_in_bigger_games():
    state = position(players=2, hands=[["3/1"], ["6/1"]], turn=0)
    assert PASS not in legal_moves(state, 0)
    with pytest.raises(IllegalMove):
        apply(state, 0, PASS)
    state = position(players=3, hands=HANDS_3P, active=["5/9"], owner=1, turn=0)
    assert PASS not in legal_moves(state, 0)
    with pytest.raises(IllegalMove):
        apply(state, 0, PASS)


def test_the_two_player_game_deals_the_set_aside_cards_in_round_two_and_ends_after_it():
    state = engine.new_game(2, seed=13)
    set_aside = engine.dump(state)["set_aside"]
    assert engine.view(state, 0)["set_aside"] == 22
    rng = random.Random(1)
    while state.round == 1:
        seat = engine.to_move(state)[0]
        state = apply(state, seat, rng.choice(legal_moves(state, seat)))
    data = engine.dump(state)
    assert data["hands"] == [set_aside[:11], set_aside[11:]]
    assert data["set_aside"] == [] and len(data["deck"]) == 23
    assert [s["tokens"] for s in engine.view(state, 1)["seats"]] == [3, 3]
    assert state.first == 1
    assert Counter(engine.all_cards(state)) == Counter(engine.DECK)
    while not engine.is_over(state):
        seat = engine.to_move(state)[0]
        state = apply(state, seat, rng.choice(legal_moves(state, seat)))
    assert len(state.summaries) == 2


# --------------------------------------------------------------------------------------------
# Views, dumps, sampling, codes
# --------------------------------------------------------------------------------------------


def test_a_view_shows_the_own_hand_and_only_counts_of_the_others():
    state = play_all_decisions(engine.new_game(3, seed=6))
    data = engine.dump(state)
    seen = engine.view(state, 1)
    assert seen["hand"] == data["hands"][1]
    text = json.dumps(seen)
    for other in (0, 2):
        for card in data["hands"][other]:
            assert f'"{card}"' not in text
    assert "seed" not in text
    assert engine.view(state, None)["hand"] is None
    assert [s["hand_size"] for s in seen["seats"]] == [12, 12, 12]
    assert seen["to_move"] == [0] and seen["turn"] == 0


def test_the_set_aside_cards_never_reach_a_view():
    state = play_all_decisions(engine.new_game(2, seed=6))
    text = json.dumps(engine.view(state, 0))
    for card in engine.dump(state)["set_aside"]:
        assert f'"{card}"' not in text


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_dump_and_load_round_trip_through_json(players):
    rng = random.Random(players)

    def check(state):
        if rng.random() > 0.25:
            return
        data = json.loads(json.dumps(engine.dump(state)))
        assert engine.dump(engine.load(data)) == data
        assert engine.load(data) == state

    random_playout(players, players, check)


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_sampled_states_agree_with_every_seat_view_through_a_game(players):
    rng = random.Random(players)

    def check(state):
        if rng.random() < 0.1:
            for seat in [*range(players), None]:
                seen = engine.view(state, seat)
                sampled = engine.sample_state(seen, random.Random(2))
                assert engine.view(sampled, seat) == seen
                assert Counter(engine.all_cards(sampled)) == Counter(engine.all_cards(state))
                if seat is not None:
                    assert legal_moves(sampled, seat) == legal_moves(state, seat)

    random_playout(players, 40 + players, check)


@settings(max_examples=12, deadline=None)
@given(st.integers(2, 5), st.integers(0, 10**6))
def test_cards_are_conserved_through_random_games(players, seed):
    def check(state):
        assert Counter(engine.all_cards(state)) == Counter(engine.DECK)

    random_playout(players, seed, check)


@pytest.mark.parametrize(
    "code", ["k", "r", "p", "s:0:1", "s:12:3", "c:L:0:0", "c:R:1:13", "cs:L:1:0:2:3"]
)
def test_listed_codes_parse_back_to_the_same_move(code):
    assert parse(code).code == code


@pytest.mark.parametrize(
    "code", ["", "x", "s:0:0", "s:-1:2", "s:01:2", "c:M:0:1", "c:L:2:1", "cs:L:0:1:2", "k ", 5]
)
def test_malformed_codes_raise_invalid_move(code):
    with pytest.raises(InvalidMove):
        parse(code)


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_the_contract_checks_hold_on_other_seeds_too(players):
    from tests.engines.test_contract import playout

    state, steps = playout(engine, players, seed=100 + players, check_every=31)
    assert engine.is_over(state) and steps > 0
