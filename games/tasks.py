"""Background work of the tables, on Django's tasks framework (the ``django-tasks`` backport).

- :func:`play_bot_move`: one bot move, committed as its own version; it queues the next one, so
  a member's page (and every other page of the match) sees each bot move as a step.
- :func:`finish_stuck_bot_turns`: a periodic sweep that hands back to the worker any playing
  match left waiting on a bot (a worker killed mid-way, a queue lost), so nothing stays stuck.

Every task re-checks everything under the match's lock, like a request: run twice, run by two
workers at once or cut off half-way, it never makes a move twice nor loses one.
"""

from __future__ import annotations

import time
from datetime import timedelta

from django.conf import settings
from django.utils import timezone
from django_tasks import task

from games import actions
from games.models import Match, Seat

# Bot moves go before mail and sweeps: a member is watching the table.
BOT_PRIORITY = 10


@task(priority=BOT_PRIORITY)
def play_bot_move(match_id: int, version: int) -> bool:
    """Play the waiting bot's move at ``version`` (see :func:`actions.play_bot_move`)."""
    pause = settings.BOT_MOVE_PAUSE
    if pause > 0 and not play_bot_move.get_backend().supports_defer:
        # A backend that cannot run a task later gets the human-like pause here instead.
        time.sleep(pause)
    return actions.play_bot_move(match_id, version)


def queue_bot_move(match_id: int, version: int, pause: float | None = None) -> None:
    """Have the worker play the bot move of ``version``, ``pause`` seconds from now (by default
    the ``BOT_MOVE_PAUSE`` setting), so that a member sees the previous move before the next."""
    pause = settings.BOT_MOVE_PAUSE if pause is None else pause
    job = play_bot_move
    if pause > 0 and job.get_backend().supports_defer:
        job = job.using(run_after=timezone.now() + timedelta(seconds=pause))
    job.enqueue(match_id, version)


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
            pk__in=Seat.objects.filter(to_move=True).exclude(bot_level="").values("match_id"),
        )
        .order_by("pk")
        .values_list("pk", "version")
    )
    count = 0
    for match_id, version in stuck:
        queue_bot_move(match_id, version, pause=0)
        count += 1
    return count
