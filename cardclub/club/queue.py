"""The task queue's own upkeep (the database backend of django-tasks).

A worker killed outright (SIGKILL, the machine lost) leaves the task it was running marked
RUNNING for ever: django-tasks-db has no heartbeat, and no other worker takes a row that is not
READY. :func:`requeue_lost_tasks`, one of the scheduler's periodic tasks, finds the rows
RUNNING for longer than ``TASK_LOST_AFTER`` seconds (far longer than any of the club's tasks
runs: a bot's move, a mail, a sweep), marks them FAILED with a ``WorkerLost`` cause, and queues
each again with the same arguments. Every task of the club re-checks its work under its locks
(a bot move its version, a sweep its rows), so one run twice changes nothing twice; the
periodic sweeps are not queued again, since the scheduler queues them anyway.
"""

from __future__ import annotations

import logging
from datetime import timedelta

from django.conf import settings
from django.db import transaction
from django.utils import timezone
from django_tasks import task
from django_tasks.base import TaskResultStatus

logger = logging.getLogger(__name__)

LOST = "cardclub.club.queue.WorkerLost"


class WorkerLost(Exception):
    """The worker running this task stopped before it ended (only ever recorded, never raised)."""


@task()
def requeue_lost_tasks() -> int:
    """Mark the tasks a lost worker left RUNNING, and queue their work again; how many."""
    from django_tasks_db.models import DBTaskResult

    now = timezone.now()
    cutoff = now - timedelta(seconds=settings.TASK_LOST_AFTER)
    lost = (
        DBTaskResult.objects.running()
        .filter(started_at__lt=cutoff)
        .order_by("started_at")
        .values_list("pk", flat=True)[:200]
    )
    count = 0
    for pk in list(lost):
        with transaction.atomic():
            # Marked only if still RUNNING: a worker that was merely slow and has just
            # finished, or another sweep, wins.
            marked = DBTaskResult.objects.filter(pk=pk, status=TaskResultStatus.RUNNING).update(
                status=TaskResultStatus.FAILED,
                finished_at=now,
                exception_class_path=LOST,
                traceback=f"Still running after {settings.TASK_LOST_AFTER:.0f} s: its worker "
                "was lost. Queued again.",
            )
            if not marked:
                continue
            count += 1
            row = DBTaskResult.objects.get(pk=pk)
            if row.task_path in settings.PERIODIC_TASKS:
                continue
            try:
                again = row.task.using(priority=row.priority, queue_name=row.queue_name)
                again.enqueue(*row.args_kwargs["args"], **row.args_kwargs["kwargs"])
            except Exception:
                # A task that no longer exists, or whose arguments it no longer takes: marked,
                # and left for an admin to read in the task results.
                logger.warning("queue: could not queue %s again", row.task_path, exc_info=True)
    if count:
        logger.warning("queue: %s tasks of a lost worker marked and queued again", count)
    return count
