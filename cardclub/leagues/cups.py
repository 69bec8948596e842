"""Knockout brackets: where each seed starts, who has a bye. Pure Python, no Django.

The bracket has the smallest power of two of places that holds the field; the places left over
are byes, and they fall to the top seeds (whose first-round "opponents" would be the seeds that
do not exist). Seeds are placed so that 1 and 2 can only meet in the final, 1-4 and 2-3 in the
semi-finals, and so on: the standard seeding of tennis and chess knockouts.
"""

from __future__ import annotations


def size_for(entrants: int) -> int:
    """Places in the bracket: the smallest power of two >= ``entrants`` (at least 2)."""
    size = 2
    while size < entrants:
        size *= 2
    return size


def rounds_for(entrants: int) -> int:
    return size_for(entrants).bit_length() - 1


def seed_order(size: int) -> list[int]:
    """The seeds in bracket order: [1, 2] for 2, [1, 4, 2, 3] for 4, [1, 8, 4, 5, 2, 7, 3, 6]
    for 8. Each step pairs every seed s with (2 × places + 1 − s)."""
    order = [1]
    places = 1
    while places < size:
        places *= 2
        order = [seed for s in order for seed in (s, places + 1 - s)]
    return order


def first_round(entrants: int) -> list[tuple[int, int | None]]:
    """Round 1's ties in bracket order as (seed, seed); ``None`` is a bye."""
    order = seed_order(size_for(entrants))
    ties = []
    for top, bottom in zip(order[::2], order[1::2], strict=True):
        ties.append((top, bottom if bottom <= entrants else None))
    return ties


def round_name_key(round_number: int, rounds: int) -> str:
    """Which name a round has, counted from the final: "final", "semi", "quarter" or "round"."""
    left = rounds - round_number
    return {0: "final", 1: "semi", 2: "quarter"}.get(left, "round")


def decided(first_wins: int, second_wins: int, best_of: int) -> int | None:
    """0 or 1 when a side has won the tie (more than half of ``best_of`` games), else None."""
    needed = best_of // 2 + 1
    if first_wins >= needed:
        return 0
    if second_wins >= needed:
        return 1
    return None
