"""The two statistics the bot benchmarks report: a win rate's interval and a percentile."""

from __future__ import annotations

import math
import os
import time


def wilson(wins: float, games: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval of ``wins`` out of ``games`` (half wins included; 95% with the
    default ``z``)."""
    if not games:
        return 0.0, 1.0
    rate = wins / games
    scale = 1 + z * z / games
    middle = (rate + z * z / (2 * games)) / scale
    spread = z * math.sqrt(rate * (1 - rate) / games + z * z / (4 * games * games)) / scale
    return max(0.0, middle - spread), min(1.0, middle + spread)


def percentile(values: list[float], share: float) -> float:
    """The value below which ``share`` of ``values`` lie (0 for no values)."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))] if ordered else 0.0


def progress(label: str, wins: float, played: int, games: int, seconds: float) -> str:
    """A match's running line: games played, win rate with its 95% interval, time, load (so a
    run cut short still says what it measured)."""
    low, high = wilson(wins, played)
    return (
        f"  {label}: {played}/{games} games, {wins / played:.1%} [{low:.1%}, {high:.1%}], "
        f"{seconds:.0f} s, load {os.getloadavg()[0]:.1f}"
    )


def add_run_limits(parser) -> None:
    """The bot benches' ``--until`` (see :func:`until`) and ``--no-safety-net``; each bench lifts
    its own bot module's wall-clock cap when the latter is given."""
    parser.add_argument(
        "--until", help="HH:MM UTC: start no game after it, report the games played"
    )
    parser.add_argument(
        "--no-safety-net",
        action="store_true",
        help="no wall-clock cap on a hard search: a loaded machine then cannot cut one short, "
        "so the moves are those of an idle core (the fixed work alone ends each search)",
    )


def until(text: str | None) -> float | None:
    """``--until HH:MM`` (UTC, today) as an epoch time, or ``None``: a bench then starts no
    new game after it and reports the games played, so a long run fits a deadline."""
    if not text:
        return None
    hours, minutes = (int(part) for part in text.split(":"))
    now = time.time()
    day = now - now % 86400
    return day + hours * 3600 + minutes * 60


def over(deadline: float | None) -> bool:
    """Whether ``deadline`` (from :func:`until`) has passed."""
    return deadline is not None and time.time() >= deadline
