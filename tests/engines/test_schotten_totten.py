"""Schotten Totten engine: the rules of ``shared/rules/schotten_totten.md``, case by case."""

from __future__ import annotations

import functools
import itertools
import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.engine import IllegalMove, InvalidMove, InvalidOptions
from games.schotten_totten import engine as E
from games.schotten_totten.engine import (
    Claim,
    EndTurn,
    Pass,
    Play,
    claim_valid,
    counter_example,
    formation,
    winner,
)

STRENGTH = {kind: rank for rank, kind in enumerate(E.KINDS)}


def strength(cards):
    kind, total = formation(cards)
    return STRENGTH[kind], total


def position(
    sides,
    hands=((), ()),
    deck=None,
    turn=0,
    phase="play",
    owners=None,
    completed_first=None,
    claim_timing="after_play",
    rounds=1,
    round_index=0,
    scores=(0, 0),
    round_results=(),
):
    """A state from a dict ``{stone: (seat 0 cards, seat 1 cards)}``; unplaced cards form the
    deck unless ``deck`` is given. ``completed_first`` defaults to whoever has three cards
    (seat 0 first when both do)."""
    stones = [sides.get(s, ((), ())) for s in range(9)]
    if completed_first is None:
        completed_first = [0 if len(a) == 3 else 1 if len(b) == 3 else None for a, b in stones]
    used = {c for a, b in stones for c in (*a, *b)} | {c for hand in hands for c in hand}
    if deck is None:
        deck = [c for c in E.DECK if c not in used]
    return E.load(
        {
            "options": {"claim_timing": claim_timing, "rounds": rounds},
            "seed": 5,
            "round": round_index,
            "turn": turn,
            "phase": phase,
            "hands": [list(hands[0]), list(hands[1])],
            "deck": list(deck),
            "stones": [
                {
                    "cards": [list(a), list(b)],
                    "owner": None if owners is None else owners[s],
                    "completed_first": completed_first[s],
                }
                for s, (a, b) in enumerate(stones)
            ],
            "scores": list(scores),
            "round_results": list(round_results),
            "last_moves": [],
        }
    )


def codes(state, seat):
    return sorted(move.code for move in E.legal_moves(state, seat))


# --- formations --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("cards", "expected"),
    [
        (["R7", "R8", "R9"], ("straight_flush", 24)),
        (["G2", "G1", "G3"], ("straight_flush", 6)),
        (["B4", "Y4", "P4"], ("three", 12)),
        (["G2", "G6", "G9"], ("flush", 17)),
        (["R8", "R9", "R1"], ("flush", 18)),
        (["B5", "R6", "Y7"], ("straight", 18)),
        (["O9", "Y1", "G2"], ("sum", 12)),
        (["O1", "Y1", "G2"], ("sum", 4)),
    ],
)
def test_every_formation_is_recognised_with_its_total(cards, expected):
    assert formation(cards) == expected


def test_runs_do_not_wrap_around_from_nine_to_one():
    assert formation(["R9", "O1", "Y2"]) == ("sum", 12)
    assert formation(["P8", "P9", "P1"])[0] == "flush"


def test_formation_refuses_anything_but_three_known_cards():
    for bad in (["R1", "R2"], ["R1", "R2", "X3"], ["R1", "R1", "R2"], ["R1", "R2", "R3", "R4"]):
        with pytest.raises(ValueError):
            formation(bad)


def test_the_kinds_rank_colour_run_three_colour_run_sum():
    ladder = [["O1", "Y2", "G4"], ["O1", "Y2", "G3"], ["B1", "B2", "B4"], ["R1", "O1", "Y1"]]
    ladder.append(["P1", "P2", "P3"])
    strengths = [strength(cards) for cards in ladder]
    assert strengths == sorted(strengths)
    assert [s[0] for s in strengths] == [0, 1, 2, 3, 4]


# --- tie-breaks between two full sides ---------------------------------------------------------


def test_a_stronger_kind_beats_a_higher_sum():
    assert claim_valid(["R1", "O1", "Y1"], ["G9", "B8", "P9"], [])
    assert not claim_valid(["G9", "B8", "P9"], ["R1", "O1", "Y1"], [])


def test_with_the_same_kind_the_higher_sum_wins():
    assert claim_valid(["B2", "B6", "B9"], ["G2", "G6", "G8"], [], mine_completed_first=False)
    assert not claim_valid(["G2", "G6", "G8"], ["B2", "B6", "B9"], [], mine_completed_first=True)


def test_a_tie_on_kind_and_sum_goes_to_who_completed_first():
    mine, theirs = ["B5", "R6", "Y7"], ["G5", "O6", "P7"]
    assert claim_valid(mine, theirs, [], mine_completed_first=True)
    assert not claim_valid(mine, theirs, [], mine_completed_first=False)


def test_the_state_records_who_completed_first_and_the_tie_goes_to_them():
    # Seat 1 completed a 15-sum first; seat 0 now ties it and may not claim; seat 1 may.
    state = position(
        {0: (("R1", "O9"), ("B2", "G6", "P7"))},
        hands=(("Y5", "R2"), ("G1", "G2")),
        completed_first=[1] + [None] * 8,
    )
    state = E.apply(state, 0, Play("Y5", 0))
    assert state.completed_first[0] == 1
    assert state.turn == 1 and state.phase == "play", "a tie is not claimable by the later side"
    state = E.apply(state, 1, Play("G1", 4))
    assert state.phase == "claim"
    assert codes(state, 1) == ["c:0", "end"]


# --- early claims ------------------------------------------------------------------------------


def test_the_top_colour_run_is_claimable_at_once_because_a_completion_can_only_tie_it():
    assert claim_valid(["R7", "R8", "R9"], [], [])


def test_a_lower_colour_run_is_not_claimable_against_an_empty_side():
    assert not claim_valid(["R6", "R7", "R8"], [], [])
    assert counter_example(["R6", "R7", "R8"], [], []) == ["O7", "O8", "O9"]


def test_an_empty_side_is_provably_beaten_once_every_stronger_run_is_on_the_table():
    mine = ["R6", "R7", "R8"]
    blockers = ["O9", "Y9", "G9", "B9"]
    # P7-P8-P9 could still beat it: the claimant holding P9 in hand proves nothing.
    assert not claim_valid(mine, [], blockers)
    assert counter_example(mine, [], blockers) == ["P7", "P8", "P9"]
    assert claim_valid(mine, [], [*blockers, "P9"])


def test_one_opposing_card_needs_every_stronger_completion_blocked():
    mine = ["G2", "G3", "G4"]  # colour run, 9
    assert not claim_valid(mine, ["Y5"], [])
    assert not claim_valid(mine, ["Y5"], ["Y6"]), "Y3-Y4-Y5 is still possible"
    assert counter_example(mine, ["Y5"], ["Y6"]) == ["Y3", "Y4"]
    assert claim_valid(mine, ["Y5"], ["Y6", "Y4"]), "no colour run left; three 5s only tie less"


def test_two_opposing_cards_with_the_decisive_cards_on_the_table_or_not():
    mine = ["Y8", "O8", "P8"]  # three of a kind, 24
    theirs = ["G9", "B9"]
    assert not claim_valid(mine, theirs, [])
    assert counter_example(mine, theirs, []) == ["P9"]
    assert not claim_valid(mine, theirs, ["R9", "O9", "Y9"])
    assert claim_valid(mine, theirs, ["R9", "O9", "Y9", "P9"])


def test_a_colour_is_beaten_only_by_a_higher_colour_that_can_still_be_made():
    theirs = ["G9", "G7"]
    table = ["G8"]  # no green colour run 7-8-9; the best green colour is G9 G7 G6, 22
    assert claim_valid(["B9", "B8", "B6"], theirs, table)  # 23
    assert claim_valid(["B9", "B8", "B5"], theirs, table)  # 22: a tie loses
    assert not claim_valid(["B9", "B7", "B5"], theirs, table)  # 21
    assert counter_example(["B9", "B7", "B5"], theirs, table) == ["G6"]
    assert claim_valid(["B9", "B7", "B5"], theirs, [*table, "G6"])


def test_a_run_is_beaten_by_a_higher_run_of_any_colours():
    mine, theirs = ["R4", "O5", "Y6"], ["G6", "B7"]  # run 15 against a 6 and a 7
    assert not claim_valid(mine, theirs, [])
    assert counter_example(mine, theirs, []) == ["P8"]  # 6-7-8, the highest run left
    eights = [f"{c}8" for c in E.COLOURS]
    assert not claim_valid(mine, theirs, eights), "5-6-7 is still higher"
    fives = [f"{c}5" for c in E.COLOURS if c != "O"]
    assert claim_valid(mine, theirs, [*eights, *fives])
    assert claim_valid(["R5", "O6", "Y7"], theirs, eights), "5-6-7 would only tie"


def test_a_completion_that_only_ties_loses_to_the_side_already_complete():
    mine = ["B4", "B5", "B6"]
    theirs = ["R4", "R5"]  # R6 completes the same colour run with the same sum
    assert claim_valid(mine, theirs, [])
    assert counter_example(mine, theirs, []) is None


def test_a_side_that_can_no_longer_be_completed_cannot_beat_anything():
    mine = ["O1", "Y1", "G3"]  # a poor sum of 5
    # Only P9 is not on the table: one card, and R9 needs two more.
    table = [c for c in E.DECK if c not in {"O1", "Y1", "G3", "R9", "P9"}]
    assert claim_valid(mine, ["R9"], table)
    assert not claim_valid(mine, ["R9", "B9"], [c for c in table if c != "B9"])
    assert claim_valid(mine, ["R9", "B9"], [*[c for c in table if c != "B9"], "P9"])


def test_fewer_than_three_cards_can_never_claim():
    assert not claim_valid(["R7", "R8"], [], [])
    with pytest.raises(ValueError):
        counter_example(["R7", "R8"], [], [])


def test_a_full_opposing_side_that_wins_gives_an_empty_counter_example():
    assert counter_example(["O1", "Y2", "G4"], ["R5", "R6", "R7"], []) == []
    assert counter_example(["R5", "R6", "R7"], ["O1", "Y2", "G4"], []) is None


# --- brute force comparison --------------------------------------------------------------------


def oracle_strength(cards):
    """The rules' order written out again, independently of the engine, for the brute force."""
    return _oracle_strength(frozenset(cards))


@functools.cache
def _oracle_strength(cards):
    values = sorted(int(card[1]) for card in cards)
    one_colour = len({card[0] for card in cards}) == 1
    run = values[1] == values[0] + 1 and values[2] == values[1] + 1
    if one_colour and run:
        rank = 4
    elif values[0] == values[2]:
        rank = 3
    elif one_colour:
        rank = 2
    elif run:
        rank = 1
    else:
        rank = 0
    return rank, sum(values)


def brute_force_claim(mine, theirs, other_visible):
    """Try every completion of the opposing side with cards not on the table."""
    mine_strength = oracle_strength(mine)
    if len(theirs) == 3:
        return oracle_strength(theirs) <= mine_strength  # mine completed first: ties are mine
    table = {*mine, *theirs, *other_visible}
    unseen = [c for c in E.DECK if c not in table]
    return all(
        oracle_strength([*theirs, *extra]) <= mine_strength
        for extra in itertools.combinations(unseen, 3 - len(theirs))
    )


def brute_force_best(theirs, other_visible, mine):
    table = {*mine, *theirs, *other_visible}
    unseen = [c for c in E.DECK if c not in table]
    return max(
        (
            oracle_strength([*theirs, *extra])
            for extra in itertools.combinations(unseen, 3 - len(theirs))
        ),
        default=None,
    )


@st.composite
def claim_positions(draw):
    deck = draw(st.permutations(E.DECK))
    # Random cards rarely make the question interesting, so mine is often a colour run, three of
    # a kind or a colour, and the opposing cards often share a colour or a value.
    shape = draw(st.sampled_from(["random", "run", "three", "flush"]))
    if shape == "run":
        colour, low = draw(st.sampled_from(E.COLOURS)), draw(st.integers(1, 7))
        mine = [f"{colour}{low + i}" for i in range(3)]
    elif shape == "three":
        value = draw(st.integers(1, 9))
        mine = [f"{c}{value}" for c in draw(st.permutations(E.COLOURS))[:3]]
    elif shape == "flush":
        colour = draw(st.sampled_from(E.COLOURS))
        mine = [card for card in deck if card[0] == colour][:3]
    else:
        mine = list(deck[:3])
    rest = [c for c in deck if c not in mine]
    n_theirs = draw(st.integers(0, 2))
    related = draw(st.sampled_from(["random", "colour", "value"]))
    if related != "random" and n_theirs:
        key = 0 if related == "colour" else 1
        theirs = [c for c in rest if c[key] == rest[0][key]][:n_theirs]
    else:
        theirs = rest[:n_theirs]
    rest = [c for c in rest if c not in theirs]
    n_other = draw(st.integers(0, 40))
    return mine, theirs, rest[:n_other]


@settings(max_examples=120, deadline=None)
@given(claim_positions())
def test_claim_valid_agrees_with_trying_every_completion(case):
    mine, theirs, other = case
    assert claim_valid(mine, theirs, other) == brute_force_claim(mine, theirs, other)


@settings(max_examples=30, deadline=None)
@given(claim_positions())
def test_the_counter_example_is_the_strongest_completion_and_uses_unseen_cards(case):
    mine, theirs, other = case
    example = counter_example(mine, theirs, other)
    if example is None:
        assert claim_valid(mine, theirs, other)
        return
    assert not {*example} & {*mine, *theirs, *other}
    assert len(theirs) + len(example) == 3
    assert strength([*theirs, *example]) > strength(mine)
    assert oracle_strength([*theirs, *example]) == brute_force_best(theirs, other, mine)


# --- winning a round ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("owners", "expected"),
    [
        ([None] * 9, None),
        ([0, 0, 0, None, None, None, None, None, None], 0),
        ([None, None, None, None, None, None, 1, 1, 1], 1),
        ([0, 0, None, 0, 0, None, 1, 1, None], None),
        ([1, None, 1, None, 1, None, 1, None, 1], 1),
        ([0, 1, 0, 1, 0, 1, 0, 1, None], None),
        ([0, 0, 0, 1, 1, 1, 1, 1, 0], 1),  # both at once (automatic end): more stones
    ],
)
def test_three_adjacent_or_five_stones_win(owners, expected):
    assert winner(owners) == expected


def test_a_claim_that_makes_three_adjacent_stones_ends_the_game_at_once():
    state = position(
        {
            0: (("R1", "R2", "R3"), ()),
            1: (("O1", "O2", "O3"), ()),
            2: (("Y7", "Y8"), ("G1",)),
        },
        hands=(("Y9", "B1"), ("G2", "G3")),
        owners=[0, 0] + [None] * 7,
    )
    state = E.apply(state, 0, Play("Y9", 2))
    assert E.legal_moves(state, 0) == [Claim(2), EndTurn()]
    state = E.apply(state, 0, Claim(2))
    assert E.is_over(state) and E.to_move(state) == ()
    assert E.outcome(state) == [
        {"seat": 0, "score": 5, "rank": 1},
        {"seat": 1, "score": 0, "rank": 2},
    ]


# --- the turn ----------------------------------------------------------------------------------


def test_the_first_deal_gives_six_cards_each_and_seat_zero_moves():
    state = E.new_game(2, seed=1)
    assert [len(h) for h in state.hands] == [6, 6] and len(state.deck) == 42
    assert E.to_move(state) == (0,)
    assert len(E.legal_moves(state, 0)) == 6 * 9
    assert E.legal_moves(state, 1) == []


def test_without_a_claim_the_turn_ends_after_the_play_and_the_player_draws():
    state = E.new_game(2, seed=1)
    card, top = state.hands[0][0], state.deck[0]
    after = E.apply(state, 0, Play(card, 4))
    assert after.sides[4][0] == (card,)
    assert after.hands[0] == (*state.hands[0][1:], top)
    assert after.deck == state.deck[1:]
    assert E.to_move(after) == (1,)
    assert after.last_moves[-1] == E._event(seat=0, kind="play", card=card, stone=4)


def test_claims_come_after_the_play_and_before_the_draw():
    state = position(
        {3: (("R7", "R8"), ())},
        hands=(("R9", "B1"), ("G2", "G3")),
    )
    assert codes(state, 0) == sorted(f"p:{c}:{s}" for c in ("R9", "B1") for s in range(9)), (
        "no claim before playing"
    )
    with pytest.raises(IllegalMove, match="Play a card first"):
        E.apply(state, 0, Claim(3))
    deck_before = state.deck
    state = E.apply(state, 0, Play("R9", 3))
    assert state.phase == "claim" and state.hands[0] == ("B1",), "not drawn yet"
    state = E.apply(state, 0, Claim(3))
    assert state.owners[3] == 0
    assert state.turn == 1, "nothing more to claim, so the turn ended by itself"
    assert state.hands[0] == ("B1", deck_before[0])


def test_a_player_may_decline_to_claim_by_ending_the_turn():
    state = position({3: (("R7", "R8"), ())}, hands=(("R9", "B1"), ("G2", "G3")))
    state = E.apply(E.apply(state, 0, Play("R9", 3)), 0, EndTurn())
    assert state.owners[3] is None and state.turn == 1
    with pytest.raises(IllegalMove):
        E.apply(state, 1, EndTurn())


def test_several_stones_may_be_claimed_in_one_turn():
    state = position(
        {0: (("R7", "R8", "R9"), ()), 5: (("O7", "O8"), ())},
        hands=(("O9", "B1"), ("G2", "G3")),
    )
    state = E.apply(state, 0, Play("O9", 5))
    assert codes(state, 0) == ["c:0", "c:5", "end"]
    state = E.apply(state, 0, Claim(5))
    assert state.phase == "claim" and codes(state, 0) == ["c:0", "end"]
    state = E.apply(state, 0, Claim(0))
    assert state.owners[0] == state.owners[5] == 0 and state.turn == 1


def test_illegal_plays_are_refused_with_a_reason():
    state = position(
        {0: (("R1", "R2", "R3"), ()), 1: ((), ())},
        hands=(("B1", "B2"), ("G2", "G3")),
        owners=[None, 1] + [None] * 7,
    )
    with pytest.raises(IllegalMove, match="do not hold"):
        E.apply(state, 0, Play("G2", 2))
    with pytest.raises(IllegalMove, match="already claimed"):
        E.apply(state, 0, Play("B1", 1))
    with pytest.raises(IllegalMove, match="three cards on stone 1"):
        E.apply(state, 0, Play("B1", 0))
    with pytest.raises(IllegalMove, match="not your turn"):
        E.apply(state, 1, Play("G2", 2))


def test_an_unprovable_claim_is_refused_and_the_message_names_the_stone():
    state = position(
        {2: (("R5", "R6"), ()), 4: (("O1", "O2", "Y4"), ("G9", "B9", "P9"))},
        hands=(("R7",), ("G2",)),
    )
    state = E.apply(state, 0, Play("R7", 2))
    assert state.turn == 1, "R5-R6-R7 is not provable and stone 5 is lost: no claim phase"
    state = position(
        {2: (("R5", "R6", "R7"), ()), 7: (("B1",), ())},
        hands=(("B2",), ("G2",)),
        phase="claim",
    )
    with pytest.raises(IllegalMove, match="Stone 3 cannot be claimed yet"):
        E.apply(state, 0, Claim(2))


# --- passing and the automatic end -------------------------------------------------------------


def test_a_player_who_cannot_play_passes_and_the_other_plays_on():
    # Seat 1 has three cards on every unclaimed stone; seat 0 still has room on stone 8.
    sides = {
        8: (("P7",), ("B1", "B2", "B4")),
        7: (("P1", "P2", "P4"), ("O1", "O2", "O4")),
    }
    owners = [0, 1, 0, 1, 0, 1, 1, None, None]
    state = position(sides, hands=(("Y5", "Y6"), ("G5", "G6")), owners=owners, turn=1, deck=[])
    assert E.legal_moves(state, 1) == [Pass()]
    with pytest.raises(IllegalMove, match="may not pass"):
        E.apply(E.apply(state, 1, Pass()), 0, Pass())
    state = E.apply(state, 1, Pass())
    assert state.turn == 0 and state.last_moves[-1] == E._event(seat=1, kind="pass")
    assert state.hands[1] == ("G5", "G6"), "a pass draws nothing"
    assert "pass" not in codes(state, 0)


def test_a_player_who_cannot_play_may_still_claim_after_passing():
    state = position(
        {
            0: (("R7", "R8", "R9"), ()),
            1: (("O1", "O2", "O4"), ("B7",)),
        },
        hands=(("Y1",), ("G1",)),
        owners=[None, None, 0, 1, 0, 1, 0, 1, 1],
        deck=[],
    )
    # Both unclaimed stones already hold three cards of seat 0: it passes, then claims stone 0
    # (the top colour run); stone 1 is not provable (B7-B8-B9 would beat it).
    assert codes(state, 0) == ["pass"]
    state = E.apply(state, 0, Pass())
    assert codes(state, 0) == ["c:0", "end"]


def test_when_neither_player_can_play_the_full_stones_are_awarded_automatically():
    # Seat 0 plays its last card; nobody can play any more. Stone 8 (both full) goes to the
    # stronger side, seat 1; that gives seat 1 five stones.
    state = position(
        {
            8: (("R1", "O2"), ("B7", "B8", "B9")),
        },
        hands=(("Y5",), ("G4",)),
        owners=[0, 1, 0, 1, 0, 1, 0, 1, None],
        deck=[],
    )
    state = E.apply(state, 0, Play("Y5", 8))
    assert E.is_over(state)
    assert state.owners[8] == 1
    assert state.scores == (4, 5)
    kinds = [dict(e)["kind"] for e in state.last_moves]
    assert kinds[-2:] == ["auto_award", "round_end"]
    assert dict(state.last_moves[-2])["stones"] == (8,)


def test_declining_a_claim_can_lead_to_the_automatic_end_which_awards_every_full_stone():
    # Seat 0 completes stone 8 with a colour run and ends its turn without claiming; then
    # nobody can play: stone 7 goes to seat 1 (colour beats sum), stone 8 to seat 0.
    state = position(
        {
            7: (("R1", "O1", "G2"), ("B2", "B3", "B5")),
            8: (("Y7", "Y8"), ("G1", "P3", "O5")),
        },
        hands=(("Y9",), ("G9",)),
        owners=[0, 1, 0, 1, 0, 1, 0, None, None],
        deck=[],
    )
    state = E.apply(state, 0, Play("Y9", 8))
    assert codes(state, 0) == ["c:8", "end"]
    state = E.apply(state, 0, EndTurn())
    assert E.is_over(state)
    assert state.owners[7:] == (1, 0)
    assert dict(state.last_moves[-2])["stones"] == (7, 8)
    assert state.scores == (5, 4)


@pytest.mark.parametrize("claim_timing", ["after_play", "before_play"])
def test_at_the_automatic_end_every_unclaimed_stone_is_full_on_both_sides(claim_timing):
    # The module docstring proves it; here random games, some eager to claim early (claimed
    # stones hold fewer cards, which is what could unbalance the hands), check it.
    endings = 0
    for seed in range(40):
        rng = random.Random(seed)
        eager = rng.random()
        state = E.new_game(2, options={"claim_timing": claim_timing}, seed=seed)
        while not E.is_over(state):
            seat = E.to_move(state)[0]
            moves = E.legal_moves(state, seat)
            claims = [m for m in moves if isinstance(m, Claim)]
            move = rng.choice(claims) if claims and rng.random() < eager else rng.choice(moves)
            state = E.apply(state, seat, move)
        events = [dict(e) for e in state.last_moves]
        if any(e["kind"] == "auto_award" for e in events):
            endings += 1
            # Only full stones are awarded, so an unowned stone would be one that was not full.
            assert None not in state.owners
            assert E.winner(state.owners) == state.round_results[-1].winner
    assert endings > 5, "the test should meet the automatic end"


# --- claim timing: the 1999 order --------------------------------------------------------------


def test_before_play_claims_come_first_and_playing_ends_the_turn():
    state = position(
        {3: (("R7", "R8"), ())},
        hands=(("R9", "B1"), ("G2", "G3")),
        claim_timing="before_play",
    )
    state = E.apply(state, 0, Play("R9", 3))
    assert state.turn == 1 and state.phase == "play", "no claim after playing"
    assert state.owners[3] is None
    assert not any(isinstance(m, Claim) for m in E.legal_moves(state, 1))
    state = E.apply(state, 1, Play("G2", 0))
    moves = E.legal_moves(state, 0)
    assert Claim(3) in moves and any(isinstance(m, Play) for m in moves)
    state = E.apply(state, 0, Claim(3))
    assert state.owners[3] == 0 and state.turn == 0 and state.phase == "play"
    assert Claim(3) not in E.legal_moves(state, 0)
    state = E.apply(state, 0, Play("B1", 0))
    assert state.turn == 1


def test_before_play_has_no_end_move():
    state = position(
        {3: (("R7", "R8", "R9"), ())}, hands=(("B1",), ("G2",)), claim_timing="before_play"
    )
    with pytest.raises(IllegalMove):
        E.apply(state, 0, EndTurn())


# --- rounds ------------------------------------------------------------------------------------


def near_win(round_index, seat, rounds, scores=(0, 0), results=()):
    """``seat`` completes R7-R8-R9 on stone 2 next to its stones 0 and 1; the other seat owns
    stones 5 and 6."""
    other = 1 - seat
    owners = [None] * 9
    owners[0] = owners[1] = seat
    owners[5] = owners[6] = other
    sides = {2: (("R7", "R8"), ()) if seat == 0 else ((), ("R7", "R8"))}
    hands = [("B1",), ("B2",)]
    hands[seat] = ("R9",)
    return position(
        sides,
        hands=tuple(hands),
        owners=owners,
        turn=seat,
        rounds=rounds,
        round_index=round_index,
        scores=scores,
        round_results=results,
    )


def test_a_round_scores_five_for_the_winner_and_one_per_stone_for_the_loser():
    state = near_win(0, 0, rounds=3)
    state = E.apply(E.apply(state, 0, Play("R9", 2)), 0, Claim(2))
    assert not E.is_over(state)
    assert state.scores == (5, 2)
    assert state.round == 1 and E.to_move(state) == (1,), "the first player alternates"
    assert [len(h) for h in state.hands] == [6, 6] and len(state.deck) == 42
    assert state.owners == (None,) * 9 and all(side == ((), ()) for side in state.sides)
    seen = E.view(state, 0)
    assert seen["round"] == 2 and seen["first_player"] == 1
    assert seen["round_results"] == [
        {
            "round": 1,
            "winner": 0,
            "points": [5, 2],
            "owners": [0, 0, 0, None, None, 1, 1, None, None],
        }
    ]


def test_every_round_is_dealt_differently():
    first = E.new_game(2, options={"rounds": 2}, seed=5)
    won = E.apply(E.apply(near_win(0, 0, rounds=2), 0, Play("R9", 2)), 0, Claim(2))
    assert won.hands != first.hands


def test_after_the_last_round_most_points_wins():
    results = [{"round": 1, "winner": 0, "points": [5, 1], "owners": [0] * 5 + [1] + [None] * 3}]
    state = near_win(1, 1, rounds=2, scores=(5, 1), results=results)
    state = E.apply(E.apply(state, 1, Play("R9", 2)), 1, Claim(2))
    assert E.is_over(state)
    assert state.scores == (7, 6)
    assert E.outcome(state) == [
        {"seat": 0, "score": 7, "rank": 1},
        {"seat": 1, "score": 6, "rank": 2},
    ]


def test_equal_points_after_the_last_round_go_to_the_winner_of_the_last_round():
    results = [
        {"round": 1, "winner": 0, "points": [5, 2], "owners": [0] * 5 + [1] * 2 + [None] * 2}
    ]
    state = near_win(1, 1, rounds=2, scores=(5, 2), results=results)
    state = E.apply(E.apply(state, 1, Play("R9", 2)), 1, Claim(2))
    assert state.scores == (7, 7)
    assert E.outcome(state) == [
        {"seat": 0, "score": 7, "rank": 2},
        {"seat": 1, "score": 7, "rank": 1},
    ]
    assert E.view(state, None)["winner"] == 1


@pytest.mark.parametrize(
    "options",
    [{"rounds": 0}, {"rounds": 10}, {"rounds": "3"}, {"claim_timing": "whenever"}],
)
def test_house_rules_out_of_range_are_refused(options):
    with pytest.raises(InvalidOptions):
        E.new_game(2, options=options)


def test_outcome_of_an_unfinished_game_is_an_error():
    with pytest.raises(ValueError):
        E.outcome(E.new_game(2))


# --- moves, views and dumps --------------------------------------------------------------------


@pytest.mark.parametrize("code", ["p:R7:3", "c:0", "c:8", "end", "pass"])
def test_move_codes_round_trip(code):
    assert E.parse_move(code).code == code


@pytest.mark.parametrize("code", ["p:R0:3", "p:X1:3", "p:R1:9", "c:9", "c:", "c:03", "p:R1", None])
def test_malformed_move_codes_are_invalid(code):
    with pytest.raises(InvalidMove):
        E.parse_move(code)


def test_the_view_shows_the_table_and_only_the_seats_own_hand():
    state = position(
        {3: (("R7", "R8", "R9"), ("B1",)), 4: (("O1", "O2", "Y4"), ())},
        hands=(("G1", "G2"), ("P1", "P2", "P3")),
        phase="claim",
    )
    seen = E.view(state, 0)
    assert seen["seat"] == 0 and seen["hand"] == ["G1", "G2"]
    assert seen["hand_sizes"] == [2, 3] and seen["deck_size"] == len(state.deck)
    assert seen["stones"][3]["cards"] == [["R7", "R8", "R9"], ["B1"]]
    assert seen["stones"][3]["formations"] == [{"kind": "straight_flush", "total": 24}, None]
    assert seen["stones"][3]["completed_first"] == 0
    assert seen["claimable"] == [3]
    # Stone 4's sum of 7 loses to the strongest colour run an empty side can still make.
    assert seen["counter_examples"] == [{"stone": 4, "cards": ["O7", "O8", "O9"]}]
    text = json.dumps(seen)
    assert "P1" not in text and "seed" not in text
    other = E.view(state, 1)
    assert other["hand"] == ["P1", "P2", "P3"]
    assert other["claimable"] == [] and other["counter_examples"] == [], "for the mover only"
    spectator = E.view(state, None)
    assert spectator["hand"] is None and spectator["claimable"] == []


def test_the_dump_round_trips_through_json():
    state = E.new_game(2, options={"rounds": 3, "claim_timing": "before_play"}, seed=4)
    rng = random.Random(3)
    for _ in range(30):
        seat = E.to_move(state)[0]
        state = E.apply(state, seat, rng.choice(E.legal_moves(state, seat)))
    data = json.loads(json.dumps(E.dump(state)))
    assert E.load(data) == state
    assert E.dump(E.load(data)) == data


def test_sampled_states_keep_the_table_and_the_own_hand_and_deal_the_rest():
    state = E.new_game(2, seed=2)
    rng = random.Random(1)
    for _ in range(25):
        seat = E.to_move(state)[0]
        state = E.apply(state, seat, rng.choice(E.legal_moves(state, seat)))
    seat = E.to_move(state)[0]
    seen = E.view(state, seat)
    sampled = E.sample_state(seen, random.Random(7))
    assert E.view(sampled, seat) == seen
    assert sampled.hands[seat] == state.hands[seat]
    assert sorted(E.all_cards(sampled)) == sorted(E.DECK)
