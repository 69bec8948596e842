"""Record forfeits for fixtures past their deadline, and say what was done.

A fixture never started is a double forfeit (neither side arranged it); a match still being
played forfeits the members whose move it is, since they are the ones holding it up.

The list is read without locks; each forfeit is then decided again under the fixture's locks
(``leagues.actions.forfeit_overdue``), so a match that finishes while the sweep runs keeps its
played result.
"""

from __future__ import annotations

from django.core.management.base import BaseCommand

from cardclub.leagues.actions import forfeit_overdue
from cardclub.leagues.models import Fixture


def describe(fixture: Fixture, indexes: set[int]) -> str:
    names = [s.user.get_username() for s in fixture.seats.all() if s.index in indexes]
    kind = "double forfeit" if len(indexes) == len(fixture.seats.all()) else "forfeit"
    return (
        f"{fixture.round.season} · {fixture.round} · table {fixture.table}: "
        f"{kind} ({', '.join(names)})"
    )


class Command(BaseCommand):
    help = "Record forfeits for league fixtures past their deadline."

    def add_arguments(self, parser):
        parser.add_argument(
            "--dry-run", action="store_true", help="Report what would be done, change nothing."
        )

    def handle(self, *args, dry_run=False, **options):
        overdue = (
            Fixture.objects.overdue()
            .select_related("round__season__league", "match")
            .prefetch_related("seats__user", "match__seats")
            .order_by("deadline", "pk")
        )
        done = 0
        for fixture in overdue:
            if dry_run:
                self.stdout.write(describe(fixture, fixture.holding_up()))
                done += 1
                continue
            forfeited = forfeit_overdue(fixture.pk)
            if forfeited is None:
                continue  # finished or extended since the list was read
            self.stdout.write(describe(*forfeited))
            done += 1
        verb = "would record" if dry_run else "recorded"
        self.stdout.write(f"{verb} {done} forfeit(s).")
