"""The toy game's bots: the easy one lays its lowest card, the hard one its highest."""

from __future__ import annotations


def choose(view, moves, level, rng):
    ordered = sorted(moves, key=lambda move: int(move.card[1:]))
    return ordered[-1] if level == "hard" else ordered[0]
