"""The few writes of the table: open, join, leave and start a match, play a move, resign.

Each public function runs in one transaction that locks the match row first (``select_for_update``
on the match alone: a row lock on PostgreSQL; on SQLite the IMMEDIATE transaction already
serialises writers) and only then reads what it will write: the seats, and through the
``match_finished`` receivers the ratings and the league fixture. Reading the seats in the same
statement as the lock would be wrong on PostgreSQL: after waiting for the lock it re-checks only
the locked row, so the seats would be the ones from before the wait.

Rows that several matches share are locked in one global order, so two requests can never wait
for each other: the match, then the members' ratings by member id, the head-to-head rows by
(member, rival), then the league fixture and its season. A deadlock or serialization failure that
happens all the same (or SQLite's "database is locked" after the busy timeout) is retried a few
times by :func:`retried`, never shown as a 500. Failures the member must hear about raise
:class:`ActionError` with a message, and change nothing.
"""

from __future__ import annotations

import functools
import random
import time
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from django.db import IntegrityError, OperationalError, connection, transaction
from django.db.models import Prefetch, Q, prefetch_related_objects
from django.dispatch import Signal
from django.utils import timezone
from django.utils.translation import gettext as _

from games import clocks, registry
from games.engine import EngineError, IllegalMove, InvalidMove, InvalidOptions
from games.models import (
    Clock,
    Match,
    MoveRecord,
    RuleVariant,
    Seat,
    summary_of,
    translate_engine_error,
)

# Sent once a time-out has committed (see games/signals.py).
from games.signals import match_timed_out

# Sent inside the transaction that finishes a match (ratings and leagues listen), so their
# writes commit or roll back together with the final move.
match_finished = Signal()

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


@dataclass
class MoveResult:
    match: Match
    moves_made: int
    state: Any  # the engine state after the move, for the page drawn next


def _locked(match_id: int) -> tuple[Match, list[Seat]]:
    """The match, locked, then its seats in order with their members, read after the lock.

    The seats are prefetched onto the match, so the page drawn after the action reuses them.
    """
    try:
        match = Match.objects.select_for_update().get(pk=match_id)
    except Match.DoesNotExist:
        raise NoSuchMatch(_("That match does not exist.")) from None
    prefetch_related_objects(
        [match], Prefetch("seats", queryset=Seat.objects.select_related("user").order_by("index"))
    )
    return match, list(match.seats.all())


@retried
def create_match(
    user, variant: RuleVariant, players: int, fillers: list[str], private: bool = False
) -> Match:
    """Open a table: the creator sits at seat 0; ``fillers`` says, for every other seat,
    ``"open"`` or a bot level. A table whose every seat is taken starts at once. ``private``
    (or house rules that say so) keeps it to its seated and invited members."""
    if not variant.active:
        raise ActionError(_("These house rules are no longer offered."))
    if len(fillers) != players - 1:
        raise ActionError(_("Say who sits at every other seat."))
    if any(filler not in ("open", "easy", "hard") for filler in fillers):
        raise ActionError(_("Unknown choice for a seat."))
    return start_seated(user, variant, [user, *fillers], private=private)


@retried
def join_match(match_id: int, user) -> Match:
    match, seats = _locked(match_id)
    if match.status != Match.Status.OPEN:
        raise ActionError(_("This table has already started."))
    if any(seat.user_id == user.pk for seat in seats):
        raise ActionError(_("You are already seated at this table."))
    free = [seat for seat in seats if seat.is_free]
    if not free:
        raise ActionError(_("This table is full."))
    seat = free[0]
    seat.user = user
    seat.joined_at = timezone.now()
    try:
        with transaction.atomic():
            seat.save(update_fields=["user", "joined_at"])
    except IntegrityError:
        raise ActionError(_("You are already seated at this table.")) from None
    if len(free) == 1:
        _start(match, seats)
    else:
        # A new version, so every waiting page redraws with the seat taken.
        match.version += 1
        match.summarize(seats)
        match.save(update_fields=["version", "summary", "updated_at"])
    return match


@retried
def leave_match(match_id: int, user) -> Match:
    """Leave a table before it starts; the last member to leave closes it."""
    match, seats = _locked(match_id)
    if match.status != Match.Status.OPEN:
        raise ActionError(_("The match has started: resign instead of leaving."))
    mine = next((seat for seat in seats if seat.user_id == user.pk), None)
    if mine is None:
        raise ActionError(_("You are not seated at this table."))
    mine.user = None
    mine.joined_at = None
    mine.save(update_fields=["user", "joined_at"])
    if not any(seat.user_id for seat in seats):
        match.status = Match.Status.ABANDONED
        match.finished_at = timezone.now()
        Match.close_seats(seats)
        Seat.objects.filter(match=match).update(live=False)
    match.version += 1
    match.summarize(seats)
    match.save(update_fields=["status", "finished_at", "version", "summary", "updated_at"])
    return match


def _start(match: Match, seats: list[Seat]) -> None:
    state = match.new_game()
    match.status = Match.Status.PLAYING
    match.started_at = timezone.now()
    # Joins already counted versions up: the page drawn for the last one must see the start.
    match.version += 1
    clocks.start(match, seats, match.started_at)
    _store(match, seats, state, now=match.started_at)
    _hand_to_bots(match, seats, state)


def _log(match: Match, records: list[MoveRecord]) -> None:
    """Append moves to the log with consecutive sequence numbers and the match version they
    produced (which tells, later, what a page drawn at an older version had seen)."""
    for offset, record in enumerate(records, start=1):
        record.seq = match.moves_played + offset
        record.version = match.version
    MoveRecord.objects.bulk_create(records)
    match.moves_played += len(records)


def play_move(match_id: int, user, code: str, expected_version: int | None) -> MoveResult:
    """Play ``code`` for the user's seat; if a bot is to move next, hand it to the worker.

    A stale ``expected_version`` (another tab or player moved first; except for the others'
    moves in a phase where several seats decide at once, see :func:`_still_awaited`), an unknown
    or illegal move, a move out of turn or in a finished match raise :class:`ActionError` and
    change nothing. A move after the member's time ran out is refused too, but the time-out it
    found is applied (and committed) first.
    """
    result = _play_move(match_id, user, code, expected_version)
    if isinstance(result, str):
        raise ActionError(result)
    return result


@retried
def _play_move(match_id: int, user, code: str, expected_version: int | None) -> MoveResult | str:
    """:func:`play_move` in its transaction; returns the refusal's message, rather than raising
    it, when a time-out was applied: raising would roll the time-out back."""
    match, seats = _locked(match_id)
    seat = next((s for s in seats if s.user_id == getattr(user, "pk", None)), None)
    if seat is None:
        raise ActionError(_("You are not playing in this match."))
    if match.status != Match.Status.PLAYING:
        raise ActionError(_("This match is not being played."))
    now = timezone.now()
    if _apply_time_out(match, seats, now):
        if match.is_over or seat.timed_out:
            return _time_out_message(match, seat)
        # Another seat's time-out made a version of its own; this move did not miss anything.
        if expected_version == match.version - 1:
            expected_version = match.version
    if seat.timed_out:
        return _time_out_message(match, seat)
    engine = match.engine
    state = engine.load(match.state)
    if expected_version is None or (
        expected_version != match.version
        and not _still_awaited(match, state, seat.index, expected_version)
    ):
        raise ActionError(
            _("The table changed since your page was drawn; here it is as it is now.")
        )
    if seat.index not in engine.to_move(state):
        raise ActionError(_("It is not your turn."))
    try:
        move = engine.parse_move(code)
        state = engine.apply(state, seat.index, move)
    except (InvalidMove, IllegalMove, EngineError) as error:
        raise ActionError(translate_engine_error(error, match.game)) from None
    records = [MoveRecord(match=match, seq=0, seat=seat.index, code=move.code)]
    match.version += 1
    _log(match, records)
    _store(match, seats, state, seat.index, now)
    _hand_to_bots(match, seats, state)
    return MoveResult(match=match, moves_made=len(records), state=state)


def _time_out_message(match: Match, seat: Seat) -> str:
    if not seat.timed_out:
        return _("A member's time ran out: the match is over.")
    if match.is_over:
        return _("Your time ran out: you lost on time. The match is over.")
    return _("Your time ran out: you lost on time. An easy bot plays your seat to the end.")


def _still_awaited(match: Match, state, index: int, seen_version: int) -> bool:
    """Whether a move from a page drawn at an older ``seen_version`` may still be played.

    In a phase where several seats decide at once (Scout's keep-or-rotate), the others' decisions
    change the version but nothing this seat decides on. So the page is still good when every
    move made since it was drawn was another seat's, made while several seats were awaited and
    this one among them, and this seat still has the very same choices. In sequential play the
    first move since the page fails that test, so the version check stays as strict as ever.

    Only the refused path pays for this: the log is replayed up to the page's version.
    """
    engine = match.engine
    if seen_version > match.version or index not in engine.to_move(state):
        return False
    records = list(match.moves.order_by("seq"))
    seen = [r for r in records if r.version is not None and r.version <= seen_version]
    since = records[len(seen) :]
    # Moves logged before versions were recorded cannot be placed: stay strict.
    if not since or any(r.version is None or r.version <= seen_version for r in since):
        return False
    then = match.replay(moves=[(record.seat, record.code) for record in seen])
    step = then
    for record in since:
        awaited = engine.to_move(step)
        if record.seat == index or index not in awaited or len(awaited) < 2:
            return False
        step = engine.apply(step, record.seat, engine.parse_move(record.code))
    if index not in engine.to_move(step):
        return False
    codes_then = [move.code for move in engine.legal_moves(then, index)]
    return codes_then == [move.code for move in engine.legal_moves(state, index)]


# --- Bots: one move per committed version, played by the worker (games/tasks.py) -------------


def _bot_to_move(engine, seats: list[Seat], state) -> Seat | None:
    """The first bot seat the game waits for, or ``None`` when only members are awaited."""
    if engine.is_over(state):
        return None
    waiting = set(engine.to_move(state))
    return next((seat for seat in seats if seat.plays_as_bot and seat.index in waiting), None)


def _hand_to_bots(match: Match, seats: list[Seat], state) -> None:
    """If a bot is to move in the version being written, have the worker play it once that
    version is committed (never before: the task must find the state it was queued for)."""
    if _bot_to_move(match.engine, seats, state) is None:
        return
    from games import tasks  # the tasks module imports this one

    match_id, version = match.pk, match.version
    transaction.on_commit(lambda: tasks.queue_bot_move(match_id, version))


def _bot_move(match: Match, seats: list[Seat]):
    """The move the first waiting bot makes at the match's current version, or ``None``.

    Pure computation on the stored state: the bot sees exactly what its seat's ``view`` shows,
    like a member would, and its dice come from the match's secret seed and the version, so a
    position gets the same move whichever worker plays it and however often.
    """
    engine = match.engine
    state = engine.load(match.state)
    seat = _bot_to_move(engine, seats, state)
    if seat is None:
        return None
    rng = random.Random(f"{match.seed}:{match.version}:{seat.index}:bot")
    moves = engine.legal_moves(state, seat.index)
    move = registry.bots(match.game).choose(
        engine.view(state, seat.index), moves, seat.plays_as_bot, rng
    )
    return seat.index, move


@dataclass
class BotMove:
    """What a bot chose at ``version``: written by :func:`commit_bot_move`, not before
    ``not_before`` (the previous move's time plus the pause), so members see each move."""

    version: int
    seat: int
    code: str
    not_before: Any  # an aware datetime


def choose_bot_move(match_id: int, version: int) -> BotMove | None:
    """The move of the bot awaited at ``version``, or ``None`` if there is nothing to do (the
    match moved on, ended, or awaits only members). Reads without any lock and writes nothing:
    a search takes a while, and on SQLite a write lock would stop every other table meanwhile.
    """
    from django.conf import settings

    match = (
        Match.objects.filter(pk=match_id, status=Match.Status.PLAYING, version=version)
        .prefetch_related("seats")
        .first()
    )
    if match is None:
        return None
    choice = _bot_move(match, list(match.seats.all()))
    if choice is None:
        return None
    index, move = choice
    # updated_at is when the version being answered was committed.
    pause = timedelta(seconds=settings.BOT_MOVE_PAUSE)
    return BotMove(version, index, move.code, match.updated_at + pause)


@retried
def commit_bot_move(match_id: int, version: int, seat: int, code: str) -> bool:
    """Write a bot's move like a member's: the match locked, the version compared, the move
    parsed and checked by the engine, one move appended, the version bumped; ``False`` and
    nothing changed if the match moved on. So a task run twice, or by two workers at once,
    makes the move once. The next bot move, if any, is queued when this one commits."""
    match, seats = _locked(match_id)
    if match.status != Match.Status.PLAYING or match.version != version:
        return False
    now = timezone.now()
    if _apply_time_out(match, seats, now):
        # A member awaited beside the bot ran out: that made a new version (and handed the
        # bot's turn to the worker again if it still has one).
        return False
    engine = match.engine
    state = engine.load(match.state)
    bot = _bot_to_move(engine, seats, state)
    if bot is None or bot.index != seat:
        return False
    state = engine.apply(state, seat, engine.parse_move(code))
    match.version += 1
    _log(match, [MoveRecord(match=match, seq=0, seat=seat, code=code)])
    _store(match, seats, state, seat, now)
    _hand_to_bots(match, seats, state)
    return True


def play_bot_move(match_id: int, version: int) -> bool:
    """Choose and write the bot move of ``version`` at once, with no pause; ``False`` if
    there is nothing to do. (The worker pauses between the two: see games/tasks.py.)"""
    chosen = choose_bot_move(match_id, version)
    if chosen is None:
        return False
    return commit_bot_move(match_id, version, chosen.seat, chosen.code)


# What a move can change on the match row (the rest is fixed when the table opens).
_PLAY_FIELDS = [
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
]


def _store(match: Match, seats: list[Seat], state, mover: int | None = None, now=None) -> None:
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
        _rank_timed_out_last(seats)
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
        Seat.objects.filter(pk__in=flipped).update(to_move=Q(to_move=False))
    match.summarize(seats)
    match.save(update_fields=_PLAY_FIELDS)
    if finished:
        match_finished.send(sender=Match, match=match, seats=seats)


@retried
def resign(match_id: int, user) -> Match:
    """Give up: the match ends, the resigning member (and a partner) rank last and the others
    share first."""
    match, seats = _locked(match_id)
    if match.status != Match.Status.PLAYING:
        raise ActionError(_("This match is not being played."))
    seat = next((s for s in seats if s.user_id == user.pk), None)
    if seat is None:
        raise ActionError(_("You are not playing in this match."))
    if seat.timed_out:
        raise ActionError(_("You lost on time already: an easy bot plays your seat."))
    # Playing in pairs (seats 0+2 against 1+3), the partner loses with the resigner.
    pairs = bool(match.options.get("pairs"))
    losers = {s.index for s in seats if s.index % 2 == seat.index % 2} if pairs else {seat.index}
    for other in seats:
        other.to_move = False
        # A member who lost on time earlier (a bot played on for them) loses with the resigner.
        other.rank = 2 if other.index in losers or other.timed_out else 1
        other.score = None
    seat.resigned = True
    Match.close_seats(seats)
    Seat.objects.bulk_update(seats, ["to_move", "rank", "score", "resigned", "live"])
    match.version += 1
    match.mark_finished()
    match.clock_deadline = None
    match.summarize(seats)
    match.save()
    match_finished.send(sender=Match, match=match, seats=seats)
    return match


@retried
def start_match_for(users, variant: RuleVariant) -> Match:
    """Start a league fixture's match at once with ``users`` seated in the order given: no
    bots, so it is rated whenever the house rules are."""
    players = len(users)
    try:
        variant.engine.new_game(players, options=variant.options, seed=0)
    except InvalidOptions as error:
        raise ActionError(translate_engine_error(error)) from None
    match = Match.objects.create(
        game=variant.game,
        variant=variant,
        options=dict(variant.options),
        players=players,
        created_by=users[0],
        rated=variant.rated,
        for_fixture=True,
        **variant.clock_settings(),
    )
    now = timezone.now()
    seats = [
        Seat(match=match, index=index, user=user, joined_at=now) for index, user in enumerate(users)
    ]
    Seat.objects.bulk_create(seats)
    _start(match, seats)
    return match


def locked(match_id: int) -> tuple[Match, list[Seat]]:
    """The match locked and its seats read after the lock (see :func:`_locked`), for the
    actions of other apps that change a match's neighbours (a rematch offer) under its lock."""
    return _locked(match_id)


@retried
def start_seated(
    created_by,
    variant: RuleVariant,
    seating: list,
    *,
    options: dict | None = None,
    clock: dict | None = None,
    rated: bool | None = None,
    seed: int | None = None,
    private: bool = False,
) -> Match:
    """Open a table with every seat said: per seat a member, a bot level ("easy", "hard") or
    "open". It starts at once when no seat is open. ``options`` and ``clock`` default to the
    house rules' (a rematch passes the old match's copies); ``rated`` defaults to the house
    rules' unless a bot sits; ``seed`` to a fresh one; the table is private when ``private``
    or the house rules say so. Used by rematches and challenges."""
    players = len(seating)
    options = dict(variant.options if options is None else options)
    try:
        variant.engine.new_game(players, options=options, seed=0)
    except InvalidOptions as error:
        raise ActionError(translate_engine_error(error)) from None
    now = timezone.now()
    seats = []
    for index, who in enumerate(seating):
        if who in ("easy", "hard"):
            seats.append(Seat(index=index, bot_level=who, joined_at=now))
        elif who == "open":
            seats.append(Seat(index=index))
        elif getattr(who, "pk", None) is not None:
            seats.append(Seat(index=index, user=who, joined_at=now))
        else:
            raise ActionError(_("Unknown choice for a seat."))
    members = [seat.user_id for seat in seats if seat.user_id]
    if len(set(members)) != len(members):
        raise ActionError(_("A member can take only one seat at a table."))
    has_bot = any(seat.bot_level for seat in seats)
    extra = {"seed": seed} if seed is not None else {}
    rated = (variant.rated if rated is None else rated) and not has_bot
    clock = clock if clock is not None else variant.clock_settings()
    match = Match.objects.create(
        game=variant.game,
        variant=variant,
        options=options,
        players=players,
        created_by=created_by,
        rated=rated,
        summary=summary_of(seats),
        private=private or variant.private,
        # Never where a result counts, nor against a clock (the time spent cannot be undone).
        takebacks=variant.takebacks and not rated and clock["clock"] == Clock.NONE,
        **clock,
        **extra,
    )
    for seat in seats:
        seat.match = match
    Seat.objects.bulk_create(seats)
    if not any(seat.is_free for seat in seats):
        _start(match, seats)
    return match


def take_back_last_move(match: Match, seats: list[Seat]) -> None:
    """Undo the match's last move, the match locked by the caller (cardclub/social's takeback,
    once every other member agreed): the move leaves the log, the state is the log replayed
    (the log stays the truth), and the seat that moved is to move again, in a new version."""
    last = match.moves.order_by("-seq").first()
    if last is None:
        raise ActionError(_("There is no move to take back."))
    last.delete()
    match.moves_played -= 1
    match.version += 1
    state = match.replay()
    _store(match, seats, state, now=timezone.now())
    _hand_to_bots(match, seats, state)


# --- Losing on time (the worker's sweep in games/tasks.py, and every action that finds it) ---


def _rank_timed_out_last(seats: list[Seat]) -> None:
    """The seats that lost on time share the last place; the others keep their order."""
    late = [seat for seat in seats if seat.timed_out]
    if not late:
        return
    others = [seat for seat in seats if not seat.timed_out]
    for seat in others:
        seat.rank = 1 + sum(1 for other in others if other.rank < seat.rank)
    for seat in late:
        seat.rank = len(others) + 1


def _apply_time_out(match: Match, seats: list[Seat], now) -> list[Seat]:
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
        match.save(update_fields=_PLAY_FIELDS)
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
        match.save(update_fields=_PLAY_FIELDS)
        _hand_to_bots(match, seats, match.engine.load(match.state))
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
        match, seats = _locked(match_id)
    except NoSuchMatch:
        return False
    if version is not None and match.version != version:
        return False
    return bool(_apply_time_out(match, seats, now or timezone.now()))


def expired_matches(now=None):
    """(id, version) of every playing match whose clock has run out: one query on the
    ``clock_deadline`` index."""
    return (
        Match.objects.filter(status=Match.Status.PLAYING, clock_deadline__lte=now or timezone.now())
        .order_by("clock_deadline")
        .values_list("pk", "version")
    )
