"""Losing on time: the time-outs a clock sweep (``games.tasks.sweep_clocks``) or any write at
the table (a move, a bot move) finds due, applied under the match's lock.

The clock's arithmetic is ``games.clocks``; this module is what a time-out does to the match:
with two players (or in pairs) the match ends, with more an easy bot plays the seat on.
``match_timed_out`` is sent once the time-out has committed (``games.signals``).
"""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone

from games import clocks, turns
from games.locking import NoSuchMatch, locked, retried
from games.models import Match, Seat
from games.signals import match_finished, match_timed_out


def apply_due(match: Match, seats: list[Seat], now) -> list[Seat]:
    """Apply the time-outs due at ``now`` to the locked match; the seats that ran out.

    In a two-player match the other side wins, and playing in pairs the partner loses too (as
    for a resignation). With three or more players the match goes on: an easy bot plays the
    seat, whose member keeps it for the record and ranks last at the end.
    """
    late = clocks.expired(match, seats, now)
    if not late:
        return []
    awaited = {seat.index for seat in seats if seat.to_move}
    for seat in late:
        seat.timed_out = True
        seat.timed_out_after = match.moves_played
    pairs = bool(match.options.get("pairs"))
    match.version += 1
    if match.players <= 2 or pairs:
        lost = {seat.index for seat in late}
        if pairs:
            lost = {s.index for s in seats if any(s.index % 2 == i % 2 for i in lost)}
        for seat in seats:
            seat.to_move = False
            seat.rank = 2 if seat.index in lost and len(lost) < len(seats) else 1
            seat.score = None
        # Charge the clocks up to now, so the record shows the time that ran out.
        clocks.tick(match, seats, awaited, set(), None, now)
        match.mark_finished(now)
        Match.close_seats(seats)
        Seat.objects.bulk_update(
            seats, ["to_move", "rank", "score", "timed_out", "timed_out_after", "live"]
        )
        match.summarize(seats)
        match.write(turns.PLAY_FIELDS)
        match_finished.send(sender=Match, match=match, seats=seats)
    else:
        clocks.tick(match, seats, awaited, awaited, None, now)
        left = list(match.clock_left)
        for seat in late:
            left[seat.index] = None  # a bot plays it now: no clock
        match.clock_left = left
        match.clock_deadline = clocks.deadline(match, awaited)
        Seat.objects.bulk_update(late, ["timed_out", "timed_out_after"])
        match.summarize(seats)
        match.write(turns.PLAY_FIELDS)
        turns.hand_to_bots(match, seats, match.engine.load(match.state))
    match_id = match.pk
    late_ids = [seat.pk for seat in late]
    transaction.on_commit(lambda: _send_timed_out(match_id, late_ids))
    return late


def _send_timed_out(match_id: int, seat_ids: list[int]) -> None:
    match = Match.objects.get(pk=match_id)
    seats = list(Seat.objects.filter(pk__in=seat_ids).select_related("user").order_by("index"))
    match_timed_out.send(sender=Match, match=match, seats=seats)


@retried
def time_out(match_id: int, version: int | None = None, now=None) -> bool:
    """Apply the time-outs due now to one match, under its lock; ``False`` if none is due (or
    the match moved on from ``version``, which set a new deadline). Run twice, by two workers,
    or at the instant of a move, a time-out is applied once."""
    try:
        match, seats = locked(match_id)
    except NoSuchMatch:
        return False
    if version is not None and match.version != version:
        return False
    return bool(apply_due(match, seats, now or timezone.now()))


def expired_matches(now=None):
    """(id, version) of every playing match whose clock has run out: one query on the
    ``clock_deadline`` index."""
    return (
        Match.objects.filter(status=Match.Status.PLAYING, clock_deadline__lte=now or timezone.now())
        .order_by("clock_deadline")
        .values_list("pk", "version")
    )
