"""Escoba engine speed (issue 4, "Speed"): ``python -m tests.bench.bench_escoba_engine``.

Targets, median on this machine: a full random two-player game (``new_game`` to the end, every
move drawn at random from ``legal_moves``) within 5 ms, and ``legal_moves`` within 0.2 ms on a
9-card table. Exits 1 if a target is missed.

The engine caches which table positions make a sum (it depends on the values only), as a
long-running server process would have them: the games are timed after some warm-up games
with other seeds, each game once. Times are wall-clock (``perf_counter``), so other processes
on the machine slow them down; the load average is printed next to the figures, and the
best of three runs of each game and the CPU time of each game are shown as less load-sensitive
figures (not checked).
"""

from __future__ import annotations

import dataclasses
import os
import random
import statistics
import sys
import time

from games.escoba import engine
from tests.bench import playouts

GAME_TARGET_MS = 5.0
LEGAL_TARGET_MS = 0.2
WARM_UP_GAMES = 200
GAMES = 300
TABLES = 300
CALLS_PER_TABLE = 20


def random_game(seed: int) -> int:
    return playouts.random_game(engine, 2, seed)


def timed_game(seed: int) -> tuple[float, float]:
    """Wall-clock and CPU seconds of one game."""
    start, cpu = time.perf_counter(), time.process_time()
    random_game(seed)
    return time.perf_counter() - start, time.process_time() - cpu


def time_games() -> tuple[float, float, float, float]:
    """Median ms per game (each once), of the best of three, of CPU time; median moves."""
    for seed in range(10_000, 10_000 + WARM_UP_GAMES):
        random_game(seed)
    once = [timed_game(seed) for seed in range(GAMES)]
    best = [min(timed_game(seed)[0] for _ in range(3)) for seed in range(GAMES)]
    moves = statistics.median(random_game(seed) for seed in range(GAMES))
    return (
        statistics.median(wall for wall, _ in once) * 1000,
        statistics.median(best) * 1000,
        statistics.median(cpu for _, cpu in once) * 1000,
        moves,
    )


def nine_card_tables() -> list[engine.State]:
    """Positions with 9 random cards on the table and 3 in the hand of the seat to move."""
    base = engine.new_game(2, seed=1)
    rng = random.Random(2)
    states = []
    for _ in range(TABLES):
        cards = list(engine.DECK)
        rng.shuffle(cards)
        hand, table, rest = cards[:3], cards[3:12], cards[12:]
        states.append(
            dataclasses.replace(
                base,
                turn=0,
                hands=(tuple(hand), tuple(rest[:3])),
                table=tuple(sorted(table, key=engine.DECK.index)),
                deck=tuple(rest[3:]),
                piles=((), ()),
                escobas=(0, 0),
            )
        )
    return states


def time_legal_moves() -> tuple[float, float, float]:
    """Median ms per call on a first (uncached) call and on repeated calls; median move count.

    The first call on each table runs with the engine's caches emptied, so it pays for the
    whole search; the repeated calls are what a bot searching a position sees.
    """
    first, repeated, sizes = [], [], []
    for state in nine_card_tables():
        engine._clear_caches()
        start = time.perf_counter()
        moves = engine.legal_moves(state, 0)
        first.append(time.perf_counter() - start)
        start = time.perf_counter()
        for _ in range(CALLS_PER_TABLE):
            engine.legal_moves(state, 0)
        repeated.append((time.perf_counter() - start) / CALLS_PER_TABLE)
        sizes.append(len(moves))
    return (
        statistics.median(first) * 1000,
        statistics.median(repeated) * 1000,
        statistics.median(sizes),
    )


def main() -> int:
    load_before = os.getloadavg()[0]
    game_ms, game_best_ms, game_cpu_ms, game_moves = time_games()
    first_ms, repeated_ms, legal_count = time_legal_moves()
    rows = [
        (f"full random 2-player game, median of {GAMES}", game_ms, GAME_TARGET_MS),
        (f"legal_moves, 9-card table, caches empty, {TABLES} tables", first_ms, LEGAL_TARGET_MS),
    ]
    failed = False
    print(f"{'escoba engine':<62} {'median ms':>10} {'target ms':>10}")
    for label, measured, target in rows:
        ok = measured <= target
        failed |= not ok
        print(f"{label:<62} {measured:>10.3f} {target:>10.3f}  {'ok' if ok else 'MISSED'}")
    print(f"{'  (game: best of 3 runs of each game)':<62} {game_best_ms:>10.3f}")
    print(f"{'  (game: CPU time of this process, process_time)':<62} {game_cpu_ms:>10.3f}")
    print(f"{'  (legal_moves: repeated calls, caches warm)':<62} {repeated_ms:>10.3f}")
    print(
        f"  median {game_moves:.0f} moves a game, {legal_count:.0f} legal moves on a 9-card "
        f"table; load average {load_before:.2f} before, {os.getloadavg()[0]:.2f} after"
    )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
