"""How every write of the table runs: in one transaction, the match row locked first, the rows
that several matches share locked in one global order, a lost conflict tried again, and a
refusal said to the member.

Each write (``games.writes``, ``games.bot_moves``, ``games.timeouts``, and the actions of other
apps that change a match's neighbours under its lock) starts with :func:`locked`:
``select_for_update`` on the match alone (a row lock on PostgreSQL; on SQLite the IMMEDIATE
transaction already serialises writers), and only then reads what it will write: the seats,
and through the ``match_finished`` receivers the ratings and the league fixture. Reading the
seats in the same statement as the lock would be wrong on PostgreSQL: after waiting for the
lock it re-checks only the locked row, so the seats would be the ones from before the wait.

The lock order, so two requests can never wait for each other: the match, then the members'
ratings by member id, the head-to-head rows by (member, rival), then the league fixture and
its season. A deadlock or serialization failure that happens all the same (or SQLite's
"database is locked" after the busy timeout) is retried a few times by :func:`retried`, never
shown as a 500. Failures the member must hear about raise :class:`ActionError` with a message,
and change nothing.
"""

from __future__ import annotations

import functools
import random
import time

from django.db import OperationalError, connection, transaction
from django.utils.translation import gettext as _

from games.models import Match, Seat

# How often a transaction that lost a deadlock or a serialization check is tried again.
ATTEMPTS = 5


# PostgreSQL's SQLSTATEs for "try the transaction again": serialization_failure, deadlock_detected.
_RETRY_SQLSTATES = {"40001", "40P01"}


def is_conflict(error: OperationalError) -> bool:
    """A failure that says nothing about the request, only that another one got in the way."""
    cause = error.__cause__
    if getattr(cause, "sqlstate", None) in _RETRY_SQLSTATES:
        return True
    # SQLite: the busy timeout ran out while another process held the write lock.
    return "database is locked" in str(error) or "database table is locked" in str(error)


def retried(func):
    """Run ``func`` in its own transaction, again (after a short random pause) when the database
    gave it up for a deadlock or a serialization failure.

    Inside a transaction that the caller opened, the caller owns the retry: a savepoint cannot be
    retried once PostgreSQL has aborted the transaction around it, so ``func`` runs once.
    """

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        if connection.in_atomic_block:
            with transaction.atomic():
                return func(*args, **kwargs)
        for attempt in range(1, ATTEMPTS + 1):
            try:
                with transaction.atomic():
                    return func(*args, **kwargs)
            except OperationalError as error:
                if attempt == ATTEMPTS or not is_conflict(error):
                    raise
            # Random, growing pauses, so the requests that collided do not collide again.
            time.sleep(random.uniform(0, 0.02 * 2**attempt))
        raise AssertionError("unreachable")

    return wrapper


class ActionError(Exception):
    """A request the rules or the table refuse; ``str()`` is the message for the member."""


class NoSuchMatch(ActionError):
    """The match id names no match (the web layer answers 404)."""


def locked(match_id: int) -> tuple[Match, list[Seat]]:
    """The match, locked, then its seats in order with their members, read after the lock.

    The seats are prefetched onto the match, so the page drawn after the action reuses them.
    """
    match = Match.read_locked(match_id)
    if match is None:
        raise NoSuchMatch(_("That match does not exist."))
    match.read_seats()
    return match, list(match.seats.all())
