"""Schotten Totten engine speed (issue 3, "Speed"): ``python -m tests.bench.bench_schotten_totten_engine``.

Targets (median on this machine):

* checking all 9 stones of a mid-game position for claims within 1 ms, measured on positions
  from random games (after 12-20 plays, the mover has at least one complete formation on an
  unclaimed stone; :func:`engine.claimable_stones` for the mover) and on a worst case made
  up for the purpose (the mover has three cards on all 9 stones, the opponent 0-2 on each, so
  every stone needs the full search);
* a full random game (uniformly random legal moves to the end, 1 round) within 30 ms.

Exits 1 if a target is missed.
"""

from __future__ import annotations

import dataclasses
import random
import statistics
import sys
import time

from games.schotten_totten import engine
from tests.bench import playouts

CLAIM_TARGET_MS = 1.0
GAME_TARGET_MS = 30.0
POSITIONS = 300
CALLS_PER_POSITION = 20
GAMES = 200


def random_game(seed: int) -> int:
    return playouts.random_game(engine, 2, seed)


def mid_game_positions() -> list[engine.State]:
    """Positions of random games after 12-20 plays where the mover has a complete formation on
    some unclaimed stone (elsewhere there is nothing to search, and the figure would flatter)."""
    positions = []
    seed = 0
    while len(positions) < POSITIONS:
        rng = random.Random(seed)
        state = engine.new_game(2, seed=seed)
        plays, target = 0, rng.randint(12, 20)
        while not engine.is_over(state) and plays < target:
            seat = state.turn
            move = rng.choice(engine.legal_moves(state, seat))
            plays += isinstance(move, engine.Play)
            state = engine.apply(state, seat, move)
        if not engine.is_over(state) and any(
            owner is None and len(pair[state.turn]) == 3
            for owner, pair in zip(state.owners, state.sides, strict=True)
        ):
            positions.append(state)
        seed += 1
    return positions


def worst_case_positions() -> list[engine.State]:
    """The mover holds three cards on every stone, the opponent 0-2: nine full searches."""
    base = engine.new_game(2, seed=1)
    rng = random.Random(2)
    states = []
    for _ in range(POSITIONS):
        cards = list(engine.DECK)
        rng.shuffle(cards)
        sides = []
        for _stone in range(engine.STONES):
            mine = tuple(cards.pop() for _ in range(3))
            theirs = tuple(cards.pop() for _ in range(rng.randint(0, 2)))
            sides.append((mine, theirs))
        states.append(
            dataclasses.replace(
                base,
                turn=0,
                hands=((), ()),
                deck=tuple(cards),
                sides=tuple(sides),
                completed_first=(0,) * engine.STONES,
            )
        )
    return states


def time_claims(states: list[engine.State]) -> tuple[float, float]:
    per_call = []
    for state in states:
        seat = state.turn
        start = time.perf_counter()
        for _ in range(CALLS_PER_POSITION):
            engine.claimable_stones(state, seat)
        per_call.append((time.perf_counter() - start) / CALLS_PER_POSITION)
    return statistics.median(per_call) * 1000, max(per_call) * 1000


def time_views(states: list[engine.State]) -> float:
    per_call = []
    for state in states:
        start = time.perf_counter()
        engine.view(state, state.turn)
        per_call.append(time.perf_counter() - start)
    return statistics.median(per_call) * 1000


def time_games() -> tuple[float, float, int]:
    times, counts = [], []
    for seed in range(GAMES):
        start = time.perf_counter()
        counts.append(random_game(seed))
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000, max(times) * 1000, int(statistics.median(counts))


def main() -> int:
    mid = mid_game_positions()
    worst = worst_case_positions()
    mid_median, mid_max = time_claims(mid)
    worst_median, worst_max = time_claims(worst)
    view_median = time_views(mid)
    game_median, game_max, moves = time_games()
    rows = [
        ("claims, 9 stones, mid-game", mid_median, mid_max, CLAIM_TARGET_MS),
        ("claims, 9 stones, worst case", worst_median, worst_max, CLAIM_TARGET_MS),
        ("view of the mover, mid-game", view_median, None, None),
        (f"full random game ({moves} moves)", game_median, game_max, GAME_TARGET_MS),
    ]
    print(f"{'Schotten Totten engine':34} {'median ms':>10} {'max ms':>9} {'target':>8}  ok")
    missed = False
    for name, median, worst_ms, target in rows:
        ok = target is None or median <= target
        missed |= not ok
        worst_text = "" if worst_ms is None else f"{worst_ms:9.3f}"
        target_text = "" if target is None else f"{target:8.1f}"
        print(f"{name:34} {median:10.3f} {worst_text:>9} {target_text:>8}  {'yes' if ok else 'NO'}")
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
