"""Background work of the tables, on Django's tasks framework (the ``django-tasks`` backport).

- :func:`play_bot_move` and :func:`commit_bot_move`: one bot move, chosen at once and committed
  as its own version after a short pause; its commit queues the next one, so a member's page
  (and every other page of the match) sees each bot move as a step. The chosen move never
  travels through the queue (issue 29): a task's arguments and result are stored with it and
  shown in the task admin, and a move is secret while the match is live. The choice waits in
  the cache instead, and is made again (bots are deterministic) where the cache lost it.
- :func:`finish_stuck_bot_turns`: a periodic sweep that hands back to the worker any playing
  match left waiting on a bot (a worker killed mid-way, a queue lost), so nothing stays stuck.
- :func:`sweep_clocks`: a periodic sweep that applies the time-outs of matches whose clock ran
  out, even when nobody has the table open.

Every task re-checks everything under the match's lock, like a request: run twice, run by two
workers at once or cut off half-way, it never makes a move twice nor loses one.
"""

from __future__ import annotations

import contextlib
import time
from datetime import timedelta

from django.conf import settings
from django.core.cache import cache
from django.db.models import Q
from django.utils import timezone
from django_tasks import task

from games import bot_moves, timeouts
from games.models import Match, Seat

# Bot moves go before mail and sweeps: a member is watching the table.
BOT_PRIORITY = 10

# How long a chosen move waits in the cache for its commit: far above the pause. A commit that
# comes later (a worker stopped for a while) chooses again.
CHOSEN_KEPT = 300


def _chosen_key(match_id: int, version: int, seat: int) -> str:
    return f"games:bot-move:{match_id}:{version}:{seat}"


def _remember(key: str, code: str) -> None:
    # Only a shortcut: with the cache down (a shared Redis restarting) the commit chooses again.
    with contextlib.suppress(Exception):
        cache.set(key, code, CHOSEN_KEPT)


def _recall(key: str) -> str | None:
    try:
        return cache.get(key)
    except Exception:
        return None


@task(priority=BOT_PRIORITY)
def play_bot_move(match_id: int, version: int) -> bool:
    """The awaited bot's move at ``version``: chosen at once, written when the pause since the
    previous move is over (``BOT_MOVE_PAUSE``). The bot thinks during the pause, so a slow
    search or a busy machine does not add to it; and the pause is a delay in the queue, not a
    sleep, so the worker serves other tables meanwhile. ``False`` if there was nothing to do."""
    chosen = bot_moves.choose_bot_move(match_id, version)
    if chosen is None:
        return False
    wait = (chosen.not_before - timezone.now()).total_seconds()
    if wait > 0:
        if commit_bot_move.get_backend().supports_defer:
            _remember(_chosen_key(match_id, version, chosen.seat), chosen.code)
            commit_bot_move.using(run_after=chosen.not_before).enqueue(
                match_id, version, chosen.seat
            )
            return True
        # A backend that cannot run a task later gets the human-like pause here instead.
        time.sleep(wait)
    return bot_moves.commit_bot_move(match_id, version, chosen.seat, chosen.code)


@task(priority=BOT_PRIORITY)
def commit_bot_move(match_id: int, version: int, seat: int) -> bool:
    """Write the move the bot of ``seat`` chose at ``version`` (see
    :func:`bot_moves.commit_bot_move`): nothing if the match moved on meanwhile. The move comes
    from the cache, or is chosen again when this process cannot see what another one chose (a
    local cache, an eviction): the same move, since the bot's dice come from the seed and the
    version."""
    code = _recall(_chosen_key(match_id, version, seat))
    if code is None:
        chosen = bot_moves.choose_bot_move(match_id, version)
        if chosen is None or chosen.seat != seat:
            return False
        code = chosen.code
    return bot_moves.commit_bot_move(match_id, version, seat, code)


def queue_bot_move(match_id: int, version: int) -> None:
    """Have the worker play the bot move of ``version`` (queued once that version commits)."""
    play_bot_move.enqueue(match_id, version)


@task()
def finish_stuck_bot_turns() -> int:
    """Queue a bot move for every playing match whose bot has been awaited for longer than
    ``BOT_STUCK_AFTER`` seconds; returns how many. Harmless when a move is queued already: only
    one of two tasks for the same version moves."""
    cutoff = timezone.now() - timedelta(seconds=settings.BOT_STUCK_AFTER)
    stuck = (
        Match.objects.filter(
            status=Match.Status.PLAYING,
            updated_at__lt=cutoff,
            # A seat played by a bot after its member's time-out waits on the worker too.
            pk__in=Seat.objects.filter(to_move=True)
            .filter(~Q(bot_level="") | Q(timed_out=True))
            .values("match_id"),
        )
        .order_by("pk")
        .values_list("pk", "version")
    )
    count = 0
    for match_id, version in stuck:
        queue_bot_move(match_id, version)
        count += 1
    return count


@task()
def sweep_clocks() -> int:
    """Apply the time-outs of every playing match whose clock has run out; returns how many
    matches it ended or handed a seat to a bot. One indexed query finds them; each is then
    handled under its lock with its version compared, so a member moving at the same instant,
    or a second worker sweeping too, never makes a time-out happen twice."""
    now = timezone.now()
    count = 0
    for match_id, version in list(timeouts.expired_matches(now)):
        count += timeouts.time_out(match_id, version, now=now)
    return count
