"""Scout bots (issue 6): legal moves only, blind to hidden cards, each level beats the one below.

Plain pytest, no database: ``.venv/bin/pytest -p no:django tests/engines/test_scout_bots.py``.
The hard bot runs with a small budget and no deadline here, so the tests are fast and a move
depends on the seed alone.
"""

from __future__ import annotations

import copy
import random

import pytest

from games.scout import _bot_sim, bots, engine

FAST = {"work": 300, "time_limit": None}


def agent(level, **options):
    """``(view, moves, rng) -> move`` for a level, or a uniformly random player."""
    if level == "random":
        return lambda view, moves, rng: rng.choice(moves)
    return lambda view, moves, rng: bots.choose(view, moves, level, rng, **options)


def play(players, agents, seed, max_rounds=None, on_move=None):
    """One seeded game; returns the final state (or the state after ``max_rounds`` rounds)."""
    rng = random.Random(seed)
    state = engine.new_game(players, seed=seed)
    while not engine.is_over(state):
        if max_rounds is not None and state.round > max_rounds:
            break
        movers = engine.to_move(state)
        seat = movers[rng.randrange(len(movers))]
        moves = engine.legal_moves(state, seat)
        view = engine.view(state, seat)
        move = agents[seat](view, moves, rng)
        assert move in moves, (move, [m.code for m in moves])
        if on_move:
            on_move(state, seat, view, moves)
        state = engine.apply(state, seat, move)
    return state


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_easy_only_plays_legal_moves(players):
    for seed in range(6):
        # Random opponents make odd positions: empty active sets, tokens spent, long sets.
        agents = [agent("easy"), agent("random"), *[agent("easy")] * (players - 2)]
        state = play(players, agents, seed)
        assert engine.is_over(state)


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_hard_only_plays_legal_moves(players):
    agents = [agent("hard", **FAST), *[agent("easy")] * (players - 1)]
    hard_moves = []

    def count(state, seat, view, moves):
        if seat == 0:
            hard_moves.append(len(moves))

    # play() asserts every move chosen is among the legal ones; the hard seat must have chosen.
    state = play(players, agents, seed=players, max_rounds=1, on_move=count)
    assert hard_moves, "the hard bot never moved"
    assert engine.is_over(state) or state.round > 1


def test_levels_and_arguments():
    state = engine.new_game(3, seed=4)
    view, moves = engine.view(state, 0), engine.legal_moves(state, 0)
    assert bots.LEVELS == ("easy", "hard")
    for level in bots.LEVELS:
        assert bots.choose(view, moves, level, **({} if level == "easy" else FAST)) in moves
    with pytest.raises(ValueError):
        bots.choose(view, moves, "expert")
    # One legal move: answered at once (no search).
    assert bots.choose(view, moves[:1], "hard") == moves[0]


def hidden_variants(data, seat):
    """Dumps that differ from ``data`` only in what ``seat`` cannot see."""
    others = [i for i, hand in enumerate(data["hands"]) if i != seat and hand]
    for other in others:
        for pile in ("deck", "set_aside"):
            if data[pile]:
                swapped = copy.deepcopy(data)
                hand = swapped["hands"][other]
                hand[0], swapped[pile][-1] = swapped[pile][-1], hand[0]
                yield swapped
        reordered = copy.deepcopy(data)
        reordered["hands"][other].reverse()
        yield reordered
    if len(others) >= 2:
        a, b = others[:2]
        swapped = copy.deepcopy(data)
        swapped["hands"][a][-1], swapped["hands"][b][0] = (
            swapped["hands"][b][0],
            swapped["hands"][a][-1],
        )
        yield swapped


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_a_bot_does_not_see_hidden_cards(players):
    """Same view and rng seed give the same move, whatever the hidden cards are."""
    checked = 0
    picker = random.Random(players)

    def check(state, seat, view, moves):
        nonlocal checked
        if state.phase != engine.PLAY or checked >= 4 or picker.random() > 0.15:
            return
        data = engine.dump(state)
        for variant in hidden_variants(data, seat):
            other = engine.load(variant)
            assert engine.view(other, seat) == view
            other_moves = engine.legal_moves(other, seat)
            assert other_moves == moves
            for level, options in (("easy", {}), ("hard", {"work": 150, "time_limit": None})):
                first = bots.choose(view, moves, level, random.Random(7), **options)
                again = bots.choose(
                    engine.view(other, seat), other_moves, level, random.Random(7), **options
                )
                assert first == again
            checked += 1

    play(players, [agent("easy")] * players, seed=10 + players, on_move=check)
    assert checked >= 3


def test_known_scouted_cards_stay_in_the_scouts_hand():
    """The hard bot's deals put a card it saw another seat scout into that seat's hand."""
    seen = 0

    def check(state, seat, view, moves):
        nonlocal seen
        if state.phase != engine.PLAY:
            return
        known = bots._known(view)
        deal = bots._sample(view, random.Random(3))
        assert engine.view(deal, seat) == view
        for who, card in known:
            assert card in {bots._card_id(c) for c in state.hands[who]}  # true in the game
            assert card in {bots._card_id(c) for c in deal.hands[who]}  # and in the deal
            seen += 1

    for players in (2, 4):
        play(players, [agent("easy")] * players, seed=3, on_move=check)
    assert seen > 10


def position(hand, active=(), owner=None, players=4):
    """A 4-player state: seat 0 holds ``hand``; the other seats get distinct unused cards."""
    used = {"-".join(sorted(c.split("/"), key=int)) for c in (*hand, *active)} | {"9-10"}
    spare = [c.replace("-", "/") for c in engine.DECK if c not in used]
    data = engine.dump(engine.new_game(players, seed=1))
    data["hands"] = [list(hand)] + [spare[i * 5 : i * 5 + 5] for i in range(players - 1)]
    if active:
        data.update(phase="play", decided=[True] * players, turn=0, active=list(active))
        data["owner"] = owner
    return engine.load(data)


def test_easy_keeps_or_rotates_by_the_hands_shape():
    # Kept: 7 3 10 5 9 6, nothing together. Rotated: 1 2 3 4 and 9 9.
    state = position(["7/9", "3/9", "10/4", "5/3", "9/2", "6/1"])
    assert bots.choose(engine.view(state, 0), engine.legal_moves(state, 0), "easy") == engine.ROTATE
    state = position(["1/6", "2/9", "3/5", "4/10", "9/3", "9/7"])
    assert bots.choose(engine.view(state, 0), engine.legal_moves(state, 0), "easy") == engine.KEEP


def test_easy_scouts_into_a_run_and_scout_and_shows_a_big_set():
    # 3 4 5 cannot beat 10 9 8; the 10's other side, a 6, makes 3 4 5 6, which beats the
    # 9 8 that is left: scout & show, inserting it after the 5.
    state = position(["3/1", "4/2", "5/7", "9/1", "1/8"], ["10/6", "9/2", "8/3"], owner=2)
    move = bots.choose(engine.view(state, 0), engine.legal_moves(state, 0), "easy")
    assert move == engine.ScoutShow("L", True, 3, 0, 4)
    # With the chip spent, a plain scout puts the 6 where it extends the run.
    data = engine.dump(state)
    data["chips"][0] = True
    state = engine.load(data)
    move = bots.choose(engine.view(state, 0), engine.legal_moves(state, 0), "easy")
    assert move == engine.Scout("L", True, 3)


def test_easy_shows_a_whole_run_rather_than_cut_it():
    # Against a single 2: 6 7 8 beats it whole; showing the 7 alone would cut the run.
    state = position(["6/1", "7/1", "8/1", "3/10", "9/5"], ["2/3"], owner=3)
    move = bots.choose(engine.view(state, 0), engine.legal_moves(state, 0), "easy")
    assert move == engine.Show(0, 3)


def match(players, strong, weak, games):
    """Seat-rotated duplicate games: each deal is played with ``strong`` in every seat.

    Returns (wins of ``strong``, with shared wins split; total of its score minus the mean
    of the others').
    """
    wins = margin = 0.0
    for game in range(games):
        me = game % players
        agents = [weak] * players
        agents[me] = strong
        scores = engine.outcome(play(players, agents, seed=500 + game // players))
        totals = [row["score"] for row in scores]
        top = max(totals)
        if totals[me] == top:
            wins += 1 / totals.count(top)
        margin += totals[me] - (sum(totals) - totals[me]) / (players - 1)
    return wins, margin


def test_easy_beats_random():
    wins, margin = match(2, agent("easy"), agent("random"), games=12)
    assert wins >= 11 and margin > 0


def test_hard_beats_easy():
    # A small budget to stay fast; the benchmark measures the real thing.
    wins, margin = match(2, agent("hard", work=2500, time_limit=None), agent("easy"), games=8)
    assert wins >= 4 and margin > 8


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_the_playout_model_plays_rounds_as_the_engine_does(players):
    """Every move of random games, played in the bots' round model beside the engine, leaves
    the same hands, table, counts and turn, and each round ends when the engine's does with
    the points of its summary (with and without the ender exemption)."""
    for seed in range(4):
        rng = random.Random(seed)
        state = engine.new_game(players, seed=seed)
        model = _bot_sim.Round.from_state(state)
        while not engine.is_over(state):
            movers = engine.to_move(state)
            seat = movers[rng.randrange(len(movers))]
            move = rng.choice(engine.legal_moves(state, seat))
            rnd = state.round
            model.play(seat, bots._spec(move))
            state = engine.apply(state, seat, move)
            if state.round != rnd or engine.is_over(state):
                summary = state.summaries[-1]
                assert model.over and model.ender == summary.ender
                assert model.points() == list(summary.points)
                counts = zip(summary.taken, summary.tokens, summary.hand, strict=True)
                assert model.points(exempt=False) == [t + k - h for t, k, h in counts]
                model = _bot_sim.Round.from_state(state)
                continue
            assert not model.over
            assert model.hands == list(state.hands)
            assert model.active == state.active and model.owner == state.owner
            assert model.taken == [len(t) for t in state.taken]
            assert (model.tokens, model.chips) == (list(state.tokens), list(state.chips))
            assert bool(model.deciding) == (state.phase == engine.DECIDE)
            if not model.deciding:
                assert model.turn == state.turn


def test_the_chip_costs_less_as_another_hand_runs_out():
    """Hard's own playouts: an unused chip is worth nothing once the round ends, so its price
    falls from ``CHIP_COST`` to nothing over another seat's last cards."""
    model = _bot_sim.Round.from_state(engine.new_game(4, seed=1))
    costs = []
    for size in (9, 5, 3, 1):
        model.hands[2] = model.hands[2][:size]
        costs.append(bots._chip_cost(model, 0))
    assert costs[0] == costs[1] == bots.CHIP_COST
    assert costs[1] > costs[2] > costs[3] == 0.0


def test_hard_counts_only_part_of_its_own_exemption():
    """A round our seat ends with cards in hand (every other seat scouted its set) is worth less
    to hard's playouts than the rules' points say: the exemption is valued as a risk."""
    state = engine.new_game(3, seed=2)
    for seat in range(3):
        state = engine.apply(state, seat, engine.KEEP)
    model = _bot_sim.Round.from_state(state)
    model.hands[2] = (5 << 4 | 1, 6 << 4 | 2, *model.hands[2][2:])  # a 5-6 run to show
    model.turn = 2
    model.play(2, ("s", 0, 2))
    model.play(0, ("c", "L", False, 0))
    model.play(1, ("c", "L", False, 0))
    assert model.over and model.ender == 2 and len(model.hands[2]) == 10
    points = model.points()
    fair = points[2] - (points[0] + points[1]) / 2
    assert bots._playout(model.copy(), 2, {}, None) == fair - bots.EXEMPT_RISK * 10
    assert bots._playout(model.copy(), 0, {}, None) == points[0] - (points[1] + points[2]) / 2
