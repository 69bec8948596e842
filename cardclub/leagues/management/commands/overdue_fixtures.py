"""Record forfeits for fixtures past their deadline, and say what was done.

A fixture never started is a double forfeit (neither side arranged it); a match still being
played forfeits the members whose move it is, since they are the ones holding it up.
"""

from __future__ import annotations

from django.core.management.base import BaseCommand
from django.db import transaction

from cardclub.leagues.models import Fixture


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
            indexes = fixture.holding_up()
            names = [s.user.get_username() for s in fixture.seats.all() if s.index in indexes]
            kind = "double forfeit" if len(indexes) == len(fixture.seats.all()) else "forfeit"
            self.stdout.write(
                f"{fixture.round.season} · {fixture.round} · table {fixture.table}: "
                f"{kind} ({', '.join(names)})"
            )
            if not dry_run:
                with transaction.atomic():
                    fixture.record_forfeit(indexes, by=None, note="Overdue: " + kind)
            done += 1
        verb = "would record" if dry_run else "recorded"
        self.stdout.write(f"{verb} {done} forfeit(s).")
