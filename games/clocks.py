"""Match clocks, a house rule of the table (never seen by the engines): the arithmetic.

The state lives on the match row (``Match.clock_left``, ``clock_turn_started``,
``clock_deadline``) so that a move, which saves that row anyway, pays no query for its clock.
Every function here changes the match in memory only; ``games.turns`` saves it in the move's
transaction, under the match's lock.

- Live (Fischer): each member has ``clock_minutes`` for the whole match; a seat's time runs
  while the game awaits it; after its move it gets ``clock_increment`` seconds back.
- Correspondence: each member has ``clock_days`` for every move; the time is set afresh when
  the game starts awaiting the seat.

Several seats may be awaited at once (Scout's keep-or-rotate): each runs on its own time, so
on every change of version each seat that was awaited is charged the time since the last one.
A seat that a bot plays has no clock (``None``): a bot never loses on time.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from django.utils import timezone

from games.models import Clock, Match


def _ms(delta: timedelta) -> int:
    # Rounded, not floored: the error of a move is within ±0.5 ms and averages out.
    return round(delta / timedelta(milliseconds=1))


def budget_ms(match: Match) -> int:
    """A live clock's time for the whole match, or a correspondence clock's time per move."""
    if match.clock == Clock.LIVE:
        return (match.clock_minutes or 0) * 60_000
    if match.clock == Clock.CORRESPONDENCE:
        return (match.clock_days or 0) * 86_400_000
    return 0


def start(match: Match, seats, now) -> None:
    """Every member's full time; nobody is running yet (``tick`` starts the first movers)."""
    if not match.has_clock:
        return
    budget = budget_ms(match)
    left = [None] * match.players
    for seat in seats:
        left[seat.index] = None if seat.plays_as_bot else budget
    match.clock_left = left
    match.clock_turn_started = now


def tick(match: Match, seats, before: set[int], after: set[int], mover: int | None, now) -> None:
    """A new version at ``now``: charge the seats awaited ``before`` for the time since the last
    one, give the ``mover`` its increment (live) and the seats newly awaited ``after`` their
    days (correspondence), then set the deadline for the seats awaited ``after``."""
    if not match.has_clock or match.clock_left is None:
        return
    left = list(match.clock_left)
    elapsed = _ms(now - match.clock_turn_started) if match.clock_turn_started else 0
    for index in before:
        if left[index] is not None:
            left[index] = max(0, left[index] - elapsed)
    if match.clock == Clock.LIVE:
        if mover is not None and left[mover] is not None:
            left[mover] += match.clock_increment * 1000
    elif match.clock == Clock.CORRESPONDENCE:
        for index in after:
            if left[index] is not None and (index not in before or index == mover):
                left[index] = budget_ms(match)
    match.clock_left = left
    match.clock_turn_started = now
    match.clock_deadline = deadline(match, after)


def deadline(match: Match, awaited: set[int]):
    """When the first of the ``awaited`` seats with a clock runs out (``None``: none runs)."""
    if not match.has_clock or match.clock_left is None or match.clock_turn_started is None:
        return None
    running = [match.clock_left[i] for i in awaited if match.clock_left[i] is not None]
    if not running:
        return None
    return match.clock_turn_started + timedelta(milliseconds=min(running))


def expired(match: Match, seats, now) -> list:
    """The awaited seats whose time has run out at ``now`` (members only)."""
    if (
        match.status != Match.Status.PLAYING
        or match.clock_deadline is None
        or now < match.clock_deadline
        or match.clock_left is None
    ):
        return []
    elapsed = _ms(now - match.clock_turn_started)
    return [
        seat
        for seat in seats
        if seat.to_move
        and not seat.plays_as_bot
        and match.clock_left[seat.index] is not None
        and match.clock_left[seat.index] <= elapsed
    ]


def seats_now(match: Match, now=None, seats=None) -> dict[int, dict]:
    """Per seat index with a clock: ``ms`` left as of ``now``, whether it is ``running``,
    ``low`` (under a minute on a live clock, under a day on a correspondence one) and ``at``
    (``now`` in milliseconds since the epoch). ``seats``: anything with ``index`` and
    ``to_move`` (the lists pass the match's summary), else the match's seats."""
    if not match.has_clock or match.clock_left is None:
        return {}
    now = now or timezone.now()
    playing = match.status == Match.Status.PLAYING
    elapsed = _ms(now - match.clock_turn_started) if match.clock_turn_started else 0
    low = 60_000 if match.clock == Clock.LIVE else 86_400_000
    at = _ms(now - datetime(1970, 1, 1, tzinfo=UTC))  # the server's time, for clock.js
    shown = {}
    for seat in match.seats.all() if seats is None else seats:
        left = match.clock_left[seat.index] if seat.index < len(match.clock_left) else None
        if left is None:
            continue
        running = playing and seat.to_move
        if running:
            left = max(0, left - elapsed)
        elif playing and match.clock == Clock.CORRESPONDENCE:
            # Not its turn: when it is, the seat gets its days afresh.
            left = budget_ms(match)
        shown[seat.index] = {
            "ms": left,
            "running": running,
            "low": running and left < low,
            "at": at,
        }
    return shown


def describe(rules) -> str:
    """The clock of a match or of house rules in words: "10 min + 5 s per move"."""
    from django.utils.translation import gettext as _
    from django.utils.translation import ngettext

    if rules.clock == Clock.LIVE:
        return _("live: %(minutes)s min per member + %(seconds)s s per move") % {
            "minutes": rules.clock_minutes,
            "seconds": rules.clock_increment,
        }
    if rules.clock == Clock.CORRESPONDENCE:
        return ngettext(
            "correspondence: %(days)s day per move",
            "correspondence: %(days)s days per move",
            rules.clock_days or 0,
        ) % {"days": rules.clock_days}
    return _("no clock")
