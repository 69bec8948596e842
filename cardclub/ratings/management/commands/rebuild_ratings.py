"""Rebuild every rating from the finished matches, in the order they finished.

Use it after fixing a result by hand, or after changing the rating model; it gives the same
ratings as the updates made when each match finished (a test checks).
"""

from __future__ import annotations

import time

from django.core.management.base import BaseCommand

from cardclub.ratings.services import rebuild_all

BAR_WIDTH = 30


class Command(BaseCommand):
    help = "Recompute every rating and its history from the finished rated matches."

    def add_arguments(self, parser):
        parser.add_argument(
            "--no-progress", action="store_true", help="Do not draw the progress bar."
        )

    def handle(self, *args, **options):
        show = not options["no_progress"]
        started = time.monotonic()
        last_drawn = {"percent": -1}

        def progress(done: int, total: int) -> None:
            # Redraw only when the percentage moves: 200,000 matches would otherwise mean
            # 200,000 writes to the terminal.
            percent = 100 if total == 0 else done * 100 // total
            if percent == last_drawn["percent"]:
                return
            last_drawn["percent"] = percent
            filled = BAR_WIDTH * percent // 100
            bar = "#" * filled + "-" * (BAR_WIDTH - filled)
            self.stdout.write(f"\r[{bar}] {percent:3d}% {done}/{total} matches", ending="")
            self.stdout.flush()

        matches, ratings = rebuild_all(progress=progress if show else None)
        if show:
            progress(matches, matches)
            self.stdout.write("")
        self.stdout.write(
            self.style.SUCCESS(
                f"Rated {matches} matches into {ratings} ratings "
                f"in {time.monotonic() - started:.1f} s."
            )
        )
