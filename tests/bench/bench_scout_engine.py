"""Scout engine benchmarks (issue 5, "Speed"): not a pytest test.

Run: ``.venv/bin/python -m tests.bench.bench_scout_engine``. Prints median wall-clock figures
(``time.perf_counter``) against the targets and exits 1 if one is missed. The median CPU time of
the process is printed beside them for information only: on a machine busy with other work the
wall clock includes time spent waiting for a core.

- ``legal_moves``: a 12-card hand (3 players, scout & show chip unspent) against a 3-card active
  set, over many random positions;
- a full random 5-player game: ``new_game`` and five rounds of uniformly random legal moves
  (``to_move``, ``legal_moves``, ``apply``) until the game is over.
"""

from __future__ import annotations

import random
import statistics
import sys
import time

from games.scout import engine as scout
from tests.bench import playouts

LEGAL_TARGET_MS = 1.0
GAME_TARGET_MS = 25.0


def position_12_vs_3(rng: random.Random) -> scout.State:
    """Seat 0 to play 12 cards against seat 1's 3-card set (a run or a group), 3 players."""
    cards = [c for c in scout.DECK if not c.endswith("-10")]
    while True:
        rng.shuffle(cards)
        oriented = [
            f"{a}/{b}" if rng.random() < 0.5 else f"{b}/{a}"
            for a, b in (map(int, c.split("-")) for c in cards)
        ]
        # Look for a 3-card set among the shuffled cards to put on the table.
        for i in range(len(oriented) - 2):
            trio = oriented[i : i + 3]
            if scout.set_kind([int(c.split("/")[0]) for c in trio]) in ("run", "group"):
                rest = oriented[:i] + oriented[i + 3 :]
                break
        else:
            continue
        break
    data = scout.dump(scout.new_game(3, seed=rng.randrange(10**6)))
    data.update(
        phase="play",
        turn=0,
        decided=[True] * 3,
        hands=[rest[:12], rest[12:21], rest[21:33]],
        active=trio,
        owner=1,
    )
    return scout.load(data)


def bench_legal_moves(reps: int = 2000) -> tuple[float, float, float]:
    rng = random.Random(1)
    states = [position_12_vs_3(rng) for _ in range(200)]
    times = []
    cpu = []
    counts = []
    for i in range(reps):
        state = states[i % len(states)]
        c0 = time.process_time()
        t0 = time.perf_counter()
        moves = scout.legal_moves(state, 0)
        times.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
        counts.append(len(moves))
    return statistics.median(times) * 1000, statistics.median(cpu) * 1000, statistics.mean(counts)


def random_game(seed: int) -> int:
    return playouts.random_game(scout, 5, seed)


def bench_game(reps: int = 200) -> tuple[float, float, float]:
    for seed in range(5):  # warm the move caches as a long-running server would
        random_game(10_000 + seed)
    times = []
    cpu = []
    steps = []
    for seed in range(reps):
        c0 = time.process_time()
        t0 = time.perf_counter()
        steps.append(random_game(seed))
        times.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
    return statistics.median(times) * 1000, statistics.median(cpu) * 1000, statistics.mean(steps)


def main() -> int:
    legal_ms, legal_cpu, moves = bench_legal_moves()
    game_ms, game_cpu, steps = bench_game()
    rows = [
        ("legal_moves, 12 cards vs 3-card set", legal_ms, legal_cpu, LEGAL_TARGET_MS, moves),
        ("random 5-player game", game_ms, game_cpu, GAME_TARGET_MS, steps),
    ]
    print(f"{'scout engine':38} {'median':>10} {'target':>10} {'(cpu)':>10}  note")
    missed = False
    for name, value, cpu, target, count in rows:
        ok = value <= target
        missed |= not ok
        print(
            f"{name:38} {value:8.3f}ms {target:8.1f}ms {cpu:8.3f}ms  {count:.0f} moves"
            f" {'ok' if ok else 'MISSED'}"
        )
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
