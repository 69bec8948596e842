"""The bots' moves: one move per committed version, chosen from the bot seat's view and
written like a member's, played by the worker (``games.tasks``).

:func:`choose_bot_move` reads without a lock and computes (a search takes a while);
:func:`commit_bot_move` writes the chosen move under the match's lock, with the version
compared, so a task run twice or by two workers at once moves once. ``games.tasks`` puts the
pause (``BOT_MOVE_PAUSE``) between the two; :func:`play_bot_move` does both at once.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from django.utils import timezone

from games import registry, timeouts, turns
from games.locking import locked, retried
from games.models import Match, MoveRecord, Seat


def _bot_move(match: Match, seats: list[Seat]):
    """The move the first waiting bot makes at the match's current version, or ``None``.

    Pure computation on the stored state: the bot sees exactly what its seat's ``view`` shows,
    like a member would, and its dice come from the match's secret seed and the version, so a
    position gets the same move whichever worker plays it and however often.
    """
    engine = match.engine
    state = engine.load(match.state)
    seat = turns.bot_to_move(engine, seats, state)
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
    match, seats = locked(match_id)
    if match.status != Match.Status.PLAYING or match.version != version:
        return False
    now = timezone.now()
    if timeouts.apply_due(match, seats, now):
        # A member awaited beside the bot ran out: that made a new version (and handed the
        # bot's turn to the worker again if it still has one).
        return False
    engine = match.engine
    state = engine.load(match.state)
    bot = turns.bot_to_move(engine, seats, state)
    if bot is None or bot.index != seat:
        return False
    state = engine.apply(state, seat, engine.parse_move(code))
    match.version += 1
    turns.log_moves(match, [MoveRecord(match=match, seq=0, seat=seat, code=code)])
    turns.store(match, seats, state, seat, now)
    turns.hand_to_bots(match, seats, state)
    return True


def play_bot_move(match_id: int, version: int) -> bool:
    """Choose and write the bot move of ``version`` at once, with no pause; ``False`` if
    there is nothing to do. (The worker pauses between the two: see games/tasks.py.)"""
    chosen = choose_bot_move(match_id, version)
    if chosen is None:
        return False
    return commit_bot_move(match_id, version, chosen.seat, chosen.code)
