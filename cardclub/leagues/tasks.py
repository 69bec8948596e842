"""The leagues' periodic work, run by the worker (the scheduler queues it, see settings)."""

from __future__ import annotations

from io import StringIO

from django.core.management import call_command
from django_tasks import task


@task()
def record_overdue_fixtures() -> str:
    """Record the forfeits of fixtures past their deadline, as the ``overdue_fixtures`` command
    does for an admin (the command stays the one place that knows how); returns its report."""
    out = StringIO()
    call_command("overdue_fixtures", stdout=out)
    return out.getvalue()
