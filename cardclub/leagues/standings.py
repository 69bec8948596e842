"""Standings and crosstable, computed live from the fixtures' results.

Nothing here is stored: a page reads the results in one query and ranks them, so a result, a
forfeit or a correction shows the moment it is written.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from django.core.cache import cache
from django.db import connections, models
from django.utils.html import escape
from django.utils.safestring import mark_safe
from django.utils.translation import get_language, gettext
from django.utils.translation import gettext_lazy as _

from . import tiebreaks
from .models import Bye, Fixture, FixtureSeat, Season, outcome

# Short and long names of the tie-breaks, for the standings' columns.
TIE_BREAK_LABELS = {
    tiebreaks.BUCHHOLZ: (_("Bu"), _("Buchholz")),
    tiebreaks.BUCHHOLZ_CUT1: (_("Bu-1"), _("Buchholz cut 1")),
    tiebreaks.SONNEBORN_BERGER: (_("SB"), _("Sonneborn-Berger")),
    tiebreaks.HEAD_TO_HEAD: (_("H2H"), _("Head to head")),
    tiebreaks.WINS: (_("W"), _("Wins")),
}


@dataclass(slots=True)
class Result:
    """One seat's result in one fixture."""

    fixture_id: int
    index: int
    user_id: int
    rank: int | None
    score: int
    forfeited: bool
    round: int = 0


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
    byes: int = 0
    position: int = 0
    results: list = field(default_factory=list)  # (fixture_id, points) for head to head
    tie_values: list = field(default_factory=list)  # a Swiss's tie-breaks, in the season's order
    cells: str = ""  # the row as table cells (see ``_row_cells``)
    withdrawn: bool = False

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
        .values_list(
            "fixture_id", "index", "user_id", "rank", "score", "forfeited", "fixture__round__number"
        )
    )
    sql, params = query.query.sql_with_params()
    with connections[query.db].cursor() as cursor:
        cursor.execute(sql, params)
        rows = cursor.fetchall()
    fixtures: dict[int, list[Result]] = defaultdict(list)
    for fixture_id, index, user_id, rank, score, forfeited, number in rows:
        fixtures[fixture_id].append(
            Result(fixture_id, index, user_id, rank, score or 0, bool(forfeited), number)
        )
    return list(fixtures.values())


def members(season: Season):
    """The season's members (id: name), its withdrawals (id: the rule applied) and, for a
    Swiss, its byes as (round number, member id, points), in one query: a member has at most
    one bye a season (a constraint says so), so the bye rides along on the member's row. A
    member whose results were voided has no row in the standings."""
    if season.pairs:
        return pair_entrants(season), {}, []
    query = season.players.values_list("user_id", "user__username", "withdrawal")
    if season.is_swiss:
        bye = Bye.objects.filter(season=season, user=models.OuterRef("user"))
        query = query.annotate(
            bye_round=models.Subquery(bye.values("round__number")[:1]),
            bye_points=models.Subquery(bye.values("points")[:1]),
        )
    players, withdrawn, byes = {}, {}, []
    for user_id, name, withdrawal, *bye in query:
        if withdrawal:
            withdrawn[user_id] = (name, withdrawal)
        if withdrawal != Season.WithdrawalRule.VOID:
            players[user_id] = name
        if bye and bye[0] is not None:
            byes.append((bye[0], user_id, bye[1]))
    return players, withdrawn, byes


def pair_entrants(season: Season) -> dict[int, str]:
    """A season of pairs' entrants: each confirmed pair under the negative of its id (so it
    never meets a member's id), named after both partners."""
    pairs = season.pairs_entered.exclude(confirmed_at=None).values_list(
        "pk", "first__username", "second__username"
    )
    return {-pk: f"{a} & {b}" for pk, a, b in pairs}


def as_pairs(season: Season, fixtures: list[list[Result]]) -> list[list[Result]]:
    """A season of pairs' fixtures as two-sided ones: seat 0 speaks for its pair (seats 0 and
    2, who share the pair's place and score in a game in pairs), seat 1 for the other."""
    pair_of = {}
    for pk, first, second in season.pairs_entered.values_list("pk", "first_id", "second_id"):
        pair_of[first] = pair_of[second] = -pk
    sides = []
    for seats in fixtures:
        if len(seats) != 4:
            continue
        by_index = {seat.index: seat for seat in seats}
        side = []
        for index in (0, 1):
            seat, partner = by_index[index], by_index[index + 2]
            side.append(
                Result(
                    seat.fixture_id,
                    index,
                    pair_of.get(seat.user_id, 0),
                    seat.rank,
                    seat.score,
                    seat.forfeited or partner.forfeited,
                    seat.round,
                )
            )
        sides.append(side)
    return sides


def _format(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:.1f}"


def compute(
    season: Season, players: dict[int, str], fixtures: list[list[Result]], byes=()
) -> list[Row]:
    """The standings: points, then head to head among the members level on points (the points
    they took from fixtures against each other), then game score difference, then wins, then
    name, so the order is always the same for the same results. A Swiss orders by points, then
    the season's tie-breaks, then name."""
    rows = {user_id: Row(user_id, name) for user_id, name in players.items()}
    for _number, user_id, points in byes:
        if user_id in rows:
            rows[user_id].points += points
            rows[user_id].byes += 1
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
    if season.is_swiss:
        ordered = _swiss_order(season, rows, fixtures, byes)
    else:
        ordered = sorted(
            rows.values(),
            key=lambda r: (-r.points, -r.head_to_head, -r.score_difference, -r.won, r.name.lower()),
        )
    for position, row in enumerate(ordered, start=1):
        row.position = position
    return ordered


def with_cells(rows: list[Row], withdrawn=()) -> list[Row]:
    """Each row's cells, the withdrawn marked as such."""
    for row in rows:
        row.withdrawn = row.user_id in withdrawn
        row.cells = _row_cells(row)
    return rows


def _row_cells(row: Row) -> str:
    """A standings row's cells as markup, made once with the (cached) standings: 200 rows of
    ten values cost the page most of its time when the template rendered them one by one.
    The name is escaped; everything else is a number."""
    ties = "".join(f"<td>{value}</td>" for value in row.tie_values)
    withdrew = escape(gettext("withdrew"))
    mark = f' <small class="muted">({withdrew})</small>' if row.withdrawn else ""
    return mark_safe(  # noqa: S308
        f'<td>{row.position}</td><th scope="row">{escape(row.name)}{mark}</th>'
        f"<td><strong>{row.points}</strong></td>{ties}<td>{row.played}</td><td>{row.won}</td>"
        f"<td>{row.drawn}</td><td>{row.lost}</td>"
        f'<td class="wide">{row.score_for}–{row.score_against}</td>'
    )


def _swiss_order(season, rows: dict[int, Row], fixtures, byes) -> list[Row]:
    games: dict[int, list] = defaultdict(list)
    for seats in fixtures:
        if len(seats) == 2:
            a, b = seats
            games[a.user_id].append((b.user_id, outcome(a, b)))
            games[b.user_id].append((a.user_id, outcome(b, a)))
    for _number, user_id, _points in byes:
        games[user_id].append((None, "bye"))
    values = tiebreaks.compute({uid: row.points for uid, row in rows.items()}, games)
    order = [code for code in season.tie_breaks if code in TIE_BREAK_LABELS]
    for user_id, row in rows.items():
        found = {
            **values[user_id],
            tiebreaks.HEAD_TO_HEAD: row.head_to_head,
            tiebreaks.WINS: row.won,
        }
        row.tie_values = [found[code] for code in order]
    ordered = sorted(
        rows.values(), key=lambda r: (-r.points, *(-v for v in r.tie_values), r.name.lower())
    )
    for row in ordered:
        row.tie_values = [_format(v) for v in row.tie_values]
    return ordered


def meeting_marks(standings: list[Row], fixtures: list[list[Result]]):
    """Each two-player fixture from both sides: (me, other, mark), the mark being the points I
    took (as ``compute`` worked them out), or "+" and "−" for a forfeit."""
    taken = {
        (fixture_id, row.user_id): points for row in standings for fixture_id, points in row.results
    }
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
            yield me, other, mark


def swiss_crosstable(standings: list[Row], fixtures: list[list[Result]], byes, rounds: int):
    """A Swiss's crosstable: for each member in standings order, one cell per round with the
    opponent's place and the points taken (B: a bye; + and − forfeits), as (row, marks, the
    marks as table cells)."""
    place = {row.user_id: row.position for row in standings}
    cells: dict[tuple[int, int], str] = {}
    for me, other, mark in meeting_marks(standings, fixtures):
        cells[me.user_id, me.round] = f"{place.get(other.user_id, '?')}:{mark}"
    for number, user_id, points in byes:
        cells[user_id, number] = f"B:{points}"
    table = []
    for row in standings:
        marks = [cells.get((row.user_id, n), "") for n in range(1, rounds + 1)]
        # Digits, signs and "B" only: safe to join into markup (see ``crosstable``).
        html = mark_safe("".join(f"<td>{mark}</td>" for mark in marks))  # noqa: S308
        table.append((row, marks, html))
    return table


def crosstable(
    standings: list[Row], fixtures: list[list[Result]], season: Season
) -> list[tuple[Row, list[str], str]]:
    """For a round robin: for each member in standings order, one cell per opponent (in the same
    order) with the points they took from each meeting; "+" and "−" mark forfeits. Each row
    comes as (standing, marks, the marks as table cells)."""
    cells: dict[tuple[int, int], list[str]] = defaultdict(list)
    for me, other, mark in meeting_marks(standings, fixtures):
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


def season_tables(season: Season, players: dict[int, str], byes=(), withdrawn=()):
    """Standings and (for round robins) crosstable, from the cache when the season's results and
    members have not changed since they were computed. Every result change bumps
    ``results_version``, so the key changes with it: the tables stay live, but a busy season
    page does not recompute 3,000 results on every view."""
    # The creation time too: a database reset (or a test's rollback) may reuse a season's id.
    # The current round too: pairing a Swiss round gives its bye its points.
    # And the language: the rows carry a word ("withdrew").
    key = "leagues:tables:%s:%d:%d:%d:%d:%d" % (
        get_language(),
        season.pk,
        season.created_at.timestamp() * 1e6,
        season.results_version,
        season.current_round,
        hash((tuple(sorted(players.items())), tuple(sorted(withdrawn)))),
    )
    tables = cache.get(key)
    if tables is None:
        results = load_results(season)
        if season.pairs:
            results = as_pairs(season, results)
        rows = with_cells(compute(season, players, results, byes), withdrawn)
        if season.is_swiss:
            cross = swiss_crosstable(rows, results, byes, season.current_round) or None
        elif season.is_round_robin and rows:
            # From the start, before any result: who meets whom is the point of a round
            # robin's crosstable, and its empty cells fill as the results come.
            cross = crosstable(rows, results, season)
        else:
            cross = None
        tables = (rows, cross)
        cache.set(key, tables, timeout=24 * 3600)
    return tables
