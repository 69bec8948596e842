"""Pages that stay cheap as the club grows (issue 22): not a pytest test.

Run: ``.venv/bin/python -m tests.bench.bench_pages`` (``make bench`` runs it). Builds a throw-away
SQLite database with 10,000 members and 200,000 finished matches (``bench_ratings``' generator,
ratings rebuilt), gives one member a single live match and another 100 (a league week of
correspondence play), then serves, each taking turns with the bare view so that whatever else
the machine does weighs on both alike:

- the lobby of the member with 1 live match, and of the member with 100;
- "your matches" (the full, paginated list) of the member with 100;
- a leaderboard's first page, and the profile of the busiest member;
- the home page, which is little more than the site's frame (base.html): the floor of any page.

Each page is measured twice, on the same database:

- inside Django's WSGI handler, from environ to last byte (``bench_tables.serve``), as medians of
  the wall clock and of the request thread's CPU time; queries are counted on every
  ``COUNT_EVERY``th request instead of timing it;
- through a real server, as issue 22 measured its baseline: gunicorn with two uvicorn workers
  and production settings (as the README runs the club), the client's time from sending the
  request to the last byte, on the loopback.

Targets, on the wall clock through the server (the issue's measure): the lobby with 100 live
matches within 3x the bare view; the leaderboard and the profile within 4x. Exits 1 on a miss.
The in-handler ratios are printed beside them: they leave out what the server adds to every
request alike, so they are the stricter reading. ``--db postgres`` runs it all on PostgreSQL
(``BENCH_PG_SERVER``, as ``bench_capacity``; the database ``cardclub_bench_pages`` is created and
dropped), as issue 22 measured its baseline. ``BENCH_DB=path`` keeps the generated SQLite
database between runs (for tuning; with ``--db postgres``, any value keeps that database);
``BENCH_MEMBERS`` / ``BENCH_MATCHES`` shrink the data (never for the figures), ``BENCH_REPEAT``
the number of timed requests per page.
"""

from __future__ import annotations

import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

from tests.bench.bench_tables import (
    COUNT_EVERY,
    environ_factory,
    install_bench_urls,
    medians,
    serve,
    setup_django,
)

REPEAT = int(os.environ.get("BENCH_REPEAT", 200))
PORT = int(os.environ.get("BENCH_PORT", 8570))
SERVER_WORKERS = 2
LIVE_MATCHES = 100
TARGETS = {"lobby, 100 live matches": 3.0, "leaderboard": 4.0, "profile": 4.0}


def live_matches(member, rivals, count: int, rng: random.Random) -> None:
    """``count`` started matches of ``member`` against ``rivals``: the three games, a third on
    a correspondence clock, a few moves in so that it is the member's turn in some."""
    from games import writes
    from games.models import Clock, Match, RuleVariant

    kinds = [("escoba", 2), ("schotten_totten", 2), ("scout", 3)]
    for n in range(count):
        game, players = kinds[n % len(kinds)]
        rules = RuleVariant.objects.get(game=game, slug="standard")
        rules.clock, rules.clock_days = (
            (Clock.CORRESPONDENCE, 3) if n % 3 == 0 else (Clock.NONE, None)
        )
        rules.save()
        others = rng.sample(rivals, players - 1)
        match = writes.create_match(member, rules, players, ["open"] * (players - 1))
        for other in others:
            writes.join_match(match.pk, other)
        seated = [member, *others]
        for _ in range(rng.randrange(3)):
            match = Match.objects.get(pk=match.pk)
            state = match.engine.load(match.state)
            seat = match.engine.to_move(state)[0]
            code = rng.choice(match.engine.legal_moves(state, seat)).code
            writes.play_move(match.pk, seated[seat], code, match.version)
    for rules in RuleVariant.objects.filter(slug="standard"):
        rules.clock, rules.clock_days = Clock.NONE, None
        rules.save()


def interleaved(handler, bare_environ, page_environ) -> tuple[tuple, tuple, int, int]:
    """The page and the bare view taking turns: their median (wall, CPU) ms, the most queries
    the page made and its size in bytes."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    for _ in range(3):  # warm the templates and the database pages
        status, body, _elapsed = serve(handler, page_environ())
        assert status == 200, status
    times = {"bare": [], "page": []}
    most = served = size = 0
    while len(times["page"]) < REPEAT:
        for kind, make in (("bare", bare_environ), ("page", page_environ)):
            served += 1
            if served % COUNT_EVERY:
                status, body, elapsed = serve(handler, make())
                times[kind].append(elapsed)
            else:
                with CaptureQueriesContext(connection) as captured:
                    status, body, elapsed = serve(handler, make())
                if kind == "page":
                    most, size = max(most, len(captured)), len(body)
            assert status == 200, (kind, status)
    return medians(times["bare"]), medians(times["page"]), most, size


def through_server(
    database: Path, database_url: str | None, pages: list, members: dict
) -> list[tuple]:
    """The same pages through gunicorn (``SERVER_WORKERS`` uvicorn workers, production settings)
    on ``database``: per page, the median client ms of the bare view and of the page, taking
    turns. ``pages`` are (label, url, member); ``members`` maps a member to their session key."""
    import httpx

    from tests.bench.bench_capacity import served, timed_get

    rows = []
    with served(PORT, SERVER_WORKERS, database, database_url) as base:
        for label, url, member in pages:
            client = httpx.Client(cookies={"sessionid": members[member]}, timeout=30)
            times = {"bare": [], "page": []}
            for round_ in range(REPEAT + 10):  # the first ten warm every worker
                for kind, path in (("bare", "/bare/"), ("page", url)):
                    elapsed = timed_get(client, base + path)
                    if round_ >= 10:
                        times[kind].append(elapsed)
            client.close()
            rows.append((label, statistics.median(times["bare"]), statistics.median(times["page"])))
    return rows


PG_NAME = "cardclub_bench_pages"


def postgres_database(keep: bool) -> tuple[str, bool]:
    """The URL of the benchmark's PostgreSQL database, created unless kept from a run before,
    and whether it was kept."""
    import psycopg

    from tests.bench.bench_capacity import PG_SERVER

    with psycopg.connect(f"{PG_SERVER}/postgres", autocommit=True, connect_timeout=3) as server:
        exists = server.execute(
            "SELECT 1 FROM pg_database WHERE datname = %s", [PG_NAME]
        ).fetchone()
        if exists and not keep:
            server.execute(f'DROP DATABASE "{PG_NAME}" WITH (FORCE)')
        if not exists or not keep:
            server.execute(f'CREATE DATABASE "{PG_NAME}"')
    return f"{PG_SERVER}/{PG_NAME}", bool(exists and keep)


def drop_postgres_database() -> None:
    import psycopg

    from tests.bench.bench_capacity import PG_SERVER

    with psycopg.connect(f"{PG_SERVER}/postgres", autocommit=True, connect_timeout=3) as server:
        server.execute(f'DROP DATABASE IF EXISTS "{PG_NAME}" WITH (FORCE)')


def main(argv: list[str]) -> int:
    kept = os.environ.get("BENCH_DB")
    postgres = argv[:2] == ["--db", "postgres"]
    with tempfile.TemporaryDirectory(prefix="cardclub-bench-") as folder:
        database = Path(kept) if kept and not postgres else Path(folder) / "bench.sqlite3"
        database_url, reuse = (None, database.exists())
        if postgres:
            database_url, reuse = postgres_database(keep=bool(kept))
        setup_django(database, database_url)
        from django.contrib.auth import get_user_model
        from django.core.handlers.wsgi import WSGIHandler
        from django.test import Client, override_settings
        from django.urls import reverse

        from cardclub.ratings.services import rebuild_all
        from tests.bench import bench_ratings

        rng = random.Random(22)
        User = get_user_model()
        if not reuse:
            started = time.perf_counter()
            print(
                f"Generating {bench_ratings.MEMBERS:,} members and"
                f" {bench_ratings.MATCHES:,} finished matches…"
            )
            bench_ratings.generate(rng)
            rebuild_all()
            rivals = list(User.objects.order_by("pk")[2:40])
            live_matches(User.objects.get(username="member00000"), rivals, LIVE_MATCHES, rng)
            live_matches(User.objects.get(username="member00001"), rivals, 1, rng)
            print(f"  {time.perf_counter() - started:.0f} s")
        busy = User.objects.get(username="member00000")
        quiet = User.objects.get(username="member00001")

        urls = install_bench_urls()
        with override_settings(ROOT_URLCONF=urls, DEBUG=False):
            handler = WSGIHandler()
            factories = {}
            for member in (busy, quiet):
                client = Client()
                client.force_login(member, backend="django.contrib.auth.backends.ModelBackend")
                factories[member.pk] = environ_factory(client)

            def get(member, url):
                return lambda: factories[member.pk].get(url)

            pages = [
                # No target: the floor, what any page drawn in the site's frame costs.
                ("home (the frame alone)", get(busy, reverse("home")), busy),
                ("lobby, 1 live match", get(quiet, reverse("games:lobby")), quiet),
                (f"lobby, {LIVE_MATCHES} live matches", get(busy, reverse("games:lobby")), busy),
                ("your matches, page 1", get(busy, reverse("games:all_my_matches")), busy),
                ("leaderboard", get(busy, reverse("ratings:leaderboard", args=["scout"])), busy),
                ("profile", get(busy, reverse("member", args=[busy.username])), busy),
            ]
            rows = []
            for label, page_environ, member in pages:
                bare, page, queries, size = interleaved(
                    handler, get(member, "/bare/"), page_environ
                )
                rows.append((label, bare, page, queries, size))
        from tests.bench.bench_capacity import session_key_for

        urls = {
            "home (the frame alone)": reverse("home"),
            "your matches, page 1": reverse("games:all_my_matches"),
            "leaderboard": reverse("ratings:leaderboard", args=["scout"]),
            "profile": reverse("member", args=[busy.username]),
        }
        served = through_server(
            database,
            database_url,
            [
                (label, urls.get(label) or reverse("games:lobby"), member)
                for label, _environ, member in pages
            ],
            {member: session_key_for(member) for member in (busy, quiet)},
        )

    if postgres and not kept:
        from django.db import connections

        connections.close_all()
        drop_postgres_database()
    load = os.getloadavg()[0] / (os.cpu_count() or 1)
    print(f"\nLoad average per CPU while measuring: {load:.1f}")
    print(f"Database: {'PostgreSQL' if postgres else 'SQLite'}")
    print("Inside Django's WSGI handler:")
    print(
        f"{'request':<28} {'bare ms':>8} {'page ms':>8} {'x bare':>7}"
        f" {'bare cpu':>9} {'page cpu':>9} {'x bare':>7} {'queries':>8} {'KiB':>5}"
    )
    for label, bare, page, queries, size in rows:
        print(
            f"{label:<28} {bare[0]:>8.2f} {page[0]:>8.2f} {page[0] / bare[0]:>7.2f}"
            f" {bare[1]:>9.2f} {page[1]:>9.2f} {page[1] / bare[1]:>7.2f} {queries:>8}"
            f" {size / 1024:>5.0f}"
        )
    print(f"Through gunicorn ({SERVER_WORKERS} uvicorn workers, production settings):")
    print(f"{'request':<28} {'bare ms':>8} {'page ms':>8} {'x bare':>7}   target")
    ok = True
    for label, bare, page in served:
        ratio = page / bare
        target = TARGETS.get(label.replace(f"{LIVE_MATCHES} live", "100 live"))
        mark = ""
        if target is not None:
            missed = ratio > target
            ok = ok and not missed
            mark = f"≤ {target}x: {'MISSED' if missed else 'ok'}"
        print(f"{label:<28} {bare:>8.2f} {page:>8.2f} {ratio:>7.2f}   {mark}")
    print(
        f"({REPEAT} timed requests of each page, each beside one of the bare view; medians;"
        f" in the handler every {COUNT_EVERY}th request is counted rather than timed; the CPU"
        " time is what the request costs whatever else the machine does)"
    )
    print("PASS" if ok else "FAIL: a target was missed")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
