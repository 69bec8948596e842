"""The contract of DESIGN.md, checked over every registered engine by seeded random playouts."""

from __future__ import annotations

import copy
import json
import random
from collections import Counter

import pytest

from games import registry
from games.engine import IllegalMove, InvalidMove, InvalidOptions
from tests.toygame import engine as toygame

# The installed games, and the toy game of the tests, the contract's smallest example.
ENGINES = {**{key: registry.engine(key) for key in registry.game_keys()}, "toygame": toygame}
KEYS = tuple(ENGINES)

SEEDS = range(6)
MAX_STEPS = 5000


def player_counts(eng):
    return range(eng.INFO.min_players, eng.INFO.max_players + 1)


def cases():
    for key, eng in ENGINES.items():
        for players in player_counts(eng):
            yield pytest.param(key, players, id=f"{key}-{players}p")


def hidden_swaps(data, seat, players):
    """Dumps that differ from ``data`` only in cards ``seat`` may not see.

    Each swaps one card of another seat's hand with an undealt card, or reorders the
    undealt cards; a view that changes under any of them leaks hidden information.
    """
    hidden_piles = [k for k in ("deck", "set_aside") if data.get(k)]
    for other in range(players):
        if other == seat or not data["hands"][other]:
            continue
        for pile in hidden_piles:
            swapped = copy.deepcopy(data)
            swapped["hands"][other][0], swapped[pile][-1] = (
                swapped[pile][-1],
                swapped["hands"][other][0],
            )
            yield swapped
        reordered = copy.deepcopy(data)
        reordered["hands"][other] = list(reversed(reordered["hands"][other]))
        yield reordered
    for pile in hidden_piles:
        reordered = copy.deepcopy(data)
        reordered[pile] = list(reversed(reordered[pile]))
        yield reordered


def playout(eng, players, seed, check_every=1):
    rng = random.Random(seed)
    state = eng.new_game(players, seed=seed)
    cards = Counter(eng.all_cards(state))
    assert sum(cards.values()) == len(set(cards)), "a card is in two places at the start"
    for step in range(MAX_STEPS):
        if eng.is_over(state):
            return state, step
        movers = eng.to_move(state)
        assert movers, "the game is not over, so somebody must be to move"
        data = eng.dump(state)
        if step % check_every == 0:
            check_position(eng, state, data, players, cards)
        seat = rng.choice(list(movers))
        moves = eng.legal_moves(state, seat)
        assert moves, f"seat {seat} is to move but has no legal move"
        move = rng.choice(moves)
        assert eng.parse_move(move.code) == move
        state = eng.apply(state, seat, move)
        assert eng.dump(eng.load(data)) == data, "apply changed its input state"
    raise AssertionError(f"the game did not end within {MAX_STEPS} moves")


def check_position(eng, state, data, players, cards):
    assert json.loads(json.dumps(data)) == data
    assert eng.dump(eng.load(data)) == data
    assert Counter(eng.all_cards(state)) == cards, "cards were created or lost"
    movers = eng.to_move(state)
    for seat in range(players):
        if seat not in movers:
            assert eng.legal_moves(state, seat) == []
    public_events = eng.view(state, None)["last_moves"]
    for seat in [*range(players), None]:
        seen = eng.view(state, seat)
        json.dumps(seen)
        for other in hidden_swaps(data, seat, players):
            assert eng.view(eng.load(other), seat) == seen, f"seat {seat}'s view leaks hidden cards"
        # The table words them once per version for everybody (games.present.recent_moves).
        assert seen["last_moves"] == public_events, f"seat {seat}'s recent events are its own"


@pytest.mark.parametrize(("key", "players"), list(cases()))
def test_random_playouts_keep_every_promise_of_the_contract(key, players):
    eng = ENGINES[key]
    for seed in SEEDS:
        state, _ = playout(eng, players, seed, check_every=7)
        outcome = eng.outcome(state)
        assert sorted(row["seat"] for row in outcome) == list(range(players))
        assert min(row["rank"] for row in outcome) == 1
        assert eng.to_move(state) == ()


@pytest.mark.parametrize("key", KEYS)
def test_the_same_seed_deals_the_same_game_and_another_seed_does_not(key):
    eng = ENGINES[key]
    players = eng.INFO.min_players
    assert eng.dump(eng.new_game(players, seed=7)) == eng.dump(eng.new_game(players, seed=7))
    assert eng.dump(eng.new_game(players, seed=7)) != eng.dump(eng.new_game(players, seed=8))


@pytest.mark.parametrize("key", KEYS)
def test_a_player_count_outside_the_limits_is_refused_with_a_message(key):
    eng = ENGINES[key]
    for players in (eng.INFO.min_players - 1, eng.INFO.max_players + 1):
        with pytest.raises(InvalidOptions, match=r"\w"):
            eng.new_game(players)


@pytest.mark.parametrize("key", KEYS)
def test_unknown_house_rules_are_refused(key):
    eng = ENGINES[key]
    with pytest.raises(InvalidOptions):
        eng.new_game(eng.INFO.min_players, options={"no_such_rule": 1})


@pytest.mark.parametrize("key", KEYS)
@pytest.mark.parametrize("garbage", ["", "???", "x" * 200, "play:", "0:0:0:0:0"])
def test_garbage_move_codes_raise_invalid_move(key, garbage):
    eng = ENGINES[key]
    with pytest.raises(InvalidMove):
        eng.parse_move(garbage)


@pytest.mark.parametrize("key", KEYS)
def test_a_seat_that_is_not_to_move_cannot_move(key):
    eng = ENGINES[key]
    state = eng.new_game(eng.INFO.min_players, seed=3)
    movers = eng.to_move(state)
    idle = [s for s in range(eng.INFO.min_players) if s not in movers]
    if not idle:
        pytest.skip("every seat decides at once at the start of this game")
    move = eng.legal_moves(state, movers[0])[0]
    with pytest.raises(IllegalMove):
        eng.apply(state, idle[0], move)


@pytest.mark.parametrize("key", KEYS)
def test_sampled_states_agree_with_the_view_they_were_sampled_from(key):
    eng = ENGINES[key]
    for players in player_counts(eng):
        state = eng.new_game(players, seed=11)
        rng = random.Random(5)
        for _ in range(40):
            if eng.is_over(state):
                break
            seat = eng.to_move(state)[0]
            seen = eng.view(state, seat)
            sampled = eng.sample_state(seen, random.Random(1))
            assert eng.view(sampled, seat) == seen
            assert Counter(eng.all_cards(sampled)) == Counter(eng.all_cards(state))
            assert set(eng.legal_moves(sampled, seat)) == set(eng.legal_moves(state, seat))
            state = eng.apply(state, seat, rng.choice(eng.legal_moves(state, seat)))
