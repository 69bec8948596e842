"""Pure helpers shared by the engines: the one place where randomness enters a game."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import TypeVar

T = TypeVar("T")


def rng_for(seed: int, *salt: object) -> random.Random:
    """A private ``random.Random`` for one shuffle of one game.

    The salt (e.g. the round number) makes every deal of a match different while keeping the
    whole match reproducible from its seed alone. Seeding from a string is stable across
    processes and Python versions (it does not depend on ``hash()`` randomisation).
    """
    return random.Random(":".join(str(part) for part in (seed, *salt)))


def shuffled(items: Sequence[T], seed: int, *salt: object) -> list[T]:
    """A new list with ``items`` in a seeded random order; ``items`` is left untouched."""
    out = list(items)
    rng_for(seed, *salt).shuffle(out)
    return out
