"""The random playout every engine benchmark times: one game with uniformly random legal moves."""

from __future__ import annotations

import random


def random_game(engine, players: int, seed: int) -> int:
    """Play one game of ``engine`` with random legal moves (a random seat first when several
    are awaited at once); returns the number of moves."""
    rng = random.Random(seed)
    state = engine.new_game(players, seed=seed)
    moves = 0
    while not engine.is_over(state):
        movers = engine.to_move(state)
        seat = movers[0] if len(movers) == 1 else rng.choice(movers)
        state = engine.apply(state, seat, rng.choice(engine.legal_moves(state, seat)))
        moves += 1
    return moves
