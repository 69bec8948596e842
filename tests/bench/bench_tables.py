"""Server time and SQL queries of the table's hot requests, against a bare Django view.

Run: ``.venv/bin/python -m tests.bench.bench_tables``. Plays a two-member Escoba match through
the test client (full middleware stack, a fresh SQLite file) and reports, as medians:

- a move POST with htmx (no bots at the table), re-rendering the table;
- an unchanged poll (204);
- a bare view that only touches the session and the user, as the yardstick.

Targets (issue 7): a move within 5x the bare view and at most 12 queries (session and user
included); an unchanged poll within 2.5x and at most 4 queries. Exits 1 on a miss.
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from tests.bench.django_setup import configure

MOVES = int(os.environ.get("BENCH_MOVES", 120))
POLLS = int(os.environ.get("BENCH_POLLS", 300))


def setup_django(database: Path) -> None:
    os.environ["AXES_ENABLED"] = "0"
    configure(database)
    from django.core.management import call_command

    call_command("migrate", verbosity=0)


def timed(call, repeat: int) -> tuple[float, int]:
    """Median wall time in ms and the query count of the last call."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    times, queries = [], 0
    for _ in range(repeat):
        with CaptureQueriesContext(connection) as captured:
            start = time.perf_counter()
            call()
            times.append((time.perf_counter() - start) * 1000)
        queries = len(captured)
    return statistics.median(times), queries


def main() -> int:
    with tempfile.TemporaryDirectory() as folder:
        setup_django(Path(folder) / "bench.sqlite3")
        from django.contrib.auth import get_user_model
        from django.http import HttpResponse
        from django.test import Client, override_settings
        from django.urls import include, path

        from games import actions
        from games.models import Match, RuleVariant

        def bare(request):
            # The yardstick: what every logged-in page pays (session and user), nothing else.
            return HttpResponse(f"ok {request.user.pk}")

        module = type(sys)("bench_urls")
        module.urlpatterns = [path("bare/", bare), path("", include("cardclub.urls"))]
        sys.modules["bench_urls"] = module

        User = get_user_model()
        users = [User.objects.create_user(f"bench{i}", password="x") for i in range(2)]
        clients = []
        for user in users:
            client = Client()
            client.force_login(user, backend="django.contrib.auth.backends.ModelBackend")
            clients.append(client)
        rules = RuleVariant.objects.get(game="escoba", slug="standard")

        def new_match():
            match = actions.create_match(users[0], rules, 2, ["open"])
            actions.join_match(match.pk, users[1])
            match.refresh_from_db()
            return match

        with override_settings(ROOT_URLCONF="bench_urls", DEBUG=False):
            bare_ms, bare_q = timed(lambda: clients[0].get("/bare/"), POLLS)

            match = new_match()
            poll_url = f"/play/m/{match.pk}/poll/"

            def poll():
                response = clients[0].get(poll_url, {"v": match.version}, HTTP_HX_REQUEST="true")
                assert response.status_code == 204

            poll_ms, poll_q = timed(poll, POLLS)

            move_times, move_queries = [], []
            from django.db import connection
            from django.test.utils import CaptureQueriesContext

            while len(move_times) < MOVES:
                match.refresh_from_db()
                if match.status != Match.Status.PLAYING:
                    match = new_match()
                    continue
                engine = match.engine
                state = engine.load(match.state)
                seat = engine.to_move(state)[0]
                code = engine.legal_moves(state, seat)[0].code
                with CaptureQueriesContext(connection) as captured:
                    start = time.perf_counter()
                    response = clients[seat].post(
                        f"/play/m/{match.pk}/move/",
                        {"code": code, "v": match.version},
                        HTTP_HX_REQUEST="true",
                    )
                    move_times.append((time.perf_counter() - start) * 1000)
                assert response.status_code == 200
                move_queries.append(len(captured))
            move_ms, move_q = statistics.median(move_times), max(move_queries)

    rows = [
        ("bare view (session + user)", bare_ms, 1.0, bare_q, None, None),
        ("move POST, htmx, no bots", move_ms, move_ms / bare_ms, move_q, 5.0, 12),
        ("unchanged poll (204)", poll_ms, poll_ms / bare_ms, poll_q, 2.5, 4),
    ]
    print(f"{'request':<30} {'median ms':>10} {'x bare':>8} {'queries':>8}   target")
    ok = True
    for name, ms, ratio, queries, max_ratio, max_queries in rows:
        target = "" if max_ratio is None else f"≤ {max_ratio}x, ≤ {max_queries} queries"
        print(f"{name:<30} {ms:>10.2f} {ratio:>8.2f} {queries:>8}   {target}")
        if max_ratio is not None and (ratio > max_ratio or queries > max_queries):
            ok = False
    print(f"({MOVES} moves, {POLLS} polls; query count of a move is the maximum seen)")
    print("PASS" if ok else "FAIL: a target was missed")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
