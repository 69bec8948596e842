"""The writes of the ratings app: record one finished match, or rebuild everything from scratch.

Both go through the same pure steps (:func:`cardclub.ratings.skill.rate_match` and
:func:`head_to_head`) in the order the matches finished, so a rebuild reproduces exactly what the
incremental updates wrote.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime

from django.db import connection, transaction

from games.models import Match, Seat

from .models import HeadToHead, MatchResult, Rating
from .skill import PROVISIONAL_GAMES, Placing, Skill, is_rateable, rate_match, side_places

RATING_FIELDS = [
    "mu",
    "sigma",
    "ordinal",
    "games",
    "wins",
    "provisional",
    "last_played_at",
    "last_match",
]


def is_pairs(match_options: dict | None, players: int) -> bool:
    return bool((match_options or {}).get("pairs")) and players == 4


def head_to_head(placings: list[Placing], pairs: bool) -> list[tuple[int, int, int, int, int]]:
    """(member, opponent, win, loss, shared) for every ordered pair of opponents at the table.

    Partners in pairs are not opponents. A win is finishing ahead of that member.
    """
    rows = []
    for mine in placings:
        for theirs in placings:
            if theirs is mine or (pairs and mine.index % 2 == theirs.index % 2):
                continue
            if mine.rank is None or theirs.rank is None:
                rows.append((mine.user_id, theirs.user_id, 0, 0, 0))
                continue
            win, loss = int(mine.rank < theirs.rank), int(mine.rank > theirs.rank)
            rows.append((mine.user_id, theirs.user_id, win, loss, int(not (win or loss))))
    return rows


def record_match(match: Match, seats: list[Seat]) -> list[MatchResult]:
    """Record a match that has just finished; runs inside the transaction that finished it.

    Four queries whatever the table size: for a rated match, claim the members' rating rows
    (created if new, locked) and update them; then append the results and add up the
    head-to-head records.
    """
    if match.status != Match.Status.FINISHED:
        return []
    members = [seat for seat in seats if seat.user_id is not None]
    if not members:
        return []
    pairs = is_pairs(match.options, match.players)
    placings = side_places(
        [Placing(user_id=s.user_id, index=s.index, rank=s.rank) for s in members], pairs
    )
    # The match's own flag is the truth: it was frozen when the table opened (no bot seat,
    # house rules rated), like its options. The seat check guards against data that disagrees.
    rated = match.rated and len(members) == len(seats) and is_rateable(placings)
    results = {
        p.user_id: MatchResult(
            match_id=match.pk,
            user_id=p.user_id,
            game=match.game,
            finished_at=match.finished_at,
            rank=p.rank,
            rated=rated,
        )
        for p in placings
    }
    if rated:
        _rate(match, placings, pairs, results)
    created = MatchResult.objects.bulk_create(results.values())
    _add_head_to_head([(*row[:2], 1, *row[2:]) for row in head_to_head(placings, pairs)])
    return created


def _rate(match: Match, placings: list[Placing], pairs: bool, results) -> None:
    user_ids = [p.user_id for p in placings]
    ratings = _claim_ratings(match.game, user_ids)
    before = {user_id: ratings[user_id].skill for user_id in user_ids}
    after = rate_match(placings, before, pairs=pairs)
    for placing in placings:
        rating = ratings[placing.user_id]
        rating.record(after[placing.user_id], won=placing.rank == 1, match=match)
        _fill(results[placing.user_id], before[placing.user_id], after[placing.user_id])
        results[placing.user_id].game_number = rating.games
    # The rows exist and are locked, so this "upsert" always updates; it writes them in one
    # statement that is far cheaper to build than bulk_update()'s CASE expressions. Without
    # their ids, the rows can only meet the (member, game) constraint, the one named here.
    ordered = [ratings[user_id] for user_id in sorted(ratings)]
    for rating in ordered:
        rating.pk = None
    Rating.objects.bulk_create(
        ordered,
        update_conflicts=True,
        unique_fields=["user", "game"],
        update_fields=RATING_FIELDS,
    )


# Every column but the id, in the order the claim statement inserts them.
_CLAIM_FIELDS = [f for f in Rating._meta.concrete_fields if not f.primary_key]


def _claim_sql(rows: int) -> str:
    """Create the missing rating rows and lock and read them all, in one statement.

    ``INSERT … ON CONFLICT DO UPDATE … RETURNING``: a new member's row is inserted, an existing
    one is "updated" to itself, which takes its row lock as ``SELECT … FOR UPDATE`` would, and
    every row comes back. Two matches that finish at once for the same members queue on those
    locks, and a newcomer's first rating cannot be written twice. The same statement works on
    PostgreSQL and on SQLite (3.35 and newer), where the write transaction already serialises.
    """
    quote = connection.ops.quote_name
    table = quote(Rating._meta.db_table)
    columns = [quote(f.column) for f in _CLAIM_FIELDS]
    values = ", ".join(["(" + ", ".join(["%s"] * len(columns)) + ")"] * rows)
    user, game = (quote(Rating._meta.get_field(name).column) for name in ("user", "game"))
    every = ", ".join(quote(f.column) for f in Rating._meta.concrete_fields)
    return (
        f"INSERT INTO {table} ({', '.join(columns)}) VALUES {values} "
        f"ON CONFLICT ({user}, {game}) DO UPDATE SET {game} = excluded.{game} RETURNING {every}"
    )


def _claim_ratings(game: str, user_ids: list[int]) -> dict[int, Rating]:
    """The members' ratings for ``game``, locked for this transaction, new ones created with
    the model's defaults.

    The rows are claimed in member id order, whatever the seat order: the statement locks them
    in the order of its VALUES, and two matches between the same members with their seats the
    other way round would otherwise each hold one row and wait for the other (a deadlock).
    """
    params = []
    for user_id in sorted(user_ids):
        fresh = Rating(user_id=user_id, game=game)
        params += [f.get_db_prep_save(getattr(fresh, f.attname), connection) for f in _CLAIM_FIELDS]
    return {r.user_id: r for r in Rating.objects.raw(_claim_sql(len(user_ids)), params)}


def _fill(result: MatchResult, old: Skill, new: Skill) -> None:
    result.mu_before, result.sigma_before, result.ordinal_before = old.mu, old.sigma, old.ordinal
    result.mu_after, result.sigma_after, result.ordinal_after = new.mu, new.sigma, new.ordinal


def _head_to_head_sql(rows: int) -> str:
    """Add to the counters, creating the pair's row if needed, in one statement.

    ``INSERT … ON CONFLICT DO UPDATE`` with increments is atomic on SQLite and PostgreSQL alike,
    so two matches finishing at once cannot lose a count; the ORM's upsert can only overwrite.
    """
    quote = connection.ops.quote_name
    table = quote(HeadToHead._meta.db_table)
    counters = ["played", "wins", "losses", "shared"]
    columns = [quote(HeadToHead._meta.get_field(n).column) for n in ["user", "rival", *counters]]
    values = ", ".join(["(" + ", ".join(["%s"] * len(columns)) + ")"] * rows)
    updates = ", ".join(f"{quote(c)} = {table}.{quote(c)} + excluded.{quote(c)}" for c in counters)
    return (
        f"INSERT INTO {table} ({', '.join(columns)}) VALUES {values} "
        f"ON CONFLICT ({columns[0]}, {columns[1]}) DO UPDATE SET {updates}"
    )


def _add_head_to_head(rows: list[tuple[int, int, int, int, int, int]]) -> None:
    if not rows:
        return
    # (member, rival) order, for the reason _claim_ratings sorts: unrated matches take these
    # row locks without holding the ratings' first.
    rows = sorted(rows)
    with connection.cursor() as cursor:
        cursor.execute(_head_to_head_sql(len(rows)), [value for row in rows for value in row])


# --- Rebuild ----------------------------------------------------------------------------------

# The columns of a result row, in the order rebuild_all() builds its tuples.
_RESULT_FIELDS = [
    "match_id",
    "user_id",
    "game",
    "finished_at",
    "rank",
    "rated",
    "game_number",
    "mu_before",
    "sigma_before",
    "ordinal_before",
    "mu_after",
    "sigma_after",
    "ordinal_after",
]


_HEAD_TO_HEAD_FIELDS = ["user_id", "rival_id", "played", "wins", "losses", "shared"]


def _insert(model, field_names: list[str], rows: list[tuple]) -> None:
    """Append rows with one ``executemany`` of a plain ``INSERT``.

    A rebuild writes one result per member per match and a head-to-head record per pair of
    opponents, each more than half a million for a busy club; building model instances and
    preparing every value through the ORM took most of the rebuild's time. The values are
    already in database form (numbers, strings, adapted dates).
    """
    if not rows:
        return
    meta = model._meta
    quote = connection.ops.quote_name
    columns = ", ".join(quote(meta.get_field(name).column) for name in field_names)
    marks = ", ".join(["%s"] * len(field_names))
    with connection.cursor() as cursor:
        cursor.executemany(f"INSERT INTO {quote(meta.db_table)} ({columns}) VALUES ({marks})", rows)


@dataclass
class _Summary:
    skill: Skill = field(default_factory=Skill)
    games: int = 0
    wins: int = 0
    last_played_at: datetime | None = None
    last_match_id: int | None = None


@dataclass
class _Table:
    match_id: int
    game: str
    finished_at: datetime
    pairs: bool
    rated: bool
    placings: list[Placing] = field(default_factory=list)
    complete: bool = True  # every seat a member: no bot, no empty seat


def _tables(chunk_size: int) -> Iterable[_Table]:
    """Every finished match with its seats, in the order the matches finished.

    One streamed query over the seats, grouped here, rather than a query per match.
    """
    rows = (
        Seat.objects.filter(match__status=Match.Status.FINISHED)
        .order_by("match__finished_at", "match_id", "index")
        .values_list(
            "match_id",
            "match__game",
            "match__finished_at",
            # Only the one key: decoding every seat's whole options would cost more than rating.
            "match__options__pairs",
            "match__players",
            "match__rated",
            "index",
            "user_id",
            "rank",
        )
        .iterator(chunk_size=chunk_size)
    )
    table: _Table | None = None
    for match_id, game, finished_at, pairs, players, rated, index, user_id, rank in rows:
        if table is None or table.match_id != match_id:
            if table is not None:
                yield table
            pairs = is_pairs({"pairs": pairs}, players)
            table = _Table(match_id, game, finished_at, pairs, rated)
        if user_id is None:
            table.complete = False
        else:
            table.placings.append(Placing(user_id=user_id, index=index, rank=rank))
    if table is not None:
        yield table


@transaction.atomic
def rebuild_all(
    progress: Callable[[int, int], None] | None = None, batch_size: int = 5000
) -> tuple[int, int]:
    """Throw away every rating, result and head-to-head record and replay all finished
    matches in order; returns (matches, ratings).

    Runs in one transaction: the club sees either the old figures or the rebuilt ones.
    """
    total = Match.objects.filter(status=Match.Status.FINISHED).count()
    MatchResult.objects.all().delete()
    Rating.objects.all().delete()
    HeadToHead.objects.all().delete()
    summaries: dict[tuple[int, str], _Summary] = {}
    rivals: dict[tuple[int, int], list[int]] = {}
    pending: list[tuple] = []
    done = 0
    as_db_datetime = connection.ops.adapt_datetimefield_value
    for table in _tables(chunk_size=batch_size):
        done += 1
        placings = side_places(table.placings, table.pairs)
        when = as_db_datetime(table.finished_at)
        rated = table.rated and table.complete and is_rateable(placings)
        if rated:
            keys = {p.user_id: (p.user_id, table.game) for p in placings}
            before = {
                user_id: summaries.setdefault(key, _Summary()).skill
                for user_id, key in keys.items()
            }
            after = rate_match(placings, before, pairs=table.pairs)
        for placing in placings:
            row = (table.match_id, placing.user_id, table.game, when, placing.rank, rated)
            if rated:
                summary = summaries[keys[placing.user_id]]
                old = before[placing.user_id]
                summary.skill = new = after[placing.user_id]
                summary.games += 1
                summary.wins += 1 if placing.rank == 1 else 0
                summary.last_played_at = table.finished_at
                summary.last_match_id = table.match_id
                row += (summary.games, old.mu, old.sigma, old.ordinal)
                row += (new.mu, new.sigma, new.ordinal)
            else:
                row += (None,) * 7
            pending.append(row)
        for user_id, rival_id, win, loss, shared in head_to_head(placings, table.pairs):
            counts = rivals.setdefault((user_id, rival_id), [0, 0, 0, 0])
            counts[0] += 1
            counts[1] += win
            counts[2] += loss
            counts[3] += shared
        if len(pending) >= batch_size:
            _insert(MatchResult, _RESULT_FIELDS, pending)
            pending = []
        if progress is not None:
            progress(done, total)
    _insert(MatchResult, _RESULT_FIELDS, pending)
    Rating.objects.bulk_create(
        (
            Rating(
                user_id=user_id,
                game=game,
                mu=summary.skill.mu,
                sigma=summary.skill.sigma,
                ordinal=summary.skill.ordinal,
                games=summary.games,
                wins=summary.wins,
                provisional=summary.games < PROVISIONAL_GAMES,
                last_played_at=summary.last_played_at,
                last_match_id=summary.last_match_id,
            )
            for (user_id, game), summary in summaries.items()
        ),
        batch_size=batch_size,
    )
    _insert(
        HeadToHead,
        _HEAD_TO_HEAD_FIELDS,
        [(user_id, rival_id, *counts) for (user_id, rival_id), counts in rivals.items()],
    )
    return done, len(summaries)
