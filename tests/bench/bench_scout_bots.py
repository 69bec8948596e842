"""Scout bots benchmark (issues 6 and 35, "Strength and speed, measured"): not a pytest test.

Run: ``.venv/bin/python -m tests.bench.bench_scout_bots`` (``--games N`` for the two-player
matches, 200 by default; ``--table-games N`` for each table of 3, 4 and 5 seats, 100 by
default; ``--tables 3,5`` for some table sizes only). Prints the win rates with 95% Wilson
intervals, the average score margins and the CPU time per move of each level, and exits 1 if a
target is missed:

- 2 players, easy against a uniformly random player: easy wins at least 80%;
- 2 players, hard against easy: hard wins at least 65%;
- one hard against 2 / 3 / 4 easy at 3 / 4 / 5 seats: hard's win share at least
  50% / 40% / 35% (the even shares are 33 / 25 / 20%), and at least 45% / 35% / 30% when the
  same games are scored without the ender exemption (every round's ender also pays for the
  cards left in hand: a win that rests on being exempt with a big hand is a bet that the others
  let the turn come back, issue 35);
- the 95th percentile of a move's CPU time (this process, so what one idle core would take):
  20 ms easy, 300 ms hard, at every table size.

A shared first place counts as ``1/k`` of a win when ``k`` players share it. Every deal is
played with the stronger side in every seat in turn (seed ``game // players``), which takes the
luck of the deal out of the comparison. Move times are measured around ``choose`` for decisions
with more than one legal move (with one, the bot answers at once).
"""

from __future__ import annotations

import argparse
import math
import os
import random
import statistics
import sys
import time

from games.scout import bots, engine
from tests.bench import stats
from tests.bench.stats import percentile, wilson

EASY_VS_RANDOM = 0.80
HARD_VS_EASY = 0.65
# Seats: (win share, win share scored without the ender exemption) that one hard must reach.
TABLE_TARGETS = {3: (0.50, 0.45), 4: (0.40, 0.35), 5: (0.35, 0.30)}
P95_MS = {"easy": 20.0, "hard": 300.0}


def play(
    players: int, levels: list[str], seed: int, rng: random.Random, times: dict
) -> tuple[list[int], list[int]]:
    """One seeded game: the final scores, and the scores without the ender exemption. Bot
    move CPU times go to ``times[level, players]``."""
    state = engine.new_game(players, seed=seed)
    while not engine.is_over(state):
        seat = engine.to_move(state)[0]  # the hand decisions: one seat after the other
        moves = engine.legal_moves(state, seat)
        level = levels[seat]
        if level == "random":
            move = rng.choice(moves)
        else:
            view = engine.view(state, seat)
            start = time.process_time()
            move = bots.choose(view, moves, level, rng)
            if len(moves) > 1:
                times.setdefault((level, players), []).append(time.process_time() - start)
        state = engine.apply(state, seat, move)
    plain = [0] * players
    for summary in state.summaries:
        for i in range(players):
            plain[i] += summary.taken[i] + summary.tokens[i] - summary.hand[i]
    return list(state.scores), plain


def share(scores: list[int], seat: int) -> float:
    top = max(scores)
    return 1 / scores.count(top) if scores[seat] == top else 0.0


def match(players, strong, weak, games, times, label, deadline=None, first=0):
    """``strong`` in one seat, ``weak`` in the others: (wins, wins without exemption,
    margins), over games ``first`` to ``games - 1`` or those started before ``deadline``
    (a run cut short is finished by another from the next game: the two add up)."""
    wins = plain_wins = 0.0
    margins = []
    started = time.perf_counter()
    for game in range(first, games):
        if stats.over(deadline):
            print(f"  {label}: stopped at the --until time before game {game}", flush=True)
            break
        me = game % players
        levels = [weak] * players
        levels[me] = strong
        scores, plain = play(players, levels, game // players, random.Random(game), times)
        wins += share(scores, me)
        plain_wins += share(plain, me)
        margins.append(scores[me] - (sum(scores) - scores[me]) / (players - 1))
        if (game + 1) % 10 == 0:
            played = len(margins)
            print(
                f"  {label}: {game + 1}/{games} games, {wins / played:.0%} won "
                f"({plain_wins / played:.0%} without the exemption), margin "
                f"{statistics.mean(margins):+.2f}, {time.perf_counter() - started:.0f} s, "
                f"load {os.getloadavg()[0]:.1f}",
                flush=True,
            )
    return wins, plain_wins, margins


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=200, help="games per 2-player match")
    parser.add_argument("--table-games", type=int, default=100, help="games per table size")
    parser.add_argument("--tables", default="3,4,5", help="table sizes for one hard vs easy")
    parser.add_argument(
        "--first-game", type=int, default=0, help="start the tables' games at this one (0)"
    )
    stats.add_run_limits(parser)
    args = parser.parse_args(argv)
    if args.no_safety_net:
        bots.HARD_TIME_LIMIT = float("inf")
    deadline = stats.until(args.until)

    times: dict = {}
    rows = []
    failed = False
    plan = [
        ("easy vs random", 2, "easy", "random", args.games),
        ("hard vs easy", 2, "hard", "easy", args.games),
    ] + [
        (f"hard vs {n - 1} easy", n, "hard", "easy", args.table_games)
        for n in sorted(int(t) for t in args.tables.split(",") if t)
    ]
    for label, players, strong, weak, games in plan:
        if games <= 0:
            continue
        first = args.first_game if players > 2 else 0
        wins, plain_wins, margins = match(
            players, strong, weak, games, times, label, deadline, first
        )
        games = len(margins)
        if not games:
            continue
        error = statistics.stdev(margins) / math.sqrt(games) if games > 1 else 0.0
        if players == 2:
            target = EASY_VS_RANDOM if strong == "easy" else HARD_VS_EASY
            checks = [("wins", wins, target)]
        else:
            target, plain_target = TABLE_TARGETS[players]
            checks = [("wins", wins, target), ("no exemption", plain_wins, plain_target)]
        for what, count, goal in checks:
            low, high = wilson(count, games)
            ok = count / games >= goal
            failed |= not ok
            rows.append(
                (label, what, players, games, count, low, high, statistics.mean(margins), error)
                + (goal, ok)
            )

    print()
    print("Scout bots: win shares (a shared first place counts 1/k of a win), 95% Wilson intervals")
    print(
        f"{'match':<16}{'scored':<14}{'seats':>6}{'games':>7}{'wins':>8}{'share':>7}  "
        f"{'95% interval':<16}{'margin':>13}  target"
    )
    for label, what, players, games, wins, low, high, margin, error, goal, ok in rows:
        print(
            f"{label:<16}{what:<14}{players:>6}{games:>7}{wins:>8.1f}{wins / games:>7.1%}  "
            f"[{low:.1%}, {high:.1%}]  {margin:>+6.2f} ±{error:.2f}  >= {goal:.0%} "
            f"{'ok' if ok else 'MISSED'}"
        )
    print(
        "(margin: the stronger side's final score minus the mean of the others', ± its "
        "standard error; 'no exemption': the same games, every ender paying for its hand)"
    )
    print()
    print(f"{'level':<8}{'seats':>6}{'moves':>8}{'cpu p50':>9}{'cpu p95':>9}{'max':>9}  target p95")
    for (level, players), values in sorted(times.items()):
        p95 = percentile(values, 0.95) * 1000
        ok = p95 <= P95_MS[level]
        failed |= not ok
        print(
            f"{level:<8}{players:>6}{len(values):>8}{percentile(values, 0.5) * 1000:>9.2f}"
            f"{p95:>9.2f}{max(values) * 1000:>9.1f}  <= {P95_MS[level]:.0f} ms "
            f"{'ok' if ok else 'MISSED'}"
        )
    print(f"(CPU milliseconds of this process per move; load now {os.getloadavg()[0]:.2f})")
    print()
    print("FAILED: a target was missed" if failed else "all targets met")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
