"""The rating maths, delegated to openskill's Plackett–Luce model. Pure Python, no Django.

Both the incremental update (a match finishes) and ``rebuild_ratings`` call :func:`rate_match`,
so the two paths cannot drift apart: the same inputs in the same order give the same floats.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from openskill.models import PlackettLuce

MODEL = PlackettLuce()
_DEFAULT = MODEL.rating()
DEFAULT_MU: float = _DEFAULT.mu
DEFAULT_SIGMA: float = _DEFAULT.sigma
DEFAULT_ORDINAL: float = _DEFAULT.ordinal()

# Below this many rated games a rating is still mostly guesswork: it is shown as provisional and
# listed after the settled ones, however high it is.
PROVISIONAL_GAMES = 10


@dataclass(frozen=True)
class Skill:
    mu: float = DEFAULT_MU
    sigma: float = DEFAULT_SIGMA
    # The conservative rating the leaderboards sort by: openskill's ``ordinal`` (mu - 3 sigma).
    ordinal: float = DEFAULT_ORDINAL


@dataclass(frozen=True)
class Placing:
    """One member's seat in a finished match: who, where they sat, where they finished."""

    user_id: int
    index: int
    rank: int


def teams_of(placings: list[Placing], pairs: bool) -> list[list[Placing]]:
    """Split the table into the sides that competed.

    Escoba in pairs has two sides, seats 0+2 against 1+3; otherwise every seat is its own side.
    """
    if not pairs:
        return [[p] for p in sorted(placings, key=lambda p: p.index)]
    sides: dict[int, list[Placing]] = {}
    for placing in sorted(placings, key=lambda p: p.index):
        sides.setdefault(placing.index % 2, []).append(placing)
    return [sides[key] for key in sorted(sides)]


def side_places(placings: list[Placing], pairs: bool) -> list[Placing]:
    """Every member's place as their side's place: in pairs a pair ranks as its worst member.

    Partners normally share a rank already; this matters when one of them resigned (ranked
    last while everybody else, their partner too, shares first): the pair lost together, for
    the rating, the wins and the head-to-head records alike.
    """
    if not pairs or any(p.rank is None for p in placings):
        return placings
    worst: dict[int, int] = {}
    for placing in placings:
        side = placing.index % 2
        worst[side] = max(worst.get(side, placing.rank), placing.rank)
    return [replace(p, rank=worst[p.index % 2]) for p in placings]


def rate_match(
    placings: list[Placing], skills: dict[int, Skill], pairs: bool = False
) -> dict[int, Skill]:
    """The members' skills after this match, from every side's rank at once.

    A side ranks as its worst member: partners already share a rank, and if one partner
    resigned (ranked last) the pair lost together.
    """
    teams = teams_of(placings, pairs)
    ranks = [max(p.rank for p in team) for team in teams]
    before = [
        [MODEL.rating(mu=skills[p.user_id].mu, sigma=skills[p.user_id].sigma) for p in team]
        for team in teams
    ]
    after = MODEL.rate(before, ranks=ranks)
    return {
        placing.user_id: Skill(mu=new.mu, sigma=new.sigma, ordinal=new.ordinal())
        for team, new_team in zip(teams, after, strict=True)
        for placing, new in zip(team, new_team, strict=True)
    }


def is_rateable(placings: list[Placing]) -> bool:
    """At least two sides of distinct members, every one of them ranked."""
    users = [p.user_id for p in placings]
    return (
        len(users) >= 2
        and len(set(users)) == len(users)
        and all(p.rank is not None for p in placings)
    )
