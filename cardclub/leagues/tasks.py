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


@task()
def start_fixtures_at_round_time() -> int:
    """Start every fixture still to play whose round's start time (set by the admin) has
    passed, whoever has said "ready"; returns how many started. Each is decided again under its
    own lock, so a member's "ready" starting it meanwhile, or this task run twice, starts one
    match."""
    from django.utils import timezone

    from .actions import start_at_round_time
    from .models import Fixture, LeagueError

    now = timezone.now()
    started = 0
    for fixture_id in Fixture.objects.due_to_start(now).values_list("pk", flat=True):
        try:
            if start_at_round_time(fixture_id, now) is not None:
                started += 1
        except LeagueError:
            # The house rules no longer fit the fixture (an admin's change): the fixture stays
            # to play, for the admin to settle; the others still start.
            continue
    return started
