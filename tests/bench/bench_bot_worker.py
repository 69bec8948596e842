"""Bot moves played by a real worker process (issue 18): not a pytest test.

Run: ``.venv/bin/python -m tests.bench.bench_bot_worker``. On a fresh SQLite file, starts the
database backend's worker (``manage.py db_worker``, as ``make run`` does) and plays matches in
which one member faces hard bots: Escoba, one member against one hard bot, and Scout, one member
against four hard bots. The member (this process) moves as soon as the table says it is to move;
the bots move in the worker, with the ``BOT_MOVE_PAUSE`` of the settings (0.4 s).

For every bot move, the time from the move before it (the member's or another bot's) to the bot
move, both read from the move log's timestamps: when each move was committed to the table.
Target (exit status 1 on a miss): p95 at most 1 s. Also prints the median, the largest, the
pause and the load average.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tests.bench.django_setup import configure
from tests.bench.stats import percentile

MEMBER_MOVES = int(os.environ.get("BENCH_MEMBER_MOVES", 40))
TARGET_P95 = 1.0
ROOT = Path(__file__).resolve().parents[2]


def play(game: str, players: int, user, member_moves: int) -> list[float]:
    """Seconds from each bot move's predecessor to it, over ``member_moves`` member moves."""
    from games import writes
    from games.models import Match, MoveRecord, RuleVariant

    rules = RuleVariant.objects.get(game=game, slug="standard")
    gaps: list[float] = []
    done = 0
    while done < member_moves:
        match = writes.create_match(user, rules, players, ["hard"] * (players - 1))
        while done < member_moves:
            deadline = time.monotonic() + 60
            while True:
                match.refresh_from_db()
                state = match.engine.load(match.state)
                if match.status != Match.Status.PLAYING or 0 in match.engine.to_move(state):
                    break
                if time.monotonic() > deadline:
                    raise SystemExit(f"{game}: no bot move for 60 s; is the worker running?")
                time.sleep(0.02)
            if match.status != Match.Status.PLAYING:
                break
            code = match.engine.legal_moves(state, 0)[0].code
            writes.play_move(match.pk, user, code, match.version)
            done += 1
        records = list(MoveRecord.objects.filter(match=match).order_by("seq"))
        seated = {s.index: bool(s.bot_level) for s in match.seats.all()}
        for before, after in zip(records, records[1:], strict=False):
            if seated[after.seat]:
                gaps.append((after.created_at - before.created_at).total_seconds())
    return gaps


def main() -> int:
    with tempfile.TemporaryDirectory() as folder:
        os.environ["AXES_ENABLED"] = "0"
        configure(Path(folder) / "bench.sqlite3")
        from django.conf import settings
        from django.contrib.auth import get_user_model
        from django.core.management import call_command

        call_command("migrate", verbosity=0)
        user = get_user_model().objects.create_user("bench", password="x")
        worker = subprocess.Popen(
            [sys.executable, "manage.py", "db_worker", "--interval", "0.1", "--no-reload"]
            + ["--no-startup-delay", "--verbosity", "0"],
            cwd=ROOT,
            env=os.environ.copy(),
        )
        ok = True
        try:
            print(
                f"bot moves by a db_worker process, pause {settings.BOT_MOVE_PAUSE} s,"
                f" {MEMBER_MOVES} member moves per table"
            )
            print(
                f"{'table':<28}{'bot moves':>10}{'median s':>10}{'p95 s':>8}{'max s':>8}"
                f"{'load':>7}   target"
            )
            # Warm up: the worker process imports Django and the bots on its first task.
            play("escoba", 2, user, 2)
            for game, players in (("escoba", 2), ("scout", 5)):
                gaps = play(game, players, user, MEMBER_MOVES)
                p95 = percentile(gaps, 0.95)
                ok &= p95 <= TARGET_P95
                label = f"{game}, 1 member + {players - 1} hard"
                print(
                    f"{label:<28}{len(gaps):>10}{statistics.median(gaps):>10.3f}{p95:>8.3f}"
                    f"{max(gaps):>8.3f}{os.getloadavg()[0]:>7.2f}   p95 <= {TARGET_P95} s",
                    flush=True,
                )
        finally:
            worker.terminate()
            worker.wait(15)
    print("PASS" if ok else "FAIL: a target was missed")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
