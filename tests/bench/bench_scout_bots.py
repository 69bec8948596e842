"""Scout bots benchmark (issue 6, "Strength and speed, measured"): not a pytest test.

Run: ``.venv/bin/python -m tests.bench.bench_scout_bots`` (``--games N`` for the two-player
matches, ``--table-games N`` for the 4-player tables; 200 each by default). Prints the win rates
with 95% Wilson intervals, the average score margins and the time per move of each level, and
exits 1 if a target is missed:

- 2 players, easy against a uniformly random player: easy wins at least 80%;
- 2 players, hard against easy: hard wins at least 65%;
- 4 players, one hard against three easy: hard wins clearly more than its 25% share, which
  this benchmark takes as a win rate of at least 35% with the whole 95% interval above 25%;
- 95th percentile of the time per move: 20 ms easy, 250 ms hard.

A draw (shared first place) counts as half a win for two players, and as ``1/k`` of a win when
``k`` players share first place. Every deal is played with the stronger side in every seat in
turn (seed ``game // players``), which takes the luck of the deal out of the comparison. Move
times are wall-clock, measured around ``choose`` for decisions with more than one legal move
(with one, the bot answers at once); the machine's load shows in them.
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import sys
import time

from games.scout import bots, engine
from tests.bench.stats import percentile, wilson

EASY_VS_RANDOM = 0.80
HARD_VS_EASY = 0.65
TABLE_TARGET = 0.35
TABLE_SHARE = 0.25
P95_MS = {"easy": 20.0, "hard": 250.0}


def play(
    players: int, levels: list[str], seed: int, rng: random.Random, times: dict[str, list[float]]
) -> list[int]:
    """One seeded game; returns the final scores. Bot move times go to ``times[level]``."""
    state = engine.new_game(players, seed=seed)
    while not engine.is_over(state):
        seat = engine.to_move(state)[0]  # the hand decisions: one seat after the other
        moves = engine.legal_moves(state, seat)
        level = levels[seat]
        if level == "random":
            move = rng.choice(moves)
        else:
            view = engine.view(state, seat)
            start = time.perf_counter()
            move = bots.choose(view, moves, level, rng)
            if len(moves) > 1:
                times[level].append(time.perf_counter() - start)
        state = engine.apply(state, seat, move)
    return [row["score"] for row in engine.outcome(state)]


def match(players, strong, weak, games, times, label):
    """``strong`` in one seat, ``weak`` in the others; returns (wins, margins)."""
    wins = 0.0
    margins = []
    started = time.perf_counter()
    for game in range(games):
        me = game % players
        levels = [weak] * players
        levels[me] = strong
        scores = play(players, levels, game // players, random.Random(game), times)
        top = max(scores)
        if scores[me] == top:
            wins += 1 / scores.count(top)
        margins.append(scores[me] - (sum(scores) - scores[me]) / (players - 1))
        if (game + 1) % 20 == 0:
            print(
                f"  {label}: {game + 1}/{games} games, {wins / (game + 1):.0%} won, "
                f"{time.perf_counter() - started:.0f} s",
                flush=True,
            )
    return wins, margins


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=200, help="games per 2-player match")
    parser.add_argument("--table-games", type=int, default=200, help="4-player games")
    args = parser.parse_args(argv)

    times: dict[str, list[float]] = {"easy": [], "hard": []}
    rows = []
    failed = False
    plan = [
        ("easy vs random", 2, "easy", "random", args.games, EASY_VS_RANDOM),
        ("hard vs easy", 2, "hard", "easy", args.games, HARD_VS_EASY),
        ("hard vs 3 easy", 4, "hard", "easy", args.table_games, TABLE_TARGET),
    ]
    for label, players, strong, weak, games, target in plan:
        if games <= 0:
            continue
        wins, margins = match(players, strong, weak, games, times, label)
        low, high = wilson(wins, games)
        ok = wins / games >= target and (players == 2 or low > TABLE_SHARE)
        failed |= not ok
        error = statistics.stdev(margins) / math.sqrt(games) if games > 1 else 0.0
        rows.append((label, players, games, wins, low, high, statistics.mean(margins), error, ok))

    print()
    print("Scout bots: win rates (a shared first place counts 1/k of a win), 95% Wilson intervals")
    print(
        f"{'match':<16}{'players':>8}{'games':>7}{'wins':>8}{'rate':>7}  {'95% interval':<15}"
        f"{'margin':>13}  target"
    )
    for label, players, games, wins, low, high, margin, error, ok in rows:
        target = (
            f">= {EASY_VS_RANDOM:.0%}"
            if label.startswith("easy")
            else f">= {HARD_VS_EASY:.0%}"
            if players == 2
            else f">= {TABLE_TARGET:.0%}, interval above {TABLE_SHARE:.0%} (share)"
        )
        print(
            f"{label:<16}{players:>8}{games:>7}{wins:>8.1f}{wins / games:>7.1%}  "
            f"[{low:.1%}, {high:.1%}]  {margin:>+6.2f} ±{error:.2f}  {target} "
            f"{'ok' if ok else 'MISSED'}"
        )
    print(
        "(margin: the stronger side's final score minus the mean of the others', ± its "
        "standard error)"
    )
    print()
    print(f"{'level':<8}{'moves':>8}{'p50 ms':>9}{'p95 ms':>9}{'max ms':>9}  target p95")
    for level, values in times.items():
        if not values:
            continue
        p95 = percentile(values, 0.95) * 1000
        ok = p95 <= P95_MS[level]
        failed |= not ok
        print(
            f"{level:<8}{len(values):>8}{percentile(values, 0.5) * 1000:>9.2f}{p95:>9.2f}"
            f"{max(values) * 1000:>9.1f}  <= {P95_MS[level]:.0f} ms {'ok' if ok else 'MISSED'}"
        )
    print()
    print("FAILED: a target was missed" if failed else "all targets met")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
