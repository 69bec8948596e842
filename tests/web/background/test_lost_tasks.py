"""A worker killed mid-task (SIGKILL, for real) leaves its task RUNNING; the periodic sweep
(cardclub/club/queue.py) marks it and queues the same work again."""

from __future__ import annotations

import random
import signal
import socket
import sys
import time
from datetime import timedelta
from pathlib import Path

import pytest
from django.utils import timezone
from django_tasks_db.models import DBTaskResult

from cardclub.accounts.tasks import send_email
from cardclub.club.queue import LOST, requeue_lost_tasks
from games.tasks import finish_stuck_bot_turns
from tests.servers import spawn
from tests.web.background.test_background import DATABASE, _worker_environment

pytestmark = pytest.mark.django_db(transaction=True)


def _silent_smtp():
    """A mail server that takes the connection and never says a word: the worker's task hangs
    in it (as on a real SMTP server gone quiet) until the test kills the worker."""
    ports = list(range(9100, 9200))
    random.shuffle(ports)
    for port in ports:
        sock = socket.socket()
        try:
            sock.bind(("127.0.0.1", port))
        except OSError:
            sock.close()
            continue
        sock.listen(5)
        return sock, port
    raise RuntimeError("no free port")


def _wait_for(condition, seconds, what):
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, what
        time.sleep(0.05)


def test_a_task_left_running_by_a_killed_worker_is_marked_and_queued_again(settings):
    settings.TASKS = DATABASE
    smtp, port = _silent_smtp()
    env = {**_worker_environment(), "EMAIL_HOST": "127.0.0.1", "EMAIL_PORT": str(port)}
    env["EMAIL_USE_TLS"] = "0"
    manage = Path(__file__).resolve().parents[3] / "manage.py"
    result = send_email.enqueue("Hola", "Una prueba", ["alice@example.com"])
    worker = spawn(
        [sys.executable, str(manage), "db_worker", "--interval", "0.05", "--no-reload"]
        + ["--no-startup-delay", "--verbosity", "0"],
        env=env,
    )
    try:
        _wait_for(
            lambda: DBTaskResult.objects.get(pk=result.id).status == "RUNNING",
            30,
            "the worker never took the task",
        )
        worker.send_signal(signal.SIGKILL)
        worker.wait(10)
    finally:
        if worker.poll() is None:
            worker.kill()
        smtp.close()
    row = DBTaskResult.objects.get(pk=result.id)
    assert row.status == "RUNNING"  # what the killed worker left
    settings.TASK_LOST_AFTER = 60
    assert requeue_lost_tasks.call() == 0  # not yet: it may be a slow task
    DBTaskResult.objects.filter(pk=row.pk).update(started_at=timezone.now() - timedelta(minutes=2))
    assert requeue_lost_tasks.call() == 1
    row.refresh_from_db()
    assert row.status == "FAILED" and row.exception_class_path == LOST
    again = DBTaskResult.objects.filter(task_path=row.task_path, status="READY").get()
    assert again.args_kwargs == row.args_kwargs
    assert requeue_lost_tasks.call() == 0  # marked once


def test_a_lost_periodic_task_is_marked_but_left_to_the_scheduler(settings):
    settings.TASKS = DATABASE
    settings.TASK_LOST_AFTER = 60
    result = finish_stuck_bot_turns.enqueue()
    row = DBTaskResult.objects.get(pk=result.id)
    row.claim("a-worker-that-died")
    DBTaskResult.objects.filter(pk=row.pk).update(started_at=timezone.now() - timedelta(minutes=5))
    assert requeue_lost_tasks.call() == 1
    assert DBTaskResult.objects.get(pk=row.pk).status == "FAILED"
    assert not DBTaskResult.objects.filter(status="READY").exists()
