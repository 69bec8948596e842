"""A member's move POST through a real server, side by side with a bare view (issue 18).

Run: ``.venv/bin/python -m tests.bench.bench_moves_server``. Issue 18 measured its baseline
this way: through the server a member's request really goes through (here gunicorn with one
uvicorn worker, as the README's production section runs the club, on a fresh SQLite file),
each kind of request taking turns with a bare view in one run. ``bench_tables`` measures the
same requests inside Django's WSGI handler, without the server; both are reported in the note.

- the bare view: a logged-in GET that touches the session and the user, nothing else (served
  only by this benchmark's URLconf, ``tests.bench.bench_server_urls``);
- a move POST as htmx sends it (form-encoded, CSRF header and cookie) at a table of two
  members, at a table of one member and one hard bot (Escoba) and of one member and four hard
  bots (Scout). The move only queues the bots' reply; between two timed moves the bots' moves
  are played here, untimed, as the worker would play them.

Times are the client's, from sending the request to the last byte of the answer, on the
loopback. Target (exit status 1 on a miss): every move's median within 5x the median of the bare
view beside it.
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import urlencode

from tests.bench.bench_capacity import Server, collect_static, production_env, session_key_for
from tests.bench.bench_tables import play_bots

MOVES = int(os.environ.get("BENCH_MOVES", 200))
PORT = int(os.environ.get("BENCH_PORT", 8560))
TARGET_RATIO = 5.0
CSRF = "benchmarkcsrftokenbenchmarkcsrf0"  # 32 characters: a CSRF secret as the cookie holds it


def timed(client, method: str, url: str, **kwargs) -> float:
    start = time.perf_counter()
    response = client.request(method, url, **kwargs)
    elapsed = (time.perf_counter() - start) * 1000
    if response.status_code != 200:
        raise RuntimeError(f"{method} {url}: {response.status_code}")
    return elapsed


def run(clients, base: str, game: str, fillers: list[str], users) -> tuple[float, float]:
    """Median ms of the bare view and of the move POST, taking turns, at a new table of
    ``game`` whose other seats are ``fillers`` ("open" seats are taken by the second member)."""
    from games import writes
    from games.models import Match, RuleVariant

    rules = RuleVariant.objects.get(game=game, slug="standard")

    def new_match():
        match = writes.create_match(users[0], rules, 1 + len(fillers), fillers)
        if "open" in fillers:
            writes.join_match(match.pk, users[1])
        play_bots(match.pk)
        return Match.objects.get(pk=match.pk)

    times = {"bare": [], "move": []}
    match = new_match()
    while len(times["move"]) < MOVES:
        match.refresh_from_db()
        if match.status != Match.Status.PLAYING:
            match = new_match()
            continue
        engine = match.engine
        state = engine.load(match.state)
        seat = engine.to_move(state)[0]
        code = engine.legal_moves(state, seat)[0].code
        client = clients[seat]
        times["bare"].append(timed(client, "GET", f"{base}/bare/"))
        times["move"].append(
            timed(
                client,
                "POST",
                f"{base}/play/m/{match.pk}/move/",
                content=urlencode({"code": code, "v": match.version}),
                headers={
                    "Content-Type": "application/x-www-form-urlencoded",
                    "HX-Request": "true",
                    "X-CSRFToken": CSRF,
                },
            )
        )
        play_bots(match.pk)
    return statistics.median(times["bare"]), statistics.median(times["move"])


def main() -> int:
    import httpx

    with tempfile.TemporaryDirectory() as folder:
        workdir = Path(folder)
        collect_static(workdir)
        env = production_env(
            SQLITE_PATH=str(workdir / "moves.sqlite3"),
            DJANGO_SETTINGS_MODULE="tests.bench.bench_server_settings",
            AXES_ENABLED="0",
        )
        os.environ.update(env)
        import django

        django.setup()
        from django.contrib.auth import get_user_model
        from django.core.management import call_command

        call_command("migrate", verbosity=0, interactive=False)
        User = get_user_model()
        users = [User.objects.create_user(f"bench{i}", password=None) for i in range(2)]
        clients = [
            httpx.Client(
                headers={"Cookie": f"sessionid={session_key_for(user)}; csrftoken={CSRF}"},
                timeout=30,
            )
            for user in users
        ]
        base = f"http://127.0.0.1:{PORT}"
        rows = []
        with Server(PORT, 1, env, workdir / "server.log"):
            for label, game, fillers in (
                ("move POST, two members (escoba)", "escoba", ["open"]),
                ("move POST vs 1 hard bot (escoba)", "escoba", ["hard"]),
                ("move POST vs 4 hard bots (scout)", "scout", ["hard"] * 4),
            ):
                bare, move = run(clients, base, game, fillers, users)
                rows.append((label, bare, move))
        for client in clients:
            client.close()
    print(
        f"{'request (through gunicorn + uvicorn)':<40} {'bare ms':>8} {'move ms':>8} {'x bare':>7}"
    )
    ok = True
    for label, bare, move in rows:
        ratio = move / bare
        ok = ok and ratio <= TARGET_RATIO
        print(f"{label:<40} {bare:>8.2f} {move:>8.2f} {ratio:>7.2f}   target ≤ {TARGET_RATIO}x")
    print(
        f"({MOVES} moves per row, each after one bare request; medians; load {os.getloadavg()[0]:.2f})"
    )
    print("PASS" if ok else "FAIL: a target was missed")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
