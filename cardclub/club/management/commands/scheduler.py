"""Queue the periodic tasks (settings.PERIODIC_TASKS) at their intervals, for the worker to run.

Django's tasks framework has no scheduler of its own, so this small loop is one: it queues every
periodic task once at start (so a restarted club at once finishes any match left waiting on a
bot) and then every so many seconds. It runs no task itself, so it works with any task backend.
Running two by mistake only queues the sweeps twice as often: each sweep is harmless to repeat.
"""

from __future__ import annotations

import logging
import signal
import time

from django.conf import settings
from django.core.management.base import BaseCommand
from django.db import close_old_connections
from django.utils.module_loading import import_string

logger = logging.getLogger(__name__)


class Command(BaseCommand):
    help = "Queue the periodic tasks (league deadlines, stuck bot turns) at their intervals."

    def add_arguments(self, parser):
        parser.add_argument(
            "--once", action="store_true", help="Queue every periodic task once, then exit."
        )

    def handle(self, *args, once=False, **options):
        jobs = [
            (import_string(path), path, every) for path, every in settings.PERIODIC_TASKS.items()
        ]
        stopping = []
        for signum in (signal.SIGINT, signal.SIGTERM):
            signal.signal(signum, lambda *_: stopping.append(True))
        due = {path: 0.0 for _, path, _ in jobs}
        while not stopping:
            now = time.monotonic()
            for job, path, every in jobs:
                if now >= due[path]:
                    close_old_connections()  # a database restarted since the last round
                    try:
                        job.enqueue()
                    except Exception:
                        # The queue is unreachable for now: try again soon, keep running.
                        logger.exception("could not queue %s", path)
                        due[path] = now + min(every, 5.0)
                        continue
                    due[path] = now + every
                    if options["verbosity"] > 1:
                        self.stdout.write(f"queued {path}")
            if once:
                return
            # Sleep in short steps, so that a stop request is answered at once.
            time.sleep(max(0.0, min(1.0, min(due.values()) - time.monotonic())))
