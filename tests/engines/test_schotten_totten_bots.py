"""Schotten Totten bots (issue 6): legal moves, no peeking at hidden cards, and strength.

Plain pytest, no database: ``.venv/bin/pytest -p no:django tests/engines/test_schotten_totten_bots.py``.
The hard level runs on a small work budget here (and a deadline far away, so that the budget and
not the machine's load decides how much it searches: the games stay reproducible).
"""

from __future__ import annotations

import copy
import itertools
import random

import pytest

from games.schotten_totten import _bot_sim, bots, engine

TIMINGS = (engine.AFTER_PLAY, engine.BEFORE_PLAY)


@pytest.fixture
def small_budget(monkeypatch):
    monkeypatch.setattr(bots, "HARD_WORK", 200)
    monkeypatch.setattr(bots, "HARD_BUDGET", 30.0)


def play_game(levels, seed, options=None, check=None):
    """A seeded game with ``levels`` per seat (``"random"`` or a bot level); returns the
    final state. ``check(state, seat, moves, move)`` sees every bot move."""
    rngs = [random.Random(seed * 2 + 1), random.Random(seed * 2 + 2)]
    state = engine.new_game(2, options or {}, seed=seed)
    while not engine.is_over(state):
        seat = state.turn
        moves = engine.legal_moves(state, seat)
        if levels[seat] == "random":
            move = rngs[seat].choice(moves)
        else:
            move = bots.choose(engine.view(state, seat), moves, levels[seat], rngs[seat])
            if check is not None:
                check(state, seat, moves, move)
        state = engine.apply(state, seat, move)
    return state


def winner(state):
    return next(row["seat"] for row in engine.outcome(state) if row["rank"] == 1)


def test_levels_and_bad_level():
    assert bots.LEVELS == ("easy", "hard")
    state = engine.new_game(2, seed=1)
    moves = engine.legal_moves(state, 0)
    with pytest.raises(ValueError):
        bots.choose(engine.view(state, 0), moves, "expert")


def test_default_rng_is_deterministic():
    state = engine.new_game(2, seed=4)
    view, moves = engine.view(state, 0), engine.legal_moves(state, 0)
    assert bots.choose(view, moves) == bots.choose(view, moves)


@pytest.mark.parametrize("timing", TIMINGS)
def test_easy_moves_are_legal(timing):
    def check(state, seat, moves, move):
        assert move in moves

    for seed in range(6):
        play_game(("easy", "random"), seed, {"claim_timing": timing}, check)
        play_game(("random", "easy"), 100 + seed, {"claim_timing": timing}, check)
        play_game(("easy", "easy"), 200 + seed, {"claim_timing": timing, "rounds": 2}, check)


@pytest.mark.parametrize("timing", TIMINGS)
def test_hard_moves_are_legal(timing, small_budget):
    def check(state, seat, moves, move):
        assert move in moves

    play_game(("hard", "easy"), 7, {"claim_timing": timing}, check)
    play_game(("random", "hard"), 8, {"claim_timing": timing}, check)


@pytest.mark.parametrize("level", bots.LEVELS)
@pytest.mark.parametrize("timing", TIMINGS)
def test_bots_claim_everything_at_once(level, timing, small_budget):
    """A claimable stone is always claimed before anything else (and ``end`` never leaves one
    unclaimed)."""

    def check(state, seat, moves, move):
        if any(isinstance(m, engine.Claim) for m in moves):
            assert isinstance(move, engine.Claim)

    play_game((level, "random"), 11, {"claim_timing": timing}, check)


def mid_game_states(seed, plays=14):
    """States of a random game after ``plays`` plays, with the mover to play a card."""
    rng = random.Random(seed)
    state = engine.new_game(2, seed=seed)
    done = 0
    while not engine.is_over(state):
        seat = state.turn
        moves = engine.legal_moves(state, seat)
        if state.phase == "play" and done >= plays and len(moves) > 1:
            yield state
            done = -100
        move = rng.choice(moves)
        done += isinstance(move, engine.Play)
        state = engine.apply(state, seat, move)


def hidden_variants(state):
    """States that differ from ``state`` only in cards the mover cannot see."""
    data = engine.dump(state)
    other = 1 - state.turn
    for i in range(len(data["hands"][other])):
        if not data["deck"]:
            break
        swapped = copy.deepcopy(data)
        j = (7 * i + 3) % len(swapped["deck"])
        swapped["hands"][other][i], swapped["deck"][j] = (
            swapped["deck"][j],
            swapped["hands"][other][i],
        )
        yield engine.load(swapped)
    shuffled = copy.deepcopy(data)
    random.Random(5).shuffle(shuffled["deck"])
    yield engine.load(shuffled)


@pytest.mark.parametrize("level", bots.LEVELS)
def test_hidden_cards_do_not_change_the_move(level, small_budget):
    checked = 0
    for seed in range(4):
        for state in mid_game_states(seed, plays=6 + 4 * seed):
            seat = state.turn
            view = engine.view(state, seat)
            moves = engine.legal_moves(state, seat)
            move = bots.choose(view, moves, level, random.Random(99))
            for variant in hidden_variants(state):
                assert engine.dump(variant) != engine.dump(state)
                assert engine.view(variant, seat) == view
                assert engine.legal_moves(variant, seat) == moves
                again = bots.choose(engine.view(variant, seat), moves, level, random.Random(99))
                assert again == move
                checked += 1
    assert checked >= 8


def test_sim_plays_the_engine_rules():
    """The hard level's playout model agrees with the engine on every play, claim, draw and
    round end when both make the same moves (claims made at once by both sides)."""
    for timing in TIMINGS:
        for seed in range(10):
            rng = random.Random(seed)
            state = engine.new_game(2, {"claim_timing": timing}, seed=seed)
            sim = _bot_sim.Round.from_state(state)
            while not engine.is_over(state):
                seat = state.turn
                assert sim.turn == seat
                moves = engine.legal_moves(state, seat)
                while not engine.is_over(state) and isinstance(moves[0], engine.Claim):
                    state = engine.apply(state, seat, moves[0])  # before_play claims first
                    moves = engine.legal_moves(state, seat)
                if engine.is_over(state):
                    break
                card, stone = sim.pick(seat)
                if rng.random() < 0.5:
                    plays = [m for m in moves if isinstance(m, engine.Play)]
                    if plays:
                        chosen = rng.choice(plays)
                        card, stone = _bot_sim.INDEX[chosen.card], chosen.stone
                move = engine.Pass() if card < 0 else engine.Play(engine.DECK[card], stone)
                assert move in moves
                state = engine.apply(state, seat, move)
                while not engine.is_over(state) and state.phase == "claim":
                    claims = [m for m in engine.legal_moves(state, seat) if m != engine.EndTurn()]
                    state = engine.apply(state, seat, claims[0] if claims else engine.EndTurn())
                sim.step(seat, card, stone)
                assert sim.owners == list(state.owners) or engine.is_over(state)
                if engine.is_over(state):
                    assert sim.won == winner(state)
                else:
                    assert sim.won is None
                    for s in (0, 1):
                        assert sorted(sim.hands[s]) == sorted(
                            _bot_sim.INDEX[c] for c in state.hands[s]
                        )


def test_best_completion_matches_brute_force():
    rng = random.Random(3)
    for _ in range(400):
        k = rng.choice((0, 1, 1, 2))
        cards = rng.sample(range(54), k + rng.randint(0, 14 if k == 0 else 24))
        side, free_cards = cards[:k], cards[k:]
        free = sum(1 << c for c in free_cards)
        best = max(
            (
                _bot_sim.strength(*side, *extra)
                for extra in itertools.combinations(free_cards, 3 - k)
            ),
            default=-1,
        )
        assert _bot_sim.best_completion(side, free) == best


def test_easy_beats_random():
    wins = 0
    for number in range(20):
        seat = number % 2
        levels = ("easy", "random") if seat == 0 else ("random", "easy")
        wins += winner(play_game(levels, 300 + number)) == seat
    assert wins >= 18


def test_hard_beats_easy(small_budget):
    """Even on a sixth of its real budget the hard level wins most games against easy."""
    wins = 0
    games = 10
    for number in range(games):
        seat = number % 2
        levels = ("hard", "easy") if seat == 0 else ("easy", "hard")
        wins += winner(play_game(levels, 500 + number)) == seat
    assert wins > games // 2


def test_sampled_deals_put_every_unseen_card_somewhere_once():
    for seed in range(3):
        for state in mid_game_states(seed, plays=8):
            view = engine.view(state, state.turn)
            deal = bots._sample(view, random.Random(seed))
            assert engine.view(deal, state.turn)["stones"] == view["stones"]
            assert list(deal.hands[state.turn]) == view["hand"]
            assert sorted(engine.all_cards(deal)) == sorted(engine.all_cards(state))
            assert [len(h) for h in deal.hands] == view["hand_sizes"]


def test_sampled_deals_favour_the_cards_that_fit_the_opponents_open_formations():
    """The opponent started a red 5-6 on a stone: red 4s and 7s, which would make it a suited
    run, are dealt to their hand more often than the other unseen cards."""
    state = engine.new_game(2, seed=3)
    view = engine.view(state, 0)
    opponent = [c for c in ("R5", "R6") if c not in view["hand"]]
    view["stones"][4]["cards"][1] = opponent
    fits = ("R4", "R7")
    others = tuple(c for c in ("B2", "G9", "Y1", "P9", "O1") if c not in view["hand"])[:2]
    counts = {card: 0 for card in fits + others}
    rng = random.Random(1)
    for _ in range(400):
        hand = bots._sample(view, rng).hands[1]
        for card in counts:
            counts[card] += card in hand
    held = [c for c in fits + others if c in view["hand"]]
    assert len(opponent) == 2 and not held
    assert min(counts[c] for c in fits) > 1.3 * max(counts[c] for c in others)


def test_sampled_opponent_hands_never_hold_a_card_the_bot_can_see():
    """With the opponent model's weights on, a sampled hand of theirs holds only unseen cards:
    none from the bot's hand or the table, and each card at most once."""
    checked = 0
    for seed in range(4):
        for state in mid_game_states(seed, plays=6 + 3 * seed):
            seat = state.turn
            view = engine.view(state, seat)
            visible = set(view["hand"])
            for st in view["stones"]:
                for side in st["cards"]:
                    visible.update(side)
            weights = bots._hand_weights(view)
            rng = random.Random(seed)
            for _ in range(20):
                hand = bots._sample(view, rng, weights).hands[1 - seat]
                assert not visible & set(hand)
                assert len(set(hand)) == len(hand) == view["hand_sizes"][1 - seat]
                checked += 1
    assert checked >= 80


def _view_with_opponent_pair(last_moves):
    """A view in which the opponent (seat 1) holds red 5-6 on stone 4 and blue 2 on stone 2."""
    state = engine.new_game(2, seed=3)
    view = engine.view(state, 0)
    view["hand"] = ["B8", "Y4", "G7", "P1", "P3", "O9"]
    view["stones"][4]["cards"][1] = ["R5", "R6"]
    view["stones"][2]["cards"][1] = ["B2"]
    view["last_moves"] = last_moves
    return view


def test_a_pair_the_opponent_left_waiting_makes_its_strong_completions_likelier_still():
    """Right after the opponent made red 5-6, red 4s and 7s are likelier in their hand (they
    made the pair to finish it); once they have played elsewhere and left it waiting, those
    cards are likelier still (one holding the third card is in no hurry), in the weights and in
    the sampled hands, while a card that fits nothing keeps its weight."""
    made = [{"kind": "play", "seat": 1, "card": "R6", "stone": 4}]
    waited = [
        *made,
        {"kind": "play", "seat": 0, "card": "Y9", "stone": 0},
        {"kind": "play", "seat": 1, "card": "B2", "stone": 2},
    ]
    fresh = bots._hand_weights(_view_with_opponent_pair(made))
    stale = bots._hand_weights(_view_with_opponent_pair(waited))
    for card in ("R4", "R7"):
        assert stale[card] > fresh[card]
        assert fresh[card] > fresh["Y1"]
    assert stale["Y1"] == fresh["Y1"]

    def dealt(view, weights):
        rng = random.Random(2)
        hands = [bots._sample(view, rng, weights).hands[1] for _ in range(400)]
        return sum(("R4" in h) + ("R7" in h) for h in hands)

    assert dealt(_view_with_opponent_pair(waited), stale) > 1.2 * dealt(
        _view_with_opponent_pair(made), fresh
    )
