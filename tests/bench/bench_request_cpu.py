"""What each kind of request costs the server in CPU, as issue 34 measured it: through gunicorn
with a uvicorn worker, the server process's CPU before and after a block of one kind of
request, divided by the requests, the kinds taking turns in blocks.

Run: ``.venv/bin/python -m tests.bench.bench_request_cpu`` (``--db postgres`` for PostgreSQL at
``BENCH_PG_SERVER``, database ``BENCH_PG_DB`` + ``_cpu``; ``--rounds``, ``--tables``, ``--port``).

``--compare DIR`` serves another checkout beside this one (``git worktree add DIR <commit>``)
on the next port, against the same database, the rounds taking turns between the two servers:
the machine's speed drifts by a third within minutes here, so two runs one after the other
cannot tell a change of a few per cent, while rounds taking turns share the drift. The ratios
of both are printed side by side, then each kind's CPU here against there (a ratio to the bare
view moves with the bare view); the targets are this checkout's.

The kinds (``TABLES`` two-member tables, the games in turn; one client, one request at a time,
so the worker's CPU over a block is that block's):

- no session: a Django view that reads neither session nor member (``/nosession/``, no cookie);
- bare view: a logged-in GET that touches the session and the member (``/bare/``);
- poll 204: a table's poll at the version it is at;
- changed fragment: the other member's poll after a move, as its page fetches it when pushed;
- spectator fragment: the same poll by each of ``SPECTATORS`` members watching the table: the
  first draws the spectator's table, the others are given its drawing (``games.access.
  spectators_drawing_key``); the figure is their mean;
- clocked spectator: the same at ``CLOCKED`` more tables played on a live clock, whose drawing
  is given for 2 seconds only (``access.spectators_drawing_fresh_for``); their moves are made
  between the blocks, unmeasured;
- move POST: the member to move, as htmx sends it;
- page: the whole table page.

Targets (issue 34; exit status 1 on a miss): a changed fragment ≤ 1.5× and a move POST ≤ 2× the
bare view; the bare view ≤ 1.5× the view with no session. The CPU is read from /proc in clock
ticks (10 ms): a block is ``TABLES`` requests, and the figures are the sums over every round.

Each kind's CPU is also split: "loop" is the worker's main thread, its event loop (uvicorn, the
ASGI layers in front of Django, the answer's sending), the rest is Django's (the request's
thread, and for a move the publisher's).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import urlencode

from tests.bench.bench_capacity import (
    PG_SERVER,
    ROOT,
    Server,
    collect_static,
    production_env,
    session_key_for,
)

CSRF = "benchmarkcsrftokenbenchmarkcsrf0"  # 32 characters: a CSRF secret as the cookie holds it
GAMES = ["escoba", "schotten_totten", "scout"]
KINDS = [
    "no session",
    "bare view",
    "poll 204",
    "changed fragment",
    "spectator fragment",
    "clocked spectator",
    "move POST",
    "page",
]
SPECTATORS = 3  # members watching every table
CLOCKED = 6  # tables on a live clock, watched by the same members
TARGETS = {"changed fragment": 1.5, "move POST": 2.0}  # × the bare view
BARE_TARGET = 1.5  # the bare view × the view with no session


class Table:
    def __init__(self, game: str, users, rules_slug: str = "standard"):
        from games import writes
        from games.models import RuleVariant

        rules = RuleVariant.objects.get(game=game, slug=rules_slug)
        match = writes.create_match(users[0], rules, 2, ["open"])
        writes.join_match(match.pk, users[1])
        self.game, self.pk, self.users, self.rules_slug = game, match.pk, users, rules_slug

    def now(self):
        from games.models import Match

        return Match.objects.get(pk=self.pk)


def clocked_rules() -> str:
    """Each game's standard rules on a live clock (30 min + 5 s a move), as a house rule
    of their own: its slug."""
    from games.models import Clock, RuleVariant

    for rules in RuleVariant.objects.filter(slug="standard"):
        rules.pk, rules.slug = None, "bench-clocked"
        rules.name_es = rules.name_en = "Bench clocked"
        rules.clock, rules.clock_minutes, rules.clock_increment = Clock.LIVE, 30, 5
        rules.save()
    return "bench-clocked"


def move_request(base: str, mover, table: Table, match, code: str) -> tuple:
    """The move ``code`` at ``match`` by the ``mover``'s client, as htmx sends it: a request
    for ``block``."""
    return (
        mover,
        "POST",
        f"{base}/play/m/{table.pk}/move/",
        {
            "content": urlencode({"code": code, "v": match.version}),
            "headers": {
                "Content-Type": "application/x-www-form-urlencoded",
                "HX-Request": "true",
                "X-CSRFToken": CSRF,
            },
        },
        200,
    )


def poll_url(base: str, table: Table, **shown) -> str:
    """The poll of a page showing ``shown`` (its version ``v``, perhaps its status ``s``)."""
    return f"{base}/play/m/{table.pk}/poll/?" + urlencode(shown)


def changed_url(base: str, table: Table, match) -> str:
    """The poll of a page showing ``match``'s version, once the next move made it stale."""
    return poll_url(base, table, v=match.version, s="playing")


def choose(match) -> tuple[int, str]:
    engine = match.engine
    state = engine.load(match.state)
    seat = engine.to_move(state)[0]
    return seat, engine.legal_moves(state, seat)[0].code


def now_playing(tables: list[Table], i: int):
    """The match at ``tables[i]`` as it is now; a table whose match ended is opened anew."""
    from games.models import Match

    table = tables[i]
    match = table.now()
    if match.status != Match.Status.PLAYING:
        tables[i] = table = Table(table.game, table.users, table.rules_slug)
        match = table.now()
    return match


def measure(args) -> dict[str, dict[str, tuple[float, float]]]:
    """CPU ms per request of each kind, for each checkout served ("this", "compared"): the
    worker's, and of it its event loop's."""
    import httpx
    from django.contrib.auth import get_user_model
    from django.core.management import call_command

    call_command("migrate", verbosity=0, interactive=False)
    User = get_user_model()
    count = 2 * (args.tables + CLOCKED)
    users = [User.objects.create_user(f"cpu{i}", password=None) for i in range(count)]
    watchers = [User.objects.create_user(f"watch{i}", password=None) for i in range(SPECTATORS)]
    users += watchers
    cookies = {u.pk: f"sessionid={session_key_for(u)}; csrftoken={CSRF}" for u in users}
    clients = {pk: httpx.Client(headers={"Cookie": c}, timeout=30) for pk, c in cookies.items()}
    anonymous = httpx.Client(timeout=30)
    tables = [Table(GAMES[i % len(GAMES)], users[2 * i : 2 * i + 2]) for i in range(args.tables)]
    on_clock = clocked_rules()
    clocked = [
        Table(GAMES[i % len(GAMES)], users[2 * i : 2 * i + 2], on_clock)
        for i in range(args.tables, args.tables + CLOCKED)
    ]
    watching = [clients[w.pk] for w in watchers]
    roots = {"this": ROOT}
    if args.compare:
        roots["compared"] = Path(args.compare).resolve()
    seconds = {name: dict.fromkeys(KINDS, 0.0) for name in roots}
    loop_seconds = {name: dict.fromkeys(KINDS, 0.0) for name in roots}
    counts = {name: dict.fromkeys(KINDS, 0) for name in roots}

    def send(name: str, kind: str, request) -> None:
        """``request``: (client, method, url, kwargs, status wanted)."""
        client, method, url, kwargs, wanted = request
        response = client.request(method, url, **kwargs)
        if response.status_code != wanted:
            log = servers[name].log_path
            tail = log.read_text()[-3000:] if log.exists() else ""
            raise RuntimeError(f"{kind}: {method} {url}: {response.status_code}\n{tail}")

    def block(name: str, kind: str, requests) -> None:
        """``requests``: what ``send`` takes, for one block."""
        server = servers[name]
        before, loop_before = server.cpu_seconds(), server.loop_cpu_seconds()
        for request in requests:
            send(name, kind, request)
        seconds[name][kind] += server.cpu_seconds() - before
        loop_seconds[name][kind] += server.loop_cpu_seconds() - loop_before
        counts[name][kind] += len(requests)

    with tempfile.TemporaryDirectory() as folder, contextlib.ExitStack() as stack:
        env = production_env(
            **args.where,
            DJANGO_SETTINGS_MODULE="tests.bench.bench_server_settings",
            AXES_ENABLED="0",
        )
        servers = {
            name: stack.enter_context(
                Server(args.port + i, 1, env, Path(folder) / f"{name}.log", root=root)
            )
            for i, (name, root) in enumerate(roots.items())
        }
        # The first round on each server warms its worker up; then the servers take turns.
        for round_ in range(len(servers) * (args.rounds + 1)):
            name = list(servers)[round_ % len(servers)]
            base = f"http://127.0.0.1:{servers[name].port}"
            if round_ == len(servers):
                for name_ in servers:
                    seconds[name_].update(dict.fromkeys(KINDS, 0.0))
                    loop_seconds[name_].update(dict.fromkeys(KINDS, 0.0))
                    counts[name_].update(dict.fromkeys(KINDS, 0))
            matches = [now_playing(tables, i) for i in range(len(tables))]
            moves, fragments, spectated, polls, pages = [], [], [], [], []
            htmx = {"headers": {"HX-Request": "true"}}
            for table, match in zip(tables, matches, strict=True):
                seat, code = choose(match)
                other = clients[table.users[1 - seat].pk]
                moves.append(move_request(base, clients[table.users[seat].pk], table, match, code))
                changed = changed_url(base, table, match)
                fragments.append((other, "GET", changed, htmx, 200))
                spectated += [(watcher, "GET", changed, htmx, 200) for watcher in watching]
                unchanged = poll_url(base, table, v=match.version + 1)
                polls.append((other, "GET", unchanged, htmx, 204))
                pages.append((other, "GET", f"{base}/play/m/{table.pk}/", {}, 200))
            # The clocked tables' moves, unmeasured: only their spectators' fetches are.
            clocked_spectated = []
            for i, table in enumerate(clocked):
                match = now_playing(clocked, i)
                seat, code = choose(match)
                mover = clients[table.users[seat].pk]
                send(name, "clocked move", move_request(base, mover, table, match, code))
                changed = changed_url(base, table, match)
                clocked_spectated += [(w, "GET", changed, htmx, 200) for w in watching]
            someone = [clients[t.users[0].pk] for t in tables]
            nobody = [(anonymous, "GET", f"{base}/nosession/", {}, 200)] * len(tables)
            block(name, "no session", nobody)
            block(name, "bare view", [(c, "GET", f"{base}/bare/", {}, 200) for c in someone])
            block(name, "move POST", moves)
            block(name, "changed fragment", fragments)
            block(name, "spectator fragment", spectated)
            block(name, "clocked spectator", clocked_spectated)
            block(name, "poll 204", polls)
            if round_ // len(servers) % 4 == 0:
                block(name, "page", pages)
    for client in [*clients.values(), anonymous]:
        client.close()
    return {
        name: {
            kind: (
                seconds[name][kind] * 1000 / counts[name][kind],
                loop_seconds[name][kind] * 1000 / counts[name][kind],
            )
            for kind in KINDS
            if counts[name][kind]
        }
        for name in roots
    }


def beside_compared(cpu: dict[str, dict[str, tuple[float, float]]]) -> list[str]:
    """Each kind's CPU here against the compared checkout's, in ms and as a factor: the ratios
    to the bare view above move with the bare view itself, which a cheaper fixed cost makes
    cheaper too, so the absolute figures say whether a kind itself got cheaper."""
    lines = ["this checkout against the compared one, CPU per request:"]
    for kind in KINDS:
        if kind not in cpu["this"] or kind not in cpu["compared"]:
            continue
        now, before = cpu["this"][kind][0], cpu["compared"][kind][0]
        lines.append(
            f"  {kind:<20} {now:>8.2f} against {before:>6.2f} ms: {before / now:.2f}x cheaper"
            if now <= before
            else f"  {kind:<20} {now:>8.2f} against {before:>6.2f} ms: {now / before:.2f}x dearer"
        )
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", choices=["sqlite", "postgres"], default="sqlite")
    parser.add_argument("--rounds", type=int, default=40)
    parser.add_argument("--tables", type=int, default=20)
    parser.add_argument("--port", type=int, default=int(os.environ.get("BENCH_PORT", 8570)))
    parser.add_argument(
        "--compare", metavar="DIR", help="another checkout, served beside this one (the next port)"
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        workdir = Path(folder)
        collect_static(workdir)
        if args.compare:
            collect_static(workdir, Path(args.compare).resolve())
        if args.db == "postgres":
            import psycopg

            name = os.environ.get("BENCH_PG_DB", "cardclub_capacity") + "_cpu"
            with psycopg.connect(f"{PG_SERVER}/postgres", autocommit=True) as db:
                db.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
                db.execute(f'CREATE DATABASE "{name}"')
            args.where = {"DATABASE_URL": f"{PG_SERVER}/{name}"}
        else:
            args.where = {"SQLITE_PATH": str(workdir / "cpu.sqlite3")}
        env = production_env(
            **args.where, DJANGO_SETTINGS_MODULE="tests.bench.bench_server_settings"
        )
        os.environ.update(env, AXES_ENABLED="0")
        import django

        django.setup()
        load = os.getloadavg()[0]
        started = time.monotonic()
        try:
            cpu = measure(args)
        finally:
            if args.db == "postgres":
                from django.db import connections

                connections.close_all()
                with psycopg.connect(f"{PG_SERVER}/postgres", autocommit=True) as db:
                    db.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    print(f"Server CPU per request ({args.db}, gunicorn + 1 uvicorn worker, blocks taking turns)")
    if args.compare:
        print(f"this checkout beside {args.compare}, the rounds taking turns")
    ok = True
    for name, both in cpu.items():
        figures = {kind: total for kind, (total, _loop) in both.items()}
        print(f"{name}:")
        print(f"  {'request':<20} {'CPU ms':>8} {'loop':>6} {'Django':>7} {'x bare':>7}   target")
        bare = figures["bare view"]
        for kind in [kind for kind in KINDS if kind in figures]:
            ratio = figures[kind] / bare
            target = ""
            met = True
            if kind in TARGETS:
                target = f"≤ {TARGETS[kind]}x"
                met = ratio <= TARGETS[kind]
            if kind == "bare view":
                ratio_free = bare / figures["no session"]
                target = f"{ratio_free:.2f}x no session, ≤ {BARE_TARGET}x"
                met = ratio_free <= BARE_TARGET
            if name == "this":
                ok = ok and met
            loop = both[kind][1]
            print(
                f"  {kind:<20} {figures[kind]:>8.2f} {loop:>6.2f} {figures[kind] - loop:>7.2f}"
                f" {ratio:>7.2f}   {target}"
            )
    if args.compare:
        print("\n".join(beside_compared(cpu)))
    print(
        f"({args.rounds} rounds of {args.tables} tables, {time.monotonic() - started:.0f} s;"
        f" load {load:.2f} before, {os.getloadavg()[0]:.2f} after)"
    )
    print("PASS" if ok else "FAIL: a target was missed")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
