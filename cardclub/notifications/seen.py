"""When (and in which language) members were last on the site, written off the request path.

The middleware only notes a visit here (a dict entry); a thread of this process writes the
notes every ``LAST_SEEN_FLUSH_EVERY`` seconds, all in one transaction. A write that fails (a
locked SQLite, a database restarting) is logged and kept for the next round: "last seen" is a
hint for the worker's e-mails, never a reason for a page to fail or wait. It used to be an
UPDATE after the view, inside the request: under a rush on SQLite those queued on the write
lock until they failed, and turned finished pages into 500s.

With ``LAST_SEEN_FLUSH_EVERY = 0`` (the tests' settings: their database is a transaction the
thread cannot see) a note is written at once in the request, failing as quietly.
"""

from __future__ import annotations

import contextlib
import logging
import os
import threading
from datetime import datetime

from django.conf import settings
from django.db import DatabaseError, connection, transaction

logger = logging.getLogger(__name__)

_pending: dict[int, tuple[datetime, str]] = {}
_lock = threading.Lock()
_thread_pid: int | None = None
# The writing thread and the event that stops it (each thread its own: a stopped one that has
# not yet woken must not be kept going by the next one's start).
_thread: tuple[threading.Thread, threading.Event] | None = None


def note(user_id: int, when: datetime, language: str) -> None:
    """Remember that ``user_id`` was on the site at ``when`` (written soon, never here)."""
    with _lock:
        _pending[user_id] = (when, language)
    if not settings.LAST_SEEN_FLUSH_EVERY:
        flush()
        return
    _started()


def flush() -> int:
    """Write every pending note; how many were written. A failure keeps them for later."""
    with _lock:
        batch = dict(_pending)
        _pending.clear()
    if not batch:
        return 0
    from cardclub.accounts.models import Preferences

    try:
        # One transaction for a batch (one write lock on SQLite); one note is one UPDATE.
        with transaction.atomic() if len(batch) > 1 else contextlib.nullcontext():
            for user_id, (when, language) in sorted(batch.items()):
                seen = {"last_seen": when, "site_language": language}
                if not Preferences.objects.filter(user_id=user_id).update(**seen):
                    # A member without a row gets one, once ever; a concurrent writer that
                    # created it first wins, which is as good.
                    Preferences.objects.bulk_create(
                        [Preferences(user_id=user_id, **seen)], ignore_conflicts=True
                    )
    except DatabaseError as error:
        logger.warning("last seen: %s notes kept for later: %s", len(batch), error)
        with _lock:
            for user_id, item in batch.items():
                _pending.setdefault(user_id, item)  # a newer note wins
        return 0
    return len(batch)


def _started() -> None:
    global _thread_pid, _thread
    if _thread_pid == os.getpid():
        return
    with _lock:
        if _thread_pid == os.getpid():
            return
        _thread_pid = os.getpid()
        stopped = threading.Event()
        thread = threading.Thread(target=_run, args=(stopped,), name="last-seen", daemon=True)
        _thread = (thread, stopped)
    thread.start()


def stop(timeout: float = 10.0) -> None:
    """Stop this process's writing thread and drop the notes not yet written (the next note
    starts a new thread). For tests: a thread left running after the test that started it
    would write that test's notes into the next test's database, or into one that allows
    no access at all."""
    global _thread_pid, _thread
    with _lock:
        running, _thread, _thread_pid = _thread, None, None
        _pending.clear()
    if running is not None:
        thread, stopped = running
        stopped.set()
        thread.join(timeout)


def _run(stopped: threading.Event) -> None:
    while not stopped.wait(settings.LAST_SEEN_FLUSH_EVERY or 1.0):
        try:
            flush()
        except Exception:  # never let the thread die: the next round tries again
            logger.warning("last seen: could not write", exc_info=True)
        finally:
            # Hand the connection back between rounds (a pool's, or SQLite's file handle).
            connection.close()
