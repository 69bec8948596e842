"""What a table's changed poll costs and weighs, for every game and table size (issue 22): not a
pytest test.

Run: ``.venv/bin/python -m tests.bench.bench_fragments`` (``make bench`` runs it). On a fresh
SQLite file, for every game at every table size it can be played at, members sit at every seat
and play seeded random legal moves (played here, in-process, as the move view would). After each
move, one member who did not move fetches the table as their page does when the push stream
says the version changed: ``GET poll?v=<the version they show>`` as htmx sends it, which answers
the table fragment (the table, the seats and controls out of band). Each such poll takes turns
with the bare view (session and user only), twice:

- inside Django's WSGI handler (``bench_tables.serve``), medians of wall clock and CPU time;
- through gunicorn with two uvicorn workers and production settings, the client's time, as
  issue 22 measured its baseline.

Targets: every changed poll within 3x the bare view through the server, and every fragment
within 10 KB (``tests/web/tables/test_fragment_sizes.py`` checks the sizes from the deal to the end; this
reports them with the times). Exits 1 on a miss. ``BENCH_MOVES`` sets the moves per table.
"""

from __future__ import annotations

import os
import random
import statistics
import sys
import tempfile
from pathlib import Path

from tests.bench.bench_tables import (
    environ_factory,
    install_bench_urls,
    medians,
    serve,
    setup_django,
)

MOVES = int(os.environ.get("BENCH_MOVES", 60))
PORT = int(os.environ.get("BENCH_PORT", 8580))
TARGET_RATIO = 3.0
LIMIT_BYTES = 10 * 1024
TABLES = [
    ("escoba", 2),
    ("escoba", 3),
    ("escoba", 4),
    ("schotten_totten", 2),
    ("scout", 2),
    ("scout", 3),
    ("scout", 4),
    ("scout", 5),
]


def new_match(game: str, members: list):
    from games import writes
    from games.models import Match, RuleVariant

    rules = RuleVariant.objects.get(game=game, slug="standard")
    match = writes.create_match(members[0], rules, len(members), ["open"] * (len(members) - 1))
    for member in members[1:]:
        writes.join_match(match.pk, member)
    return Match.objects.get(pk=match.pk)


def next_move(match, members, rng):
    """Play one random legal move; the match, a seat that did not move and the version its page
    still shows. ``None`` once the match is over."""
    from games import writes
    from games.models import Match

    match = Match.objects.get(pk=match.pk)
    if match.status != Match.Status.PLAYING:
        return None
    state = match.engine.load(match.state)
    seat = match.engine.to_move(state)[0]
    code = rng.choice(match.engine.legal_moves(state, seat)).code
    writes.play_move(match.pk, members[seat], code, match.version)
    watcher = (seat + 1) % len(members)
    return watcher, match.version


def in_handler(members, rng) -> dict:
    """Per table: the median (wall, CPU) ms of the bare view and of the changed poll, and the
    fragments' sizes, inside the WSGI handler."""
    from django.core.handlers.wsgi import WSGIHandler
    from django.test import Client, override_settings
    from django.urls import reverse

    results = {}
    with override_settings(ROOT_URLCONF=install_bench_urls(), DEBUG=False):
        handler = WSGIHandler()
        factories = []
        for member in members:
            client = Client()
            client.force_login(member, backend="django.contrib.auth.backends.ModelBackend")
            factories.append(environ_factory(client))
        for game, players in TABLES:
            seated = members[:players]
            bare, polls, sizes = [], [], []
            match = new_match(game, seated)
            poll_url = reverse("games:poll", args=[match.pk])
            for _ in range(MOVES):
                moved = next_move(match, seated, rng)
                if moved is None:
                    match = new_match(game, seated)
                    poll_url = reverse("games:poll", args=[match.pk])
                    continue
                watcher, shown = moved
                factory = factories[watcher]
                status, _body, elapsed = serve(handler, factory.get("/bare/"))
                assert status == 200
                bare.append(elapsed)
                status, body, elapsed = serve(
                    handler, factory.get(f"{poll_url}?v={shown}&s=playing", HTTP_HX_REQUEST="true")
                )
                assert status == 200, status
                polls.append(elapsed)
                sizes.append(len(body))
            results[(game, players)] = (medians(bare), medians(polls), sizes)
    return results


def through_server(database: Path, members, rng) -> dict:
    """Per table: the median client ms of the bare view and of the changed poll, through
    gunicorn with production settings."""
    import httpx
    from django.urls import reverse

    from tests.bench.bench_capacity import served, session_key_for, timed_get

    results = {}
    clients = [
        httpx.Client(cookies={"sessionid": session_key_for(member)}, timeout=30)
        for member in members
    ]
    with served(PORT, 2, database) as base:
        for client in clients:  # warm both workers
            for _ in range(5):
                timed_get(client, f"{base}/bare/")
        for game, players in TABLES:
            seated = members[:players]
            bare, polls = [], []
            match = new_match(game, seated)
            for _ in range(MOVES):
                moved = next_move(match, seated, rng)
                if moved is None:
                    match = new_match(game, seated)
                    continue
                watcher, shown = moved
                poll_url = reverse("games:poll", args=[match.pk])
                bare.append(timed_get(clients[watcher], f"{base}/bare/"))
                polls.append(
                    timed_get(
                        clients[watcher],
                        f"{base}{poll_url}?v={shown}&s=playing",
                        **{"HX-Request": "true"},
                    )
                )
            results[(game, players)] = (statistics.median(bare), statistics.median(polls))
    for client in clients:
        client.close()
    return results


def main() -> int:
    with tempfile.TemporaryDirectory(prefix="cardclub-bench-") as folder:
        database = Path(folder) / "fragments.sqlite3"
        setup_django(database)
        from django.contrib.auth import get_user_model

        User = get_user_model()
        members = [User.objects.create_user(f"member{n}", password=None) for n in range(5)]
        handler_rows = in_handler(members, random.Random(22))
        server_rows = through_server(database, members, random.Random(22))

    print(
        f"\nChanged polls, {MOVES} per table (load average per CPU"
        f" {os.getloadavg()[0] / (os.cpu_count() or 1):.1f})"
    )
    print(
        f"{'table':<20} {'bare ms':>8} {'poll ms':>8} {'x bare':>7} {'cpu x':>6}"
        f" | {'server bare':>11} {'poll':>7} {'x bare':>7} | {'KB p50':>7} {'KB max':>7}   target"
    )
    ok = True
    for key, (bare, poll, sizes) in handler_rows.items():
        server_bare, server_poll = server_rows[key]
        ratio = server_poll / server_bare
        biggest = max(sizes)
        missed = ratio > TARGET_RATIO or biggest > LIMIT_BYTES
        ok = ok and not missed
        game, players = key
        print(
            f"{game + ' ' + str(players) + 'p':<20} {bare[0]:>8.2f} {poll[0]:>8.2f}"
            f" {poll[0] / bare[0]:>7.2f} {poll[1] / bare[1]:>6.2f}"
            f" | {server_bare:>11.2f} {server_poll:>7.2f} {ratio:>7.2f}"
            f" | {statistics.median(sizes) / 1024:>7.1f} {biggest / 1024:>7.1f}"
            f"   ≤ {TARGET_RATIO}x and ≤ 10 KB: {'MISSED' if missed else 'ok'}"
        )
    print("(medians; the target ratio is through the server, as issue 22 measured)")
    print("PASS" if ok else "FAIL: a target was missed")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
