"""Writing a new version of a match, the step every write of the table ends with: the moves
appended to the log, the state stored, whose turn it is marked, the clock run, the match closed
(and ``match_finished`` sent) when the game is over, and a bot's turn handed to the worker.

The callers (``games.writes``, ``games.bot_moves``, ``games.timeouts``) hold the match's lock
(``games.locking``); nothing here locks, retries or decides whether a move is allowed.
"""

from __future__ import annotations

from functools import cache

from django.db import connections, transaction
from django.utils import timezone

from cardclub import rows
from games import clocks
from games.models import Match, MoveRecord, Seat
from games.signals import match_finished

# What a move can change on the match row (the rest is fixed when the table opens).
PLAY_FIELDS = (
    "state",
    "status",
    "version",
    "moves_played",
    "started_at",
    "finished_at",
    "updated_at",
    "clock_left",
    "clock_turn_started",
    "clock_deadline",
    "summary",
)


# What the log keeps of a move.
LOGGED = ("match", "seq", "seat", "code", "version", "created_at")


def start_game(match: Match, seats: list[Seat]) -> None:
    state = match.new_game()
    match.status = Match.Status.PLAYING
    match.started_at = timezone.now()
    # Joins already counted versions up: the page drawn for the last one must see the start.
    match.version += 1
    clocks.start(match, seats, match.started_at)
    store(match, seats, state, now=match.started_at)
    hand_to_bots(match, seats, state)


def log_moves(match: Match, records: list[MoveRecord]) -> None:
    """Append moves to the log with consecutive sequence numbers and the match version they
    produced (which tells, later, what a page drawn at an older version had seen)."""
    for offset, record in enumerate(records, start=1):
        record.seq = match.moves_played + offset
        record.version = match.version
    # One plain statement: the ORM's bulk_create cost a move more than the insert itself.
    rows.insert(MoveRecord, LOGGED, records)
    match.moves_played += len(records)


def store(match: Match, seats: list[Seat], state, mover: int | None = None, now=None) -> None:
    """Save the new state, mark whose turn it is, run the clock (``mover`` just moved at
    ``now``), and close the match when the game is over."""
    engine = match.engine
    now = now or timezone.now()
    match.state = engine.dump(state)
    movers = set(engine.to_move(state))
    if engine.is_over(state):
        by_seat = {row["seat"]: row for row in engine.outcome(state)}
        for seat in seats:
            seat.score = by_seat[seat.index]["score"]
            seat.rank = by_seat[seat.index]["rank"]
        rank_timed_out_last(seats)
        match.mark_finished(now)
        movers = set()
    clocks.tick(match, seats, {s.index for s in seats if s.to_move}, movers, mover, now)
    # Write only the seats whose turn mark changed (usually two: the one who moved and the
    # next), in one statement that flips them, and scores and ranks only when the match ends.
    # A bulk_update of every seat is a CASE expression per field, and building it cost more
    # than the rest of the move.
    finished = match.status == Match.Status.FINISHED
    flipped = []
    for seat in seats:
        # Bots too: the table shows whose turn it is, and the sweep finds bots left waiting.
        to_move = seat.index in movers
        if to_move != seat.to_move:
            flipped.append(seat.pk)
        seat.to_move = to_move
    if finished:
        Match.close_seats(seats)
        Seat.objects.bulk_update(seats, ["to_move", "score", "rank", "live"])
    elif flipped:
        rows.execute(_flip_statement(len(flipped)), flipped)
    match.summarize(seats)
    match.write(PLAY_FIELDS)
    if finished:
        match_finished.send(sender=Match, match=match, seats=seats)


@cache
def _flip_statement(count: int, using: str = "default") -> str:
    """Turn the mark of ``count`` seats (by id) over, as one plain statement: the ORM's
    ``update`` cost a move a quarter of a millisecond to build (``cardclub/rows.py``)."""
    quote = connections[using].ops.quote_name
    ids = ", ".join(["%s"] * count)
    return (
        f"UPDATE {quote(Seat._meta.db_table)} SET {quote('to_move')} = NOT {quote('to_move')}"
        f" WHERE {quote(Seat._meta.pk.column)} IN ({ids})"
    )


def rank_timed_out_last(seats: list[Seat]) -> None:
    """The seats that lost on time share the last place; the others keep their order."""
    late = [seat for seat in seats if seat.timed_out]
    if not late:
        return
    others = [seat for seat in seats if not seat.timed_out]
    for seat in others:
        seat.rank = 1 + sum(1 for other in others if other.rank < seat.rank)
    for seat in late:
        seat.rank = len(others) + 1


def bot_to_move(engine, seats: list[Seat], state) -> Seat | None:
    """The first bot seat the game waits for, or ``None`` when only members are awaited."""
    if engine.is_over(state):
        return None
    waiting = set(engine.to_move(state))
    return next((seat for seat in seats if seat.plays_as_bot and seat.index in waiting), None)


def hand_to_bots(match: Match, seats: list[Seat], state) -> None:
    """If a bot is to move in the version being written, have the worker play it once that
    version is committed (never before: the task must find the state it was queued for)."""
    if bot_to_move(match.engine, seats, state) is None:
        return
    from games import tasks  # the tasks module imports this one

    match_id, version = match.pk, match.version
    transaction.on_commit(lambda: tasks.queue_bot_move(match_id, version))
