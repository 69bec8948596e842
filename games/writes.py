"""The members' writes at the table: open, join, leave and start a match, play a move, resign,
take back the last move; and the starts other apps ask for (a league fixture, a rematch, a
challenge).

Each runs in one transaction under the match's lock, with the retries of ``games.locking``;
each ends by writing the new version through ``games.turns``. A refusal raises
:class:`~games.locking.ActionError` with the member's message and changes nothing. The bots'
moves are ``games.bot_moves``; losing on time is ``games.timeouts``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from games import timeouts, turns, versions
from games.engine import EngineError, IllegalMove, InvalidMove, InvalidOptions
from games.locking import ActionError, locked, retried
from games.models import (
    Clock,
    Match,
    MoveRecord,
    RuleVariant,
    Seat,
    summary_of,
    translate_engine_error,
)
from games.signals import match_finished


@dataclass
class MoveResult:
    match: Match
    moves_made: int
    state: Any  # the engine state after the move, for the page drawn next


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


def refuse_if_ended(match: Match) -> None:
    """Refuse a seat's change at a table that has ended, saying how it ended: a page left open
    since, or a second tab, may still offer to join or leave it."""
    if match.status == Match.Status.FINISHED:
        raise ActionError(_("This match is over."))
    if match.status == Match.Status.ABANDONED:
        raise ActionError(_("This table was abandoned: nobody sits at it any more."))


@retried
def join_match(match_id: int, user) -> Match:
    match, seats = locked(match_id)
    refuse_if_ended(match)
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
        turns.start_game(match, seats)
    else:
        # A new version, so every waiting page redraws with the seat taken.
        match.version += 1
        match.summarize(seats)
        match.save(update_fields=["version", "summary", "updated_at"])
    return match


@retried
def leave_match(match_id: int, user) -> Match:
    """Leave a table before it starts; the last member to leave closes it."""
    match, seats = locked(match_id)
    refuse_if_ended(match)
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
    match, seats = locked(match_id)
    seat = next((s for s in seats if s.user_id == getattr(user, "pk", None)), None)
    if seat is None:
        raise ActionError(_("You are not playing in this match."))
    if match.status != Match.Status.PLAYING:
        raise ActionError(_("This match is not being played."))
    now = timezone.now()
    if timeouts.apply_due(match, seats, now):
        if match.is_over or seat.timed_out:
            return _time_out_message(match, seat)
        # Another seat's time-out made a version of its own; this move did not miss anything.
        if expected_version == match.version - 1:
            expected_version = match.version
    if seat.timed_out:
        return _time_out_message(match, seat)
    engine = match.engine
    # As committed before this move (read under the lock): loaded once per version.
    state = versions.state_of(match)
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
    turns.log_moves(match, records)
    turns.store(match, seats, state, seat.index, now)
    turns.hand_to_bots(match, seats, state)
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


@retried
def resign(match_id: int, user) -> Match:
    """Give up: the match ends, the resigning member (and a partner) rank last and the others
    share first."""
    match, seats = locked(match_id)
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
    turns.start_game(match, seats)
    return match


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
        turns.start_game(match, seats)
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
    turns.store(match, seats, state, now=timezone.now())
    turns.hand_to_bots(match, seats, state)
