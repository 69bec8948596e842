"""Swiss pairings: the FIDE Dutch system, by the py4swiss engine. No Django here.

The engine reads a tournament in FIDE's Tournament Report File format (TRF), the format every
pairing program exchanges, so this module writes the season's history as one: each entrant's
starting number (their seed), and per round the opponent, the colour (seat 0 is "white": the
first seat) and the result, or a bye. The engine answers with the next round's pairs.

Points are the season's own (a win may be worth 3), written into the file's scoring line, so
the engine's score groups are exactly the standings' points.
"""

from __future__ import annotations

import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from py4swiss.engines import DutchEngine
from py4swiss.engines.common import PairingError as EnginePairingError
from py4swiss.trf import TrfParser


class PairingImpossible(Exception):
    """No pairing satisfies the absolute rules (e.g. everybody has met everybody)."""


@dataclass(frozen=True)
class Points:
    win: int = 3
    draw: int = 1
    loss: int = 0
    bye: int = 3


@dataclass
class Game:
    """One entrant's round: ``opponent`` None is a bye (``result`` ignored). ``result`` is
    "win", "draw", "loss", "forfeit_win" or "forfeit_loss". ``first`` is the first seat."""

    opponent: int | None
    first: bool = False
    result: str = "loss"


@dataclass
class Entrant:
    """``seed`` is the starting number, from 1, best first; ``games`` one per round so far
    (``None``: not in that round, e.g. joined later or withdrew)."""

    seed: int
    games: list[Game | None] = field(default_factory=list)
    playing: bool = True  # False: not to be paired in the next round


_CODES = {"win": "1", "draw": "=", "loss": "0", "forfeit_win": "+", "forfeit_loss": "-"}


def _points_of(game: Game | None, points: Points) -> int:
    if game is None:
        return 0
    if game.opponent is None:
        return points.bye
    return {
        "win": points.win,
        "forfeit_win": points.win,
        "draw": points.draw,
    }.get(game.result, points.loss)


def _entry(game: Game | None) -> str:
    if game is None:
        return "0000 - Z"
    if game.opponent is None:
        return "0000 - U"  # the pairing-allocated bye
    return f"{game.opponent:4d} {'w' if game.first else 'b'} {_CODES[game.result]}"


def trf(entrants: Sequence[Entrant], rounds: int, points: Points) -> str:
    """The tournament so far as TRF-16 text (with JaVaFo's extensions the engine reads)."""

    def d(value: int) -> str:
        return f"{float(value):.1f}"  # the engine reads points with one decimal

    w, dr, lo, bye = d(points.win), d(points.draw), d(points.loss), d(points.bye)
    lines = [
        "012 cardclub",
        f"XXR {rounds}",
        "XXC white1",
        f"XXS WW={w} BW={w} WD={dr} BD={dr} WL={lo} BL={lo} ZPB=0.0 HPB={dr} FPB={w} "
        f"PAB={bye} FW={w} FL={lo} W={w} D={dr} L={lo}",
    ]
    # A fixture decided by forfeit is not a game to FIDE (the two may meet again); the club
    # promises never the same pair twice, so such pairs are forbidden outright.
    forfeited = sorted(
        {
            tuple(sorted((e.seed, g.opponent)))
            for e in entrants
            for g in e.games
            if g is not None and g.opponent is not None and g.result.startswith("forfeit")
        }
    )
    lines += [f"XXP {a} {b}" for a, b in forfeited]
    absent = sorted(e.seed for e in entrants if not e.playing)
    if absent:
        lines.append("XXZ " + " ".join(map(str, absent)))
    for e in sorted(entrants, key=lambda e: e.seed):
        total = sum(_points_of(g, points) for g in e.games)
        # Fixed columns: number 5-8, name 15-47, rating 49-52, points 81-84, rank 86-89,
        # then ten characters per round from column 92.
        line = f"001 {e.seed:4d}      {'E' + str(e.seed):<33} {0:4d} {'':3} {'':11} {'':10} "
        line += f"{float(total):4.1f} {e.seed:4d}"
        line += "".join("  " + _entry(g) for g in e.games)
        lines.append(line)
    return "\n".join(lines) + "\n"


def pair(entrants: Sequence[Entrant], rounds: int, points: Points) -> list[tuple[int, int | None]]:
    """The next round's pairs as (first seat, second seat) seeds; ``(seed, None)`` is the bye.

    Raises ``PairingImpossible`` when no pairing keeps the absolute rules (no two entrants
    meet twice, nobody gets a second bye)."""
    playing = [e for e in entrants if e.playing]
    if len(playing) < 2:
        raise PairingImpossible("fewer than two entrants to pair")
    if all(not e.games for e in entrants) and all(e.playing for e in entrants):
        return first_round(len(entrants))
    try:
        return pair_trf(trf(entrants, rounds, points))
    except PairingImpossible:
        # The Dutch rules also forbid two members who both must change seat to meet; late in
        # a small season that can leave no pairing at all, where one without repeats exists.
        # A round with a seat twice in a row beats no round.
        return _without_seat_rule(playing, points)


NODES = 200_000  # the fallback's search budget: far beyond a club's small late rounds


def _without_seat_rule(playing: Sequence[Entrant], points: Points) -> list[tuple[int, int | None]]:
    """Pairs in standings order with no repeat and no second bye, the nearest in points first,
    the first seat to whoever is further behind in first seats (over games played, as the
    Dutch rules count them), so nobody goes past one unless both had the same need; raises
    ``PairingImpossible`` when none exists."""
    score = {e.seed: sum(_points_of(g, points) for g in e.games) for e in playing}
    met = {
        frozenset((e.seed, g.opponent))
        for e in playing
        for g in e.games
        if g is not None and g.opponent is not None
    }
    had_bye = {
        e.seed for e in playing if any(g is not None and g.opponent is None for g in e.games)
    }
    firsts = {e.seed: seat_difference(e.games) for e in playing}
    order = sorted(score, key=lambda seed: (-score[seed], seed))
    budget = [NODES]

    def search(left: list[int]) -> list[tuple[int, int]] | None:
        budget[0] -= 1
        if budget[0] < 0:
            return None
        if not left:
            return []
        first, rest = left[0], left[1:]
        for other in sorted(rest, key=lambda o: abs(score[o] - score[first])):
            if frozenset((first, other)) in met:
                continue
            found = search([p for p in rest if p != other])
            if found is not None:
                return [(first, other), *found]
        return None

    candidates = [None] if len(order) % 2 == 0 else [s for s in reversed(order) if s not in had_bye]
    for bye in candidates:
        found = search([s for s in order if s != bye])
        if found is not None:
            pairs: list[tuple[int, int | None]] = [
                (a, b) if (firsts[a], a) <= (firsts[b], b) else (b, a) for a, b in found
            ]
            return pairs + ([(bye, None)] if bye is not None else [])
    raise PairingImpossible("no pairing without a repeat or a second bye")


def seat_difference(games: Sequence[Game | None]) -> int:
    """First seats minus second seats over the games played: a bye or a forfeit is no game
    (FIDE C.04.3 A.6, the colour difference)."""
    played = [
        g
        for g in games
        if g is not None and g.opponent is not None and g.result in ("win", "draw", "loss")
    ]
    return sum(1 if g.first else -1 for g in played)


def first_round(count: int) -> list[tuple[int, int | None]]:
    """Round 1 of the Dutch system needs no search: the top half meets the bottom half in seed
    order, the first seat alternating from seed 1, and an odd field's lowest seed has the bye.
    (The engine's matching would take seconds for a 200-member field to find the same;
    ``tests/engines/test_swiss_pairing.py`` checks they agree.)"""
    half = count // 2
    pairs: list[tuple[int, int | None]] = []
    for board in range(1, half + 1):
        top, bottom = board, board + half
        pairs.append((top, bottom) if board % 2 else (bottom, top))
    if count % 2:
        pairs.append((count, None))
    return pairs


def pair_trf(text: str) -> list[tuple[int, int | None]]:
    """The engine's next round for a tournament written as TRF text."""
    with tempfile.TemporaryDirectory(prefix="cardclub-swiss-") as folder:
        path = Path(folder) / "season.trf"
        path.write_text(text, encoding="utf-8")
        parsed = TrfParser.parse(path, strict=True)
    try:
        pairs = DutchEngine.generate_pairings(parsed)
    except EnginePairingError as error:
        raise PairingImpossible(str(error)) from None
    return [(p.white, p.black or None) for p in pairs]
