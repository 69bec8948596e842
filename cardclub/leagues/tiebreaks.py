"""Swiss tie-breaks, computed from the season's games. Pure Python, no Django.

A member's games are ``(opponent, outcome)`` pairs, one per round they took part in: the opponent
is ``None`` for a bye, and the outcome one of ``win``, ``draw``, ``loss``, ``forfeit_win``,
``forfeit_loss``, ``bye``. An unplayed round (a bye or a forfeit) counts, as in FIDE's tie-break
rules, as a game against a "virtual opponent" with the member's own points: a bye or a forfeit
neither helps nor hurts a member's Buchholz against those who played every round.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

BUCHHOLZ = "buchholz"
BUCHHOLZ_CUT1 = "buchholz_cut1"
SONNEBORN_BERGER = "sonneborn_berger"
HEAD_TO_HEAD = "head_to_head"
WINS = "wins"
CODES = (BUCHHOLZ_CUT1, BUCHHOLZ, SONNEBORN_BERGER, HEAD_TO_HEAD, WINS)

PLAYED = {"win": 1.0, "draw": 0.5, "loss": 0.0}
UNPLAYED = {"forfeit_win": 1.0, "bye": 1.0, "forfeit_loss": 0.0}


def default_order() -> list[str]:
    """A new season's tie-breaks (a callable: a JSONField default must not be shared)."""
    return list(CODES)


def unknown(order: Sequence[str]) -> list[str]:
    """The codes in ``order`` that are not tie-breaks, or repeated."""
    if not isinstance(order, list):
        return [str(order)]
    seen: set = set()
    bad = []
    for code in order:
        if code not in CODES or code in seen:
            bad.append(str(code))
        seen.add(code)
    return bad


def compute(
    points: Mapping[int, float], games: Mapping[int, Sequence[tuple[int | None, str]]]
) -> dict[int, dict[str, float]]:
    """Buchholz, Buchholz cut 1 and Sonneborn-Berger for every member in ``points``."""
    values = {}
    for member, own in points.items():
        opponents = []  # the points of each round's opponent, real or virtual
        sonneborn = 0.0
        for opponent, outcome in games.get(member, ()):
            if outcome in PLAYED and opponent is not None:
                theirs = points.get(opponent, 0)
                weight = PLAYED[outcome]
            else:
                theirs = own
                weight = UNPLAYED.get(outcome, 0.0)
            opponents.append(theirs)
            sonneborn += weight * theirs
        buchholz = sum(opponents)
        values[member] = {
            BUCHHOLZ: buchholz,
            BUCHHOLZ_CUT1: buchholz - min(opponents) if opponents else 0,
            SONNEBORN_BERGER: sonneborn,
        }
    return values
