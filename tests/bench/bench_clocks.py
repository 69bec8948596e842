"""Match clocks (issue 21): not a pytest test.

Run: ``.venv/bin/python -m tests.bench.bench_clocks``. On a throw-away SQLite database (and, when
``BENCH_DATABASE_URL=postgres://…/somedb`` is set, on that database too, in a process of its own):

(a) Clock accuracy. Live-clock matches (10 minutes + 2 seconds a move) are played move after move,
    each member thinking a known, random time (0–30 ms) before moving, until 100 moves have been
    played. After every move the clock's time left for each seat is compared with what the real
    time says it should be: the budget, plus the increments, minus the real time the seat was
    awaited, measured here with ``time.time()`` around each move (the server's own clock: the same
    machine). Target: the clock loses or gains at most 100 ms per 100 moves.
(b) The worker's sweep over 10,000 playing matches with live clocks, 20 of them out of time: one
    indexed query finds the 20, and each is ended under its lock. Target: ≤ 1 s, and a number of
    queries bounded by the expired matches (1 + at most 20 per expired match), printed.

Prints the figures and exits 1 if a target is missed.
"""

from __future__ import annotations

import os
import random
import subprocess
import sys
import tempfile
import time
from datetime import timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
MOVES = 100
ACCURACY_TARGET_MS = 100.0
MATCHES = 10_000
EXPIRED = 20
SWEEP_TARGET_S = 1.0
QUERIES_PER_EXPIRED = 20


def setup(database_url: str | None, folder: Path) -> None:
    from tests.bench.django_setup import configure

    configure(folder / "bench.sqlite3", database_url)
    from django.conf import settings
    from django.core.management import call_command

    # Nothing here has a bot; run anything queued at once rather than leave it in a table.
    settings.TASKS = {"default": {"BACKEND": "django_tasks.backends.immediate.ImmediateBackend"}}
    call_command("migrate", verbosity=0)


def members(count: int, tag: str):
    from django.contrib.auth import get_user_model

    User = get_user_model()
    stamp = f"{os.getpid()}{int(time.time())}"
    User.objects.bulk_create(
        [User(username=f"clk{tag}{stamp}-{i}", password="!") for i in range(count)]
    )
    return list(User.objects.filter(username__startswith=f"clk{tag}{stamp}-").order_by("pk"))


def clock_rules(game: str):
    from games.models import Clock, RuleVariant

    rules = RuleVariant.objects.get(game=game, slug="standard")
    rules.clock, rules.clock_minutes, rules.clock_increment = Clock.LIVE, 10, 2
    rules.save()
    return rules


def accuracy(rng: random.Random) -> tuple[float, float, int]:
    """Play ``MOVES`` moves; the worst error of any seat's clock after any move, and the error of
    all clocks together over the whole run (both in ms), and the moves played."""
    from games import writes

    rules = clock_rules("schotten_totten")
    budget = 10 * 60_000
    increment = 2_000
    worst = 0.0
    played = 0
    total_charged_clock = 0.0
    total_real = 0.0
    while played < MOVES:
        users = members(2, "acc")
        match = writes.start_match_for(users, rules)
        # Real time each seat has been awaited, and the increments it earned.
        awaited_ms = [0.0, 0.0]
        moves_by = [0, 0]
        last = match.clock_turn_started.timestamp()
        first = last
        while match.status == match.Status.PLAYING and played < MOVES:
            engine = match.engine
            state = engine.load(match.state)
            seat = engine.to_move(state)[0]
            move = rng.choice(engine.legal_moves(state, seat))
            time.sleep(rng.uniform(0, 0.030))  # the member thinks
            before = time.time()
            result = writes.play_move(match.pk, users[seat], move.code, match.version)
            after = time.time()
            match = result.match
            # The server read its clock somewhere between before and after: take the middle.
            now = (before + after) / 2
            awaited_ms[seat] += (now - last) * 1000
            moves_by[seat] += 1
            last = now
            played += 1
            for index in (0, 1):
                expected = budget + increment * moves_by[index] - awaited_ms[index]
                worst = max(worst, abs(match.clock_left[index] - expected))
        charged = sum(budget + increment * moves_by[i] - match.clock_left[i] for i in (0, 1))
        total_charged_clock += charged
        total_real += (last - first) * 1000
    return worst, abs(total_charged_clock - total_real), played


def build_matches(rng: random.Random):
    """``MATCHES`` playing 2-player matches with live clocks, ``EXPIRED`` of them out of time
    (started through the actions, so ending them rates them like any match)."""
    from django.utils import timezone

    from games import writes
    from games.models import Match, Seat

    rules = clock_rules("escoba")
    users = members(2 * EXPIRED + 2, "sweep")
    expired = []
    for i in range(EXPIRED):
        expired.append(writes.start_match_for(users[2 * i : 2 * i + 2], rules))
    now = timezone.now()
    Match.objects.filter(pk__in=[m.pk for m in expired]).update(
        clock_turn_started=now - timedelta(minutes=11),
        clock_deadline=now - timedelta(minutes=1),
    )
    template = expired[0]
    rows = []
    for _ in range(MATCHES - EXPIRED):
        started = now - timedelta(seconds=rng.uniform(0, 500))
        rows.append(
            Match(
                game=template.game,
                variant=rules,
                options=template.options,
                players=2,
                status=Match.Status.PLAYING,
                state=template.state,
                rated=True,
                started_at=started,
                clock=template.clock,
                clock_minutes=10,
                clock_increment=2,
                clock_left=[600_000, 600_000],
                clock_turn_started=started,
                clock_deadline=started + timedelta(minutes=10),
            )
        )
    made = Match.objects.bulk_create(rows, batch_size=1000)
    a, b = users[-2:]
    Seat.objects.bulk_create(
        [
            Seat(match=match, index=index, user=(a, b)[index], to_move=index == 0)
            for match in made
            for index in (0, 1)
        ],
        batch_size=2000,
    )
    return expired, made


def sweep() -> tuple[float, int, int, int]:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from games import tasks

    with CaptureQueriesContext(connection) as queries:
        started = time.perf_counter()
        ended = tasks.sweep_clocks.call()
        seconds = time.perf_counter() - started
    # Again, now that nothing is out of time: the indexed query alone.
    with CaptureQueriesContext(connection) as idle:
        again = tasks.sweep_clocks.call()
    assert again == 0, again
    return seconds, len(queries), ended, len(idle)


def cleanup(matches, users_prefix: str = "clk") -> None:
    from django.contrib.auth import get_user_model

    from cardclub.ratings.models import MatchResult, Rating
    from games.models import Match, RuleVariant

    ids = [m.pk for m in matches]
    MatchResult.objects.filter(match_id__in=ids).delete()
    Match.objects.filter(pk__in=ids).delete()
    users = get_user_model().objects.filter(username__startswith=users_prefix)
    Rating.objects.filter(user__in=users).delete()
    RuleVariant.objects.filter(slug="standard").update(clock="none", clock_minutes=None)


def main(label: str) -> int:
    rng = random.Random(21)
    ok = True
    worst, total, played = accuracy(rng)
    good = worst <= ACCURACY_TARGET_MS and total <= ACCURACY_TARGET_MS
    ok &= good
    print(
        f"{label}: clock accuracy over {played} moves: worst seat error {worst:.2f} ms, "
        f"all clocks against the real time {total:.2f} ms "
        f"(target ≤ {ACCURACY_TARGET_MS:.0f} ms) {'ok' if good else 'MISSED'}"
    )
    expired, made = build_matches(rng)
    seconds, queries, ended, idle = sweep()
    bound = 1 + QUERIES_PER_EXPIRED * EXPIRED
    good = seconds <= SWEEP_TARGET_S and queries <= bound and ended == EXPIRED and idle == 1
    ok &= good
    print(
        f"{label}: sweep of {MATCHES} live matches, {EXPIRED} out of time: {seconds * 1000:.1f} ms, "
        f"{queries} queries ({queries / max(1, ended):.1f} per ended match; bound {bound}), "
        f"{ended} ended; with none out of time: {idle} query "
        f"(targets ≤ {SWEEP_TARGET_S:.0f} s, ≤ {bound} queries) {'ok' if good else 'MISSED'}"
    )
    if os.environ.get("DATABASE_URL"):
        cleanup(expired + made)
    return 0 if ok else 1


if __name__ == "__main__":
    pg = os.environ.get("BENCH_DATABASE_URL", "")
    if os.environ.get("BENCH_CLOCKS_CHILD") == "pg":
        setup(pg, Path(tempfile.mkdtemp(prefix="bench-clocks-")))
        sys.exit(main("PostgreSQL"))
    setup(None, Path(tempfile.mkdtemp(prefix="bench-clocks-")))
    code = main("SQLite")
    if pg:
        # PostgreSQL in a process of its own, so each database gets a clean Django.
        child = subprocess.run(
            [sys.executable, "-m", "tests.bench.bench_clocks"],
            cwd=ROOT,
            env={**os.environ, "BENCH_CLOCKS_CHILD": "pg"},
        )
        code = code or child.returncode
    sys.exit(code)
