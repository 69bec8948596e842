"""Promotion and relegation between a league's divisions. Pure Python, no Django.

Division 0 is the top. Each division's final standings (best first) decide: the top ``places``
of every division but the top go up one, the bottom ``places`` of every division but the last
go down one, the others stay.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence

STAYED, PROMOTED, RELEGATED = "", "promoted", "relegated"


def moves(standings: Sequence[Sequence[Hashable]], places: int) -> list[list[tuple[Hashable, str]]]:
    """Next season's divisions, each as (member, how they came) in the order: those who stayed
    (in their final order), those relegated from above, those promoted from below."""
    count = len(standings)
    ups = [list(s[:places]) if i > 0 else [] for i, s in enumerate(standings)]
    downs = [list(s[-places:]) if i < count - 1 and places else [] for i, s in enumerate(standings)]
    result = []
    for i, division in enumerate(standings):
        leaving = set(ups[i]) | set(downs[i])
        stayed = [(m, STAYED) for m in division if m not in leaving]
        relegated = [(m, RELEGATED) for m in downs[i - 1]] if i > 0 else []
        promoted = [(m, PROMOTED) for m in ups[i + 1]] if i < count - 1 else []
        result.append(stayed + relegated + promoted)
    return result
