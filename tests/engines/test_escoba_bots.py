"""Escoba bots (issue 6): legal moves, blind to hidden cards, and each level beats the one below.

Plain pytest, no database: ``.venv/bin/pytest -p no:django tests/engines/test_escoba_bots.py``.
The hard bot runs here with a small work budget and a deadline it never reaches, so every
result is deterministic and the file stays fast.
"""

from __future__ import annotations

import copy
import random

import pytest

from games import registry
from games.escoba import bots, engine

# A small search, bounded by work rather than time so that the tests never depend on the
# machine's speed (the deadline is only a safety net here).
HARD = {"budget": 5.0, "work": 120}

TABLES = [
    pytest.param(2, {}, id="2p"),
    pytest.param(3, {}, id="3p"),
    pytest.param(4, {}, id="4p"),
    pytest.param(4, {"pairs": True}, id="4p-pairs"),
]
RULES = ["optional", "obligatory", "obligatory_strict", "penalized"]


def bot_move(state, seat, level, rng, **kw):
    moves = engine.legal_moves(state, seat)
    move = bots.choose(engine.view(state, seat), moves, level, rng, **kw)
    assert move in moves, f"{level} chose {move.code}, not among {[m.code for m in moves]}"
    return move


def play(players, options, seed, levels, max_hands=None, **kw):
    """Play a seeded game (or its first ``max_hands`` hands); ``levels`` per seat."""
    rng = random.Random(seed)
    state = engine.new_game(players, options, seed=seed)
    while not engine.is_over(state) and (max_hands is None or state.hand <= max_hands):
        seat = state.turn
        if levels[seat] == "random":
            move = rng.choice(engine.legal_moves(state, seat))
        else:
            move = bot_move(state, seat, levels[seat], rng, **kw)
        state = engine.apply(state, seat, move)
    return state


def test_registry_finds_the_bots():
    module = registry.bots("escoba")
    assert module.LEVELS == ("easy", "hard")
    state = engine.new_game(2, seed=1)
    moves = engine.legal_moves(state, state.turn)
    assert module.choose(engine.view(state, state.turn), moves) in moves


@pytest.mark.parametrize("rule", RULES)
@pytest.mark.parametrize(("players", "options"), TABLES)
def test_easy_plays_legal_moves_to_the_end(players, options, rule):
    for seed in range(4):
        state = play(players, {**options, "capture_rule": rule}, seed, ["easy"] * players)
        assert engine.is_over(state)


@pytest.mark.parametrize(("players", "options"), TABLES)
def test_hard_plays_legal_moves(players, options):
    rule = RULES[players % len(RULES)]
    state = play(
        players, {**options, "capture_rule": rule}, 7, ["hard"] * players, max_hands=1, **HARD
    )
    assert state.hand == 2 or engine.is_over(state)


def test_hard_moves_legally_when_the_deadline_cuts_the_search():
    # A deadline of 2 ms ends every search before its work budget: moves stay legal.
    state = play(2, {}, 3, ["hard", "easy"], max_hands=1, budget=0.002)
    assert state.hand == 2 or engine.is_over(state)


def test_single_move_and_bad_level():
    move = engine.Move("7o")
    assert bots.choose({}, [move], "hard") is move
    with pytest.raises(ValueError):
        bots.choose({}, [move, engine.Move("1c")], "expert")
    with pytest.raises(ValueError):
        bots.choose({}, [], "easy")


def position(mine, theirs, table, deck_size=30):
    """A two-player state where the seat to move holds ``mine`` and the other ``theirs``.

    The other cards fill the deck (``deck_size`` of them) and then side 0's pile.
    """
    state = engine.new_game(2, seed=5)
    seat = state.turn
    rest = [c for c in engine.DECK if c not in {*mine, *theirs, *table}]
    hands = [[], []]
    hands[seat], hands[1 - seat] = list(mine), list(theirs)
    data = engine.dump(state)
    data.update(
        hands=hands,
        table=list(table),
        deck=rest[:deck_size],
        piles=[rest[deck_size:], []],
        escobas=[0, 0],
        last_capturer=None,
    )
    return engine.load(data), seat


def test_easy_takes_the_siete_de_oros_with_an_escoba():
    state, seat = position(["7o", "3e", "10b"], ["4b", "5c", "1e"], ["8c"])
    assert bot_move(state, seat, "easy", random.Random(0)) == engine.Move("7o", ("8c",))


def test_easy_avoids_leaving_an_easy_escoba():
    # Nothing captures. Laying 4e leaves 6 on the table (any 9 sweeps it), laying 10e leaves
    # 12 (any 3 sweeps it); laying 1c leaves 1c and 2c, which no single card can take.
    state, seat = position(["1c", "4e", "10e"], ["4b", "5c", "1e"], ["2c"])
    assert bot_move(state, seat, "easy", random.Random(0)) == engine.Move("1c")


def hidden_variant(data, seat):
    """A copy of the dump that differs only in cards ``seat`` cannot see: one card of another
    seat's hand swapped with a deck card (when another seat holds one), the deck reversed."""
    changed = copy.deepcopy(data)
    others = [s for s in range(len(data["hands"])) if s != seat and data["hands"][s]]
    if others:
        hand = changed["hands"][others[0]]
        hand[0], changed["deck"][0] = changed["deck"][0], hand[0]
    changed["deck"].reverse()
    return changed


@pytest.mark.parametrize("level", bots.LEVELS)
@pytest.mark.parametrize(("players", "options"), TABLES)
def test_hidden_cards_do_not_change_the_move(players, options, level):
    checked = 0
    for seed in range(6):
        state = engine.new_game(players, options, seed=seed)
        rng = random.Random(seed)
        # Walk a few moves in so that piles and tables differ between seeds.
        for _ in range(seed * 2 + 1):
            state = engine.apply(
                state, state.turn, rng.choice(engine.legal_moves(state, state.turn))
            )
        seat = state.turn
        data = engine.dump(state)
        if not data["deck"]:
            continue
        other = engine.load(hidden_variant(data, seat))
        assert engine.dump(other) != data
        view = engine.view(state, seat)
        assert engine.view(other, seat) == view
        moves = engine.legal_moves(state, seat)
        assert engine.legal_moves(other, seat) == moves
        kw = HARD if level == "hard" else {}
        first = bots.choose(view, moves, level, random.Random(99), **kw)
        second = bots.choose(engine.view(other, seat), moves, level, random.Random(99), **kw)
        assert first == second
        checked += 1
    assert checked >= 4


def test_easy_beats_random():
    wins = 0.0
    games = 12
    for seed in range(games):
        levels = ["easy", "random"] if seed % 2 == 0 else ["random", "easy"]
        state = play(2, {}, seed, levels)
        ranks = {r["seat"]: r["rank"] for r in engine.outcome(state)}
        me = levels.index("easy")
        wins += 1.0 if ranks[me] < ranks[1 - me] else 0.5 if ranks[me] == ranks[1 - me] else 0.0
    assert wins >= 10


def hand_margin(seed, levels, **kw):
    """Play the first hand of a seeded two-player game; seat 0's points minus seat 1's."""
    state = play(2, {}, seed, levels, max_hands=1, **kw)
    totals = [side.total for side in state.last_hand.sides]
    return totals[0] - totals[1]


def test_hard_beats_easy_on_duplicate_hands():
    # Duplicate format: every deal is played twice with the seats swapped, so the luck of the
    # deal cancels out and a few hands are enough to see the difference.
    margin = 0
    for seed in range(10):
        margin += hand_margin(seed, ["hard", "easy"], **HARD)
        margin -= hand_margin(seed, ["easy", "hard"], **HARD)
    assert margin > 0
