"""Escoba bots, strength and speed (issue 6): ``python -m tests.bench.bench_escoba_bots``.

Plays seeded two-player games with the seats alternating: easy against a uniformly random
player, and hard against easy (``--games N`` each, 200 by default). Prints each match's win
rate with its 95% Wilson interval (a drawn game would count as half a win; Escoba games never
end drawn: a tie at the top plays another hand) and the p50/p95 time per move of each level.
Exits 1 if a target is missed: easy >= 80% against random, hard >= 65% against easy, p95 of a
move's CPU time (this process: what one idle core would take) <= 20 ms (easy) and <= 300 ms
(hard).

The hard bot runs with its real budget, so a match of 200 games takes a while (about 70 hard
moves a game at up to 150 ms each): run it in the background on a shared machine.
"""

from __future__ import annotations

import argparse
import random
import sys
import time

from games.escoba import bots, engine
from tests.bench import stats
from tests.bench.stats import percentile, progress, wilson

TARGET_EASY_VS_RANDOM = 0.80
TARGET_HARD_VS_EASY = 0.65
# CPU milliseconds per move (this process: what one idle core would take), issue 35.
TARGET_P95_MS = {"easy": 20.0, "hard": 300.0}


def play(seed: int, levels: list[str], times: dict[str, list[float]]) -> list[dict]:
    """One seeded two-player game; ``levels`` per seat; move times appended to ``times``."""
    rng = random.Random(seed)
    state = engine.new_game(2, seed=seed)
    while not engine.is_over(state):
        seat = state.turn
        moves = engine.legal_moves(state, seat)
        level = levels[seat]
        if level == "random":
            move = rng.choice(moves)
        else:
            start = time.process_time()
            move = bots.choose(engine.view(state, seat), moves, level, rng)
            times.setdefault(level, []).append(time.process_time() - start)
        state = engine.apply(state, seat, move)
    return engine.outcome(state)


def match(
    player: str,
    opponent: str,
    games: int,
    times: dict[str, list[float]],
    deadline: float | None = None,
    first: int = 0,
) -> tuple[float, int]:
    """Wins of ``player`` (a draw counting half) and games played: games ``first`` to
    ``games - 1`` (each seeded by its number, so a run cut short can be finished by another
    from where it stopped), or those started before ``deadline`` (:func:`stats.until`), seats
    alternating. Every 10 games a progress line (wins so far, their interval and the load), so
    a run cut short still says what it measured."""
    wins = 0.0
    started = time.perf_counter()
    for game in range(first, games):
        if stats.over(deadline):
            print(f"  stopped at the --until time after {game - first} games", flush=True)
            return wins, game - first
        seat = game % 2
        levels = [player, opponent] if seat == 0 else [opponent, player]
        ranks = {row["seat"]: row["rank"] for row in play(1000 + game, levels, times)}
        if ranks[seat] < ranks[1 - seat]:
            wins += 1.0
        elif ranks[seat] == ranks[1 - seat]:
            wins += 0.5
        if (game + 1 - first) % 10 == 0:
            elapsed = time.perf_counter() - started
            label = f"{player} vs {opponent}"
            print(progress(label, wins, game + 1 - first, games - first, elapsed), flush=True)
    return wins, games - first


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200, help="games per match (default 200)")
    parser.add_argument("--hard-only", action="store_true", help="skip easy vs random")
    parser.add_argument(
        "--first-game",
        type=int,
        default=0,
        help="play from this game's seed on (to finish a run cut by --until; add the two up)",
    )
    stats.add_run_limits(parser)
    args = parser.parse_args(argv)
    if args.no_safety_net:
        bots.HARD_DEADLINE = float("inf")
    deadline = stats.until(args.until)

    times: dict[str, list[float]] = {}
    ok = True
    print(f"Escoba bots, {args.games} two-player games per match, seats alternating")
    print("(a drawn game counts as half a win)")
    print(f"{'match':<18}{'win rate':>10}  {'95% interval':<16}{'target':>8}")
    plan = [("easy", "random", TARGET_EASY_VS_RANDOM), ("hard", "easy", TARGET_HARD_VS_EASY)]
    for player, opponent, target in plan[1:] if args.hard_only else plan:
        started = time.perf_counter()
        wins, played = match(player, opponent, args.games, times, deadline, args.first_game)
        if not played:
            continue
        rate = wins / played
        low, high = wilson(wins, played)
        passed = rate >= target
        ok &= passed
        print(
            f"{player + ' vs ' + opponent:<18}{rate:>9.1%}  [{low:.1%}, {high:.1%}]"
            f"{'':<2}{'>= ' + format(target, '.0%'):>8}  {'ok' if passed else 'MISSED'}"
            f"  ({played} games, {time.perf_counter() - started:.0f} s)"
        )
    print(f"{'level':<8}{'moves':>8}{'cpu p50':>10}{'cpu p95':>10}{'max ms':>10}{'target':>10}")
    for level in bots.LEVELS:
        spent = times.get(level, [])
        if not spent:
            continue
        p50, p95 = percentile(spent, 0.5) * 1000, percentile(spent, 0.95) * 1000
        passed = p95 <= TARGET_P95_MS[level]
        ok &= passed
        print(
            f"{level:<8}{len(spent):>8}{p50:>10.2f}{p95:>10.2f}{max(spent) * 1000:>10.1f}"
            f"{'<= ' + format(TARGET_P95_MS[level], '.0f'):>10}  {'ok' if passed else 'MISSED'}"
        )
    print("all targets met" if ok else "a target was missed")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
