"""Standings and crosstable, computed live from the fixtures' results.

Nothing here is stored: a page reads the results in one query and ranks them, so a result, a
forfeit or a correction shows the moment it is written.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from django.core.cache import cache
from django.db import connections
from django.utils.safestring import mark_safe

from .models import Fixture, FixtureSeat, Season


@dataclass(slots=True)
class Result:
    """One seat's result in one fixture."""

    fixture_id: int
    index: int
    user_id: int
    rank: int | None
    score: int
    forfeited: bool


@dataclass
class Row:
    user_id: int
    name: str
    points: int = 0
    played: int = 0
    won: int = 0
    drawn: int = 0
    lost: int = 0
    score_for: int = 0
    score_against: int = 0
    head_to_head: int = 0
    position: int = 0
    results: list = field(default_factory=list)  # (fixture_id, points) for head to head

    @property
    def score_difference(self) -> int:
        return self.score_for - self.score_against


def load_results(season: Season) -> list[list[Result]]:
    """Every decided fixture of the season as a list of seat results (one query).

    The ORM builds the query, but the rows are read from the cursor directly: a double round
    robin of 40 is 3,120 rows, and per-value converters tripled the time of the standings page.
    """
    query = (
        FixtureSeat.objects.filter(
            fixture__round__season=season,
            fixture__status__in=[Fixture.Status.PLAYED, Fixture.Status.FORFEIT],
        )
        .order_by("fixture_id", "index")
        .values_list("fixture_id", "index", "user_id", "rank", "score", "forfeited")
    )
    sql, params = query.query.sql_with_params()
    with connections[query.db].cursor() as cursor:
        cursor.execute(sql, params)
        rows = cursor.fetchall()
    fixtures: dict[int, list[Result]] = defaultdict(list)
    for fixture_id, index, user_id, rank, score, forfeited in rows:
        fixtures[fixture_id].append(
            Result(fixture_id, index, user_id, rank, score or 0, bool(forfeited))
        )
    return list(fixtures.values())


def compute(season: Season, players: dict[int, str], fixtures: list[list[Result]]) -> list[Row]:
    """The standings: points, then head to head among the members level on points (the points
    they took from fixtures against each other), then game score difference, then wins, then
    name, so the order is always the same for the same results."""
    rows = {user_id: Row(user_id, name) for user_id, name in players.items()}
    points_for = season.points_rule()
    participants: dict[int, set[int]] = {}
    for seats in fixtures:
        participants[seats[0].fixture_id] = {s.user_id for s in seats}
        ranked = [s.rank for s in seats if s.rank is not None and not s.forfeited]
        total = sum(s.score for s in seats)
        for seat in seats:
            row = rows.get(seat.user_id)
            if row is None:  # a member removed from the season keeps no row
                continue
            rank = seat.rank
            shared = ranked.count(rank) > 1
            # Places count the seats ahead: a resignation at a table of three, where the other
            # two share first, is third place, not second (matches rank densely).
            place = None if rank is None else 1 + sum(r < rank for r in ranked)
            points = points_for(place, shared, seat.forfeited)
            row.points += points
            row.played += 1
            if seat.forfeited or rank != 1:
                row.lost += 1
            elif shared:
                row.drawn += 1
            else:
                row.won += 1
            row.score_for += seat.score
            row.score_against += total - seat.score
            row.results.append((seat.fixture_id, points))
    by_points: dict[int, list[Row]] = defaultdict(list)
    for row in rows.values():
        by_points[row.points].append(row)
    for level in by_points.values():
        if len(level) < 2:
            continue
        tied = {row.user_id for row in level}
        for row in level:
            row.head_to_head = sum(
                points
                for fixture_id, points in row.results
                if len(participants[fixture_id] & tied) > 1
            )
    ordered = sorted(
        rows.values(),
        key=lambda r: (-r.points, -r.head_to_head, -r.score_difference, -r.won, r.name.lower()),
    )
    for position, row in enumerate(ordered, start=1):
        row.position = position
    return ordered


def crosstable(
    standings: list[Row], fixtures: list[list[Result]], season: Season
) -> list[tuple[Row, list[str], str]]:
    """For a round robin: for each member in standings order, one cell per opponent (in the same
    order) with the points they took from each meeting; "+" and "−" mark forfeits. Each row
    comes as (standing, marks, the marks as table cells)."""
    # The points each member took from each fixture, as ``compute`` worked them out.
    taken = {
        (fixture_id, row.user_id): points for row in standings for fixture_id, points in row.results
    }
    cells: dict[tuple[int, int], list[str]] = defaultdict(list)
    for seats in fixtures:
        if len(seats) != 2:
            continue
        for me, other in ((seats[0], seats[1]), (seats[1], seats[0])):
            if me.forfeited:
                mark = "−"
            elif other.forfeited:
                mark = "+"
            else:
                mark = str(taken.get((me.fixture_id, me.user_id), ""))
            cells[me.user_id, other.user_id].append(mark)
    order = [row.user_id for row in standings]
    table = []
    for row in standings:
        marks = [
            "×" if other == row.user_id else " ".join(cells.get((row.user_id, other), ()))
            for other in order
        ]
        # A 40-member crosstable has 1,600 cells: rendered here as one string per row rather
        # than cell by cell in the template (which cost most of the page's time). The marks are
        # digits and the signs above, so joining them into markup is safe.
        html = mark_safe("".join(f"<td>{mark}</td>" for mark in marks))  # noqa: S308
        table.append((row, marks, html))
    return table


def season_tables(season: Season, players: dict[int, str]):
    """Standings and (for round robins) crosstable, from the cache when the season's results and
    members have not changed since they were computed. Every result change bumps
    ``results_version``, so the key changes with it: the tables stay live, but a busy season
    page does not recompute 3,000 results on every view."""
    # The creation time too: a database reset (or a test's rollback) may reuse a season's id.
    key = "leagues:tables:%d:%d:%d:%d" % (
        season.pk,
        season.created_at.timestamp() * 1e6,
        season.results_version,
        hash(tuple(sorted(players.items()))),
    )
    tables = cache.get(key)
    if tables is None:
        results = load_results(season)
        rows = compute(season, players, results)
        # From the start, before any result: who meets whom is the point of a round robin's
        # crosstable, and its empty cells fill as the results come.
        cross = crosstable(rows, results, season) if season.is_round_robin and rows else None
        tables = (rows, cross)
        cache.set(key, tables, timeout=24 * 3600)
    return tables
