"""Capacity: N simulated tables of two members against a real server (issue 22).

Run: ``.venv/bin/python -m tests.bench.bench_capacity`` (``make bench`` runs it too). For each
database (SQLite on a temporary file; PostgreSQL at 127.0.0.1:5432 when it answers, in a
database of its own that is created and dropped) this migrates a fresh database, collects the
static files, and serves the club as the README's production section says: gunicorn with
uvicorn workers (2), production settings (no DEBUG) apart from the HTTPS redirect. It seats two
members at each of N tables (the games taken in turn from ``games.registry``, standard house
rules) with sessions made against the same database, then plays as people do, in real HTTP with
the session cookie and the CSRF header (``capacity_http.py``: a keep-alive client on bare
asyncio, cheap because the generator shares the machine with the server):

- the member to move (the page shows move forms) thinks 1–4 s (seeded) and posts one of the
  moves the page offers, as htmx does;
- the other member waits for news, in one of two modes (``--mode``):
  ``live`` (the main path, the default): every member's page holds its table's SSE stream
  (``/play/m/<id>/live/``, ``capacity_stream.py``; its first event is the current version) and,
  when the stream announces a newer version, fetches the table's own poll URL (``?v=<version>``,
  ``HX-Request``) at once, as ``static/js/live.js`` does; a refused or closed stream is an error
  and that page polls. ``poll``: the page polls that URL every ``data-poll-ms`` (2 s), as
  ``live.js`` does while no stream is open. ``both`` runs each on a fresh database;
- now and then a member opens the lobby; a finished match is replaced: the first member opens a
  new table through the new-table form, the second takes the seat.

For each N of the ladder it reports p50/p95/p99 per kind of request (move, changed poll,
unchanged poll 204, page, lobby, new table, join; in live mode the "polls" are the fetches a push
caused) and, live, push→fragment: from a move's commit (the mover's answer or the other page's
push, whichever the generator saw first) to the other member holding the fragment of that
version; throughput, errors (any status but 2xx/3xx,
timeouts, refused moves are shown apart), the CPU the load generator used (and its event-loop
lag: latencies are measured in the same loop) beside the server's and PostgreSQL's, and the load
average. Only requests started after the warm-up count.

Target (issue 22), checked on the measured figures: 100 tables with move p95 <= 100 ms and 0
errors on every database run; live, also push→fragment p95 <= 300 ms (issue 34). The largest N that holds is printed. Exits 1 on a miss; when the
ladder stops below 100 tables the target is not checked (said so). Figures need an otherwise
idle 2-core machine.

    python -m tests.bench.bench_capacity                          # both databases, 10..200 tables
    python -m tests.bench.bench_capacity --db sqlite --tables 10,50 --duration 20
    python -m tests.bench.bench_capacity --mode both --db postgres --tables 50,100
    python -m tests.bench.bench_capacity --tables 100,200,400 --duration 120 --workers 2
    python -m tests.bench.bench_capacity --db postgres --tables 200,250 --compare /tmp/before

``--compare DIR`` serves another checkout (``git worktree add /tmp/before <commit>``) in turn
with this one at each step of the ladder, each on a fresh database, so that the commit before
a change is measured in the same run on the same machine (issue 34); the targets are this
checkout's.

``--restart-at SECONDS`` (live only) restarts the server as a deploy does, that many seconds into
each step's measured window: SIGHUP to gunicorn's master, which starts new workers and stops the
old ones. The pages then open their streams again as live.js does (``capacity_stream.py``: after
a ``renew``, within 3 s and with nothing fetched; after an end without it, a fetch at once and a
new stream after the back-off); a stream being opened again is no error, one that could not be
by the end of the step is. The step's report adds what the restart did to the streams, how long
pages went without one, and the requests and errors by cause of the 10 s after it (with
``--compare``, each checkout is restarted alike)::

    python -m tests.bench.bench_capacity --db postgres --tables 100 --duration 30 --restart-at 12
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import multiprocessing
import os
import random
import re
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from tests.bench import capacity_http
from tests.bench.capacity_stream import Backoff, Stream
from tests.bench.stats import percentile
from tests.load import server as load_server

ROOT = Path(__file__).resolve().parents[2]
LADDER = [10, 50, 100, 200]
TARGET_TABLES = 100
TARGET_MOVE_P95_MS = 100.0
TARGET_PUSH_P95_MS = 300.0  # issue 34: commit to the other member holding the new fragment
KINDS = ["move", "poll changed", "poll 204", "page", "lobby", "new table", "join", "push→fragment"]
# Kinds that time something other than one request: push→fragment is a move's commit to the
# fetch it caused, which is already counted as a "poll changed".
NOT_REQUESTS = {"push→fragment"}
MODES = ["live", "poll"]
FRAGMENTS = ["move", "poll changed"]  # the table fragments whose size the report shows
FRAGMENT_TARGET_BYTES = 10 * 1024  # issue 22's target for every fragment (not checked here)
THINK_SECONDS = (1.0, 4.0)
POLL_MS = 2000
LOBBY_SHARE = 0.04  # of a member's polls and moves: to the lobby and back every ~50 s
TIMEOUT_SECONDS = 10.0
RESTART_SECONDS = 10.0  # --restart-at: the errors and requests of this long after the HUP
SAMPLE_SECONDS = 0.5  # --restart-at: how often the CPU of each server process is read
KEEPALIVE_SECONDS = 30.0  # an idle connection's life in the generator: shorter than the server's
PG_SERVER = os.environ.get("BENCH_PG_SERVER", "postgres://postgres@127.0.0.1:5432")
PG_NAME = os.environ.get("BENCH_PG_DB", "cardclub_capacity")

SECTION = re.compile(r'<section id="table"([^>]*)>')
ATTRIBUTE = re.compile(r'([a-z-]+)="([^"]*)"')
FORM = re.compile(r"<form([^>]*)>(.*?)</form>", re.S)
# A move form sends its version and a code: its own hidden code, or the code of the submit
# button pressed (one form may hold many buttons, e.g. a hand's sets).
CODE = re.compile(r'name="code" value="([^"]*)"')
# A move chosen in two steps: its button's code holds "*" and the form also sends the radio
# "pick" (a card from the hand), which the move view puts in place of the "*".
PICK = re.compile(r'name="pick" value="([^"]*)"')
# Or several in one move: checkboxes "pick" (the table cards an Escoba card takes), which the
# move view joins with "+" in place of the "*".
CHECKBOX = re.compile(r'type="checkbox" name="pick" value="([^"]*)"')
VERSION = re.compile(r'name="v" value="(\d+)"')
ERROR_IN_TABLE = 'class="message error" role="alert"'
FINISHED = 'class="panel result"'


# --- The server, as production runs it ----------------------------------------------------------


def server_command(port: int, workers: int, bind: str | None = None) -> list[str]:
    """gunicorn as production runs it; ``bind`` (e.g. ``fd://5``, a socket the caller holds)
    instead of the port."""
    bin_dir = Path(sys.executable).parent
    return [
        str(bin_dir / "gunicorn"),
        "cardclub.asgi:application",
        "-k",
        "cardclub.server.Worker",
        "--keep-alive",
        "75",
        "--bind",
        bind or f"127.0.0.1:{port}",
        "--workers",
        str(workers),
        "--timeout",
        "60",
        "--graceful-timeout",
        "5",
        # As the README: the site alone reads X-Forwarded-For/-Proto (TRUSTED_PROXY_COUNT).
        "--forwarded-allow-ips",
        "",
        "--log-level",
        "warning",
    ]


def production_env(**extra: str) -> dict[str, str]:
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in {"DATABASE_URL", "SQLITE_PATH", "SQLITE_TEST_PATH", "DEBUG"}
    }
    env.update(
        DJANGO_SETTINGS_MODULE="cardclub.settings",
        DEBUG="0",
        SECRET_KEY="capacity-bench-only-secret-key-not-for-anything-else-0123456789",
        ALLOWED_HOSTS="127.0.0.1,localhost",
        # Plain HTTP on the loopback: the TLS proxy of a real deployment is not measured.
        SECURE_SSL_REDIRECT="0",
        SECURE_HSTS_SECONDS="0",
        LOG_LEVEL="ERROR",
    )
    env.update(extra)
    return env


class Server(load_server.Server):
    """gunicorn with uvicorn workers, started, awaited and stopped as the race suite does it."""

    def __init__(
        self,
        port: int,
        workers: int,
        env: dict[str, str],
        log_path: Path,
        listening=None,
        root=load_server.ROOT,
    ):
        """``listening``: a socket bound by the caller, which gunicorn inherits (``fd://``), so
        that no other process can take the port between choosing it and serving on it.
        ``root``: the checkout served (this one, or another commit's to compare with)."""
        bind = f"fd://{listening.fileno()}" if listening is not None else None
        super().__init__(
            port,
            env,
            log_path,
            command=server_command(port, workers, bind),
            pass_fds=[listening.fileno()] if listening is not None else (),
            root=root,
        )

    def cpu_seconds(self) -> float:
        """User + system CPU of the master and its workers so far."""
        return cpu_seconds(
            lambda pid, ppid, _cmd: pid == self.process.pid or ppid == self.process.pid
        )

    def worker_cpu_seconds(self) -> dict[int, float]:
        """Each worker's CPU so far, by process id: how evenly they share the work."""
        return cpu_by_process(lambda _pid, ppid, _cmd: ppid == self.process.pid)

    def loop_cpu_seconds(self) -> float:
        """The CPU so far of the workers' main threads, which run their event loops: uvicorn,
        the ASGI layers in front of Django and the sending of each answer. The rest of a
        worker's CPU is the request threads' (cardclub/handler.py) and the publisher's."""
        total = 0.0
        for pid in self.worker_cpu_seconds():
            with contextlib.suppress(OSError):
                total += stat_cpu(stat_fields(Path(f"/proc/{pid}/task/{pid}/stat").read_text()))
        return total


def stat_fields(stat: str) -> list[str]:
    """The fields of a /proc ``stat`` file after the command's name (which may hold spaces):
    the parent's id is [1], user and system CPU in clock ticks [11] and [12]."""
    return stat.rsplit(")", 1)[1].split()


def stat_cpu(fields: list[str]) -> float:
    """User + system CPU seconds from ``stat_fields``."""
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def cpu_by_process(wanted) -> dict[int, float]:
    """The CPU time of each process ``wanted(pid, ppid, cmdline)`` picks, by id, from /proc."""
    found = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        fields = stat_fields(stat)
        if wanted(int(entry.name), int(fields[1]), cmdline):
            found[int(entry.name)] = stat_cpu(fields)
    return found


def cpu_seconds(wanted) -> float:
    """The CPU time of every process ``wanted(pid, ppid, cmdline)`` picks, from /proc."""
    return sum(cpu_by_process(wanted).values())


def machine_busy_seconds() -> float:
    """CPU time every process of the machine has used so far (all cores), from /proc/stat:
    what the server and the generator used is subtracted to show how busy the rest was."""
    fields = Path("/proc/stat").read_text().splitlines()[0].split()[1:]
    user, nice, system, _idle, _iowait, irq, softirq, steal = map(int, fields[:8])
    return (user + nice + system + irq + softirq + steal) / os.sysconf("SC_CLK_TCK")


def postgres_cpu_seconds(database: str) -> float:
    """The CPU of PostgreSQL's backends serving ``database`` (their title names it)."""
    return cpu_seconds(lambda _pid, _ppid, cmd: cmd.startswith("postgres:") and database in cmd)


# --- The people at the tables -------------------------------------------------------------------


@dataclass
class Member:
    username: str
    session: str
    csrf: str = field(default_factory=lambda: secrets.token_hex(16))

    def headers(self, htmx: bool = False) -> dict[str, str]:
        headers = {
            "Cookie": f"sessionid={self.session}; csrftoken={self.csrf}",
            "X-CSRFToken": self.csrf,
        }
        if htmx:
            headers["HX-Request"] = "true"
        return headers


@dataclass
class Table:
    game: str
    variant: int
    members: list[Member]
    match_id: int
    # When each version of the current match was known committed: the mover's answer (the
    # generator's monotonic clock). Both members of a table are in the same generator process.
    committed: dict[int, float] = field(default_factory=dict)


@dataclass
class Shown:
    """What a member's page shows of a table."""

    match_id: int
    version: int
    poll_url: str | None
    poll_ms: int
    forms: list[tuple[str, str, str]]  # every move offered: (action, code, version)
    # The moves offered in two steps, by code: what the form sends (the button's code, the
    # pick: one card, or the list of checked ones).
    two_step: dict[str, tuple[str, str | list[str]]]
    finished: bool
    refused: bool


def cards_making_15(code: str, cards: list[str]) -> list[str] | None:
    """The table cards a member checks to capture with the card an Escoba button
    ``c:<card>:*`` plays: some that make 15 with it (a card's value is the number in its id), in
    table order, or ``None``. A subset sum: each total reached keeps the first cards found."""
    need = 15 - int(code.split(":")[1][:-1])
    found: dict[int, list[str]] = {0: []}
    for card in cards:
        value = int(card[:-1])
        for total, picked in list(found.items()):
            if total + value <= need and total + value not in found:
                found[total + value] = [*picked, card]
    return found.get(need) or None


def read_table(body: str, match_id: int) -> Shown | None:
    found = SECTION.search(body)
    if found is None:
        return None
    attributes = dict(ATTRIBUTE.findall(found.group(1)))
    forms, two_step = [], {}
    for opening, inner in FORM.findall(body):
        form = dict(ATTRIBUTE.findall(opening))
        version = VERSION.search(inner)
        if "table-form" in form.get("class", "").split() and version:
            checkboxes = CHECKBOX.findall(inner)
            radios = [pick for pick in PICK.findall(inner) if pick not in checkboxes]
            for code in CODE.findall(inner):
                # A button whose code holds "*" is one move per card that may be picked, or
                # with checkboxes one move: the cards a member would check for it.
                if "*" not in code:
                    moves = [(code, None)]
                elif radios:
                    moves = [(code.replace("*", pick, 1), pick) for pick in radios]
                else:
                    picks = cards_making_15(code, checkboxes)
                    moves = [(code.replace("*", "+".join(picks), 1), picks)] if picks else []
                for move, pick in moves:
                    forms.append((form["action"], move, version.group(1)))
                    if pick is not None:
                        two_step[move] = (code, pick)
    return Shown(
        match_id=match_id,
        version=int(attributes.get("data-version", "0")),
        poll_url=attributes.get("hx-get", "").replace("&amp;", "&") or None,
        poll_ms=int(attributes.get("data-poll-ms") or POLL_MS),
        forms=forms,
        two_step=two_step,
        finished=FINISHED in body,
        refused=ERROR_IN_TABLE in body,
    )


class Recorder:
    def __init__(self):
        self.window: tuple[float, float] = (float("inf"), float("inf"))
        self.latencies: dict[str, list[float]] = defaultdict(list)
        self.errors: Counter[str] = Counter()
        self.samples: list[str] = []
        self.refused = 0
        self.retried = 0
        self.causes: Counter[str] = Counter()  # "move 500", "poll ReadTimeout"…
        self.lag: list[float] = []
        self.sizes: dict[str, dict[str, list[int]]] = defaultdict(lambda: defaultdict(list))
        # --restart-at: the RESTART_SECONDS after the server's HUP, and what happened in them
        # (requests by kind, errors by cause: when they failed, not when they were sent, so
        # that a request cut by the stop counts); what the reconnecting streams went through.
        self.restart: tuple[float, float] | None = None
        self.restart_requests: Counter[str] = Counter()
        self.restart_causes: Counter[str] = Counter()
        self.stream_events: Counter[str] = Counter()  # renew, closed, reopened, reopen failed
        self.streams_renewed = 0
        self.streams_closed = 0  # ended without a renew at least once
        self.gaps: list[float] = []  # seconds a page was without an open stream

    def counts(self, started: float) -> bool:
        return self.window[0] <= started < self.window[1]

    def after_restart(self, moment: float) -> bool:
        return self.restart is not None and self.restart[0] <= moment < self.restart[1]

    def error(self, started: float, kind: str, what: str) -> None:
        cause = f"{kind} {what.rsplit(': ', 1)[-1]}"
        if self.after_restart(time.monotonic()):
            self.restart_causes[cause] += 1
        if self.counts(started):
            self.errors[kind] += 1
            self.causes[cause] += 1
            if len(self.samples) < 10:
                self.samples.append(f"{kind}: {what}")

    def stream_ended(self, stream: Stream, now: float, at_end: bool) -> None:
        """A reconnecting stream closed by its page (a page left, the step's end): what it went
        through inside the window. One still down at the end of the step that had tried to
        open again and failed is an error; one merely waiting for its moment to reopen is not."""
        events = [what for at, what in stream.log if self.counts(at)]
        self.stream_events.update(events)
        self.streams_renewed += "renew" in events
        self.streams_closed += "closed" in events
        self.gaps += [length for down, length in stream.gaps if self.counts(down)]
        if stream.down_since is not None and self.counts(stream.down_since):
            self.gaps.append(now - stream.down_since)
            if at_end and stream.reopen_failures:
                why = stream.last_failure.replace(": ", " ")
                self.error(
                    stream.down_since,
                    "stream",
                    f"GET live {stream.match_id}: not reopened by the end "
                    f"({stream.reopen_failures} tries, the last {why})",
                )


class Person:
    def __init__(
        self, member, table, seat, client, recorder, rng, stop_at, live=False, reconnect=False
    ):
        self.member, self.table, self.seat = member, table, seat
        self.client, self.recorder, self.rng, self.stop_at = client, recorder, rng, stop_at
        self.seated_at = {table.match_id}
        # Live: the page holds its table's stream and fetches when told (the main path);
        # otherwise, or while its stream is refused or closed, it polls. With ``reconnect``
        # (--restart-at) a stream the server ends is opened again, as live.js does.
        self.live = live
        self.reconnect = reconnect
        self.stream: Stream | None = None
        self.last_poll = 0.0
        # Reconnecting, as live.js: a failed fetch is tried again after a back-off, no sooner
        # than the answer's Retry-After (without, the fetch is sent again at once).
        self.fetch_backoff = Backoff(random.Random(f"{member.username}-fetches" if member else 0))
        self.retry_after = 0.0  # of the last request that failed

    async def open_stream(self, match_id: int) -> None:
        """As a page does when it loads: the previous page's stream closed, its own opened."""
        await self.close_stream()
        if self.live:
            port, cookie = self.client.port, self.member.headers()["Cookie"]
            # Its own random numbers (for its delays), so that the person's choices stay the
            # seed's whatever the streams went through.
            rng = random.Random(f"{self.member.username}-{match_id}")
            self.stream = Stream(port, match_id, cookie, self.reconnect, rng).start()

    async def close_stream(self) -> None:
        if self.stream is not None:
            await self.stream.close()
            if self.stream.reconnect:
                now = time.monotonic()
                self.recorder.stream_ended(self.stream, now, at_end=now >= self.stop_at)
            self.stream = None

    async def holding_stream(self) -> bool:
        """Whether the page's stream is open (awaiting its answer if need be); a refused or
        closed stream is an error, reported once, and the page polls from then on."""
        stream = self.stream
        if stream is None:
            return False
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stream.opened.wait(), TIMEOUT_SECONDS)
        if stream.holding:
            return True
        if time.monotonic() < self.stop_at:
            why = stream.error or "no answer"
            self.recorder.error(time.monotonic(), "stream", f"GET live {stream.match_id}: {why}")
        if stream.reconnect:
            await self.close_stream()  # no answer yet: it must not open later behind the poll
        self.stream = None
        return False

    def held(self, before: int, shown: Shown | None, fetched: bool) -> None:
        """The page now holds ``shown`` (it held version ``before``): each version its stream
        announced up to it is delivered. A fetch after a push times each newer one from its
        commit (the mover's answer or the push, whichever came first) to now."""
        if self.stream is None or shown is None:
            return
        now = time.monotonic()
        for version in [v for v in self.stream.heard if v <= shown.version]:
            heard = self.stream.heard.pop(version)
            committed = self.table.committed.pop((shown.match_id, version), heard)
            start = min(heard, committed)
            if fetched and version > before and self.recorder.counts(start):
                self.recorder.latencies["push→fragment"].append((now - start) * 1000)

    async def request(self, kind, method, url, data=None, htmx=False):
        """One request; its latency under ``kind`` (a poll's kind is known by its answer).
        None on an error (recorded)."""
        started = time.monotonic()
        for attempt in (1, 2):
            try:
                response = await self.client.request(
                    method, url, data=data, headers=self.member.headers(htmx)
                )
                break
            except capacity_http.TransportError as error:
                # A browser sends a request again, once, when the kept-alive connection it
                # reused was closed before any of the answer came (a POST too: see
                # ConnectionClosed), and the benchmark sends a GET again after any failure
                # but a timeout; the latency counts from the first try and the retry is
                # reported. A timeout, a second failure or a POST partly answered is an error.
                resendable = method == "GET" and not isinstance(error, capacity_http.Timeout)
                if attempt == 1 and (resendable or getattr(error, "resendable", False)):
                    self.recorder.retried += self.recorder.counts(started)
                    continue
                self.recorder.error(started, kind, f"{method} {url}: {type(error).__name__}")
                if self.recorder.after_restart(started):
                    self.recorder.restart_requests[kind] += 1
                self.retry_after = 0.0
                return None
        elapsed = (time.monotonic() - started) * 1000
        if kind == "poll":
            kind = "poll 204" if response.status_code == 204 else "poll changed"
        if self.recorder.after_restart(started):
            self.recorder.restart_requests[kind] += 1
        # A redirect where a page or a fragment was asked for (to the login page, say) is no
        # more served than a 500: only the answer a browser would go on with counts.
        expected = (302,) if kind in ("new table", "join") else (200, 204)
        if response.status_code not in expected:
            self.recorder.error(started, kind, f"{method} {url}: {response.status_code}")
            self.retry_after = retry_after(response)
            return None
        if self.recorder.counts(started):
            self.recorder.latencies[kind].append(elapsed)
            if kind in FRAGMENTS:
                self.recorder.sizes[self.table.game][kind].append(len(response.content))
        return response

    async def sleep_until(self, moment: float) -> None:
        await asyncio.sleep(max(0.0, min(moment, self.stop_at) - time.monotonic()))

    async def run(self) -> None:
        try:
            await self.play()
        finally:
            await self.close_stream()

    async def play(self) -> None:
        await asyncio.sleep(self.rng.uniform(0, 2))  # people do not all arrive at once
        shown: Shown | None = None
        while time.monotonic() < self.stop_at:
            if shown is None or shown.match_id != self.table.match_id:
                match_id = self.table.match_id
                if match_id not in self.seated_at:  # the other member opened a new table
                    self.seated_at.add(match_id)
                    await self.request("join", "POST", f"/play/m/{match_id}/join/")
                response = await self.request("page", "GET", f"/play/m/{match_id}/")
                shown = read_table(response.text, match_id) if response is not None else None
                if shown is not None:
                    await self.open_stream(match_id)
                    self.held(shown.version, shown, fetched=False)
                if shown is None:
                    await self.sleep_until(time.monotonic() + 2)
                self.last_poll = time.monotonic()
                continue
            if shown.finished:
                await self.replace(shown)
                shown = None
                continue
            if shown.forms:
                thought = time.monotonic() + self.rng.uniform(*THINK_SECONDS)
                if self.reconnect:
                    before = shown
                    shown = await self.think(shown, thought)
                    if shown is not before:  # a fetch meanwhile brought another table
                        continue
                else:
                    await self.sleep_until(thought)
                if time.monotonic() >= self.stop_at:
                    break
                action, code, version = self.rng.choice(shown.forms)
                data = {"code": code, "v": version}
                if code in shown.two_step:  # as a browser sends it: the button and the pick
                    data["code"], data["pick"] = shown.two_step[code]
                response = await self.request("move", "POST", action, data=data, htmx=True)
                before = shown
                shown = read_table(response.text, shown.match_id) if response else None
                if response is None and self.reconnect:
                    # As live.js: the page stays as it was and says so; the member presses
                    # again (without, the page is loaded anew, as the benchmark always did).
                    shown = before
                if shown is not None and shown.refused:
                    self.recorder.refused += self.recorder.counts(time.monotonic())
                elif shown is not None and shown.version > before.version:
                    self.table.committed[(shown.match_id, shown.version)] = time.monotonic()
                    self.held(before.version, shown, fetched=False)
                self.last_poll = time.monotonic()
            elif shown.poll_url:
                if not await self.holding_stream():
                    await self.sleep_until(self.last_poll + shown.poll_ms / 1000)
                elif self.stream.reconnect:
                    await self.stream.wait_news(
                        shown.version, self.stop_at, self.last_poll, shown.poll_ms
                    )
                else:
                    await self.stream.wait_newer(shown.version, self.stop_at)
                if time.monotonic() >= self.stop_at:
                    break
                self.last_poll = time.monotonic()
                if self.stream is not None:
                    self.stream.owed = False  # this fetch is the one owed
                response = await self.request("poll", "GET", shown.poll_url, htmx=True)
                if response is None:
                    if self.reconnect:
                        wait = self.fetch_backoff.next(self.retry_after)
                        await self.sleep_until(time.monotonic() + wait)
                    continue
                self.fetch_backoff.reset()
                if response.status_code == 200:
                    before = shown.version
                    shown = read_table(response.text, shown.match_id) or shown
                    self.held(before, shown, fetched=True)
            else:  # a table with nothing to do and no poll: look again later
                await self.sleep_until(time.monotonic() + 2)
                shown = None
            if self.rng.random() < LOBBY_SHARE:
                # A look at the lobby, then back to the table: its page is loaded again.
                await self.request("lobby", "GET", "/play/")
                shown = None

    async def think(self, shown: Shown, until: float) -> Shown:
        """The member to move thinks until ``until``; its page meanwhile makes the fetches its
        reconnecting stream owes it (an end without renew, a new stream opened), as live.js does
        whoever is to move. The table it holds then: ``shown`` itself unless a fetch brought
        another."""
        while True:
            stream = self.stream
            if stream is None or not stream.reconnect or stream.error is not None:
                await self.sleep_until(until)
                return shown
            await stream.wait_owed(min(until, self.stop_at))
            if time.monotonic() >= min(until, self.stop_at):
                return shown
            if not stream.owed:
                continue  # its first open failed: it owes nothing, the member thinks on
            stream.owed = False
            if not shown.poll_url:
                continue
            self.last_poll = time.monotonic()
            response = await self.request("poll", "GET", shown.poll_url, htmx=True)
            if response is not None and response.status_code == 200:
                table = read_table(response.text, shown.match_id)
                if table is not None:
                    self.held(shown.version, table, fetched=True)
                    return table

    async def replace(self, finished: Shown) -> None:
        """The first member opens a new table of the same game; the second takes the seat."""
        if self.seat == 0:
            data = {"variant": self.table.variant, "players": 2, "seat_1": "open"}
            response = await self.request(
                "new table", "POST", f"/play/new/{self.table.game}/", data
            )
            found = re.search(
                r"/play/m/(\d+)/", response.headers.get("location", "") if response else ""
            )
            if found is None:
                await self.sleep_until(time.monotonic() + 2)
                return
            self.table.match_id = int(found.group(1))
            self.seated_at.add(self.table.match_id)
            return
        # The second member takes the seat (at the top of run()) once the table is open.
        while self.table.match_id == finished.match_id and time.monotonic() < self.stop_at:
            await self.sleep_until(time.monotonic() + POLL_MS / 1000)


def retry_after(response) -> float:
    """The seconds a 503 or 429 asks to wait (Retry-After in seconds; a date is not read)."""
    if response.status_code not in (503, 429):
        return 0.0
    try:
        return max(0.0, float(response.headers.get("retry-after", "0")))
    except ValueError:
        return 0.0


async def measure_lag(recorder: Recorder, stop_at: float) -> None:
    """How late the event loop wakes a 50 ms sleep: latencies are measured in this loop."""
    while time.monotonic() < stop_at:
        before = time.monotonic()
        await asyncio.sleep(0.05)
        if recorder.counts(before):
            recorder.lag.append((time.monotonic() - before - 0.05) * 1000)


async def generate(tables, port, window, seed, live, restart=None) -> dict:
    """Play ``tables`` [(index, table)] until the window ends; the raw figures of the requests
    started inside it, with this process's CPU over it. ``restart``: the moment the server is
    told to restart (--restart-at): the pages' streams are then opened again when it ends them,
    and what happens in the RESTART_SECONDS after it is told apart."""
    recorder = Recorder()
    recorder.window = window
    if restart is not None:
        recorder.restart = (restart, restart + RESTART_SECONDS)
    # Idle connections are dropped well before the server's keep-alive ends (75 s, README),
    # so the server seldom closes one as a request is sent on it (which is then sent again).
    # The pool needs no limit: a member has one request out at a time.
    client = capacity_http.Client(port, timeout=TIMEOUT_SECONDS, keepalive=KEEPALIVE_SECONDS)
    async with client:
        people = [
            # A person's choices depend on the seed, the table and the seat only, not on how
            # the tables are shared between the generator processes.
            Person(
                member,
                table,
                seat,
                client,
                recorder,
                random.Random(f"{seed}-{index}-{seat}"),
                window[1],
                live,
                reconnect=restart is not None,
            )
            for index, table in tables
            for seat, member in enumerate(table.members)
        ]
        tasks = [asyncio.create_task(person.run()) for person in people]
        tasks.append(asyncio.create_task(measure_lag(recorder, window[1])))
        await asyncio.sleep(max(0.0, window[0] - time.monotonic()))
        cpu, opened = time.process_time(), client.connections_opened
        await asyncio.sleep(max(0.0, window[1] - time.monotonic()))
        cpu, opened = time.process_time() - cpu, client.connections_opened - opened
        await asyncio.gather(*tasks)
    return {
        "latencies": dict(recorder.latencies),
        "errors": dict(recorder.errors),
        "causes": dict(recorder.causes),
        "samples": recorder.samples,
        "refused": recorder.refused,
        "retried": recorder.retried,
        "lag": recorder.lag,
        "sizes": {game: dict(kinds) for game, kinds in recorder.sizes.items()},
        "cpu": cpu,
        "connections": opened,
        "match_ids": {index: table.match_id for index, table in tables},
        "restart": {
            "requests": dict(recorder.restart_requests),
            "causes": dict(recorder.restart_causes),
            "stream_events": dict(recorder.stream_events),
            "streams_renewed": recorder.streams_renewed,
            "streams_closed": recorder.streams_closed,
            "gaps": recorder.gaps,
        },
    }


def generate_in_process(job) -> dict:
    return asyncio.run(generate(*job))


def requests_per_second(latencies: dict[str, list[float]], wall: float) -> float:
    """The HTTP requests answered per second: the CPU per request is the server's CPU over this."""
    return sum(len(v) for kind, v in latencies.items() if kind not in NOT_REQUESTS) / wall


def run_step(tables, args, server, pg_name) -> dict:
    """One step of the ladder: ``args.generators`` processes share the tables; this one reads
    the server's and PostgreSQL's CPU over the same window."""
    start = time.monotonic() + 0.5
    window = (start + args.warmup, start + args.warmup + args.duration)
    indexed = list(enumerate(tables))
    count = max(1, min(args.generators, len(tables)))
    live = args.mode == "live"
    hup = window[0] + args.restart_at if args.restart_at is not None else None
    jobs = [(indexed[i::count], args.port, window, args.seed, live, hup) for i in range(count)]
    wall = window[1] - window[0]
    # Forked: the tables and sessions are already in memory, and no connection is open.
    context = multiprocessing.get_context("fork")
    with ProcessPoolExecutor(count, mp_context=context) as pool:
        futures = [pool.submit(generate_in_process, job) for job in jobs]
        loadavg_before = os.getloadavg()[0]
        time.sleep(max(0.0, window[0] - time.monotonic()))
        if hup is None:
            cpu = (server.cpu_seconds(), pg_cpu(pg_name), machine_busy_seconds())
            per_worker = server.worker_cpu_seconds()
            time.sleep(max(0.0, window[1] - time.monotonic()))
            cpu_after = (server.cpu_seconds(), pg_cpu(pg_name), machine_busy_seconds())
            per_worker_after = server.worker_cpu_seconds()
            used = {
                "server_cpu": (cpu_after[0] - cpu[0]) / wall,
                # Busiest first; a worker replaced during the step is left out.
                "worker_cpu": sorted(
                    (
                        (after - per_worker[pid]) / wall
                        for pid, after in per_worker_after.items()
                        if pid in per_worker
                    ),
                    reverse=True,
                ),
                "postgres_cpu": (cpu_after[1] - cpu[1]) / wall if pg_name else None,
                "machine_cpu": (cpu_after[2] - cpu[2]) / wall,
            }
        else:
            used = watch_restart(server, pg_name, window, hup)
        loadavg = os.getloadavg()[0]
        parts = [future.result() for future in futures]
    latencies: dict[str, list[float]] = defaultdict(list)
    errors: Counter[str] = Counter()
    causes: Counter[str] = Counter()
    sizes: dict[str, dict[str, list[int]]] = defaultdict(lambda: defaultdict(list))
    for part in parts:
        for kind, values in part["latencies"].items():
            latencies[kind].extend(values)
        errors.update(part["errors"])
        causes.update(part["causes"])
        for game, kinds in part["sizes"].items():
            for kind, values in kinds.items():
                sizes[game][kind].extend(values)
        for index, match_id in part["match_ids"].items():
            tables[index].match_id = match_id  # the next step goes on with the new matches
    kinds = {}
    for kind in KINDS:
        values = latencies.get(kind, [])
        kinds[kind] = {
            "count": len(values),
            "p50": percentile(values, 0.50),
            "p95": percentile(values, 0.95),
            "p99": percentile(values, 0.99),
            "errors": errors.get(kind, 0),
        }
    kinds["poll"] = {"errors": errors.get("poll", 0)}  # no answer, so neither kind of poll
    return {
        "tables": len(tables),
        "mode": args.mode,
        "generators": count,
        "kinds": kinds,
        "requests_per_s": requests_per_second(latencies, wall),
        "errors": sum(errors.values()),
        "error_causes": dict(causes.most_common()),
        "error_samples": [sample for part in parts for sample in part["samples"]][:10],
        "refused": sum(part["refused"] for part in parts),
        "retried": sum(part["retried"] for part in parts),
        # New connections: a worker answering "Connection: close" (cardclub/spread.py) costs one.
        "connections_per_s": sum(part["connections"] for part in parts) / wall,
        "loadgen_cpu": sum(part["cpu"] for part in parts) / wall,
        **{figure: value for figure, value in used.items() if figure != "hup_sent"},
        "lag_p99": max(percentile(part["lag"], 0.99) for part in parts),
        "sizes": {
            game: {kind: sizes_of(values) for kind, values in kinds_.items()}
            for game, kinds_ in sizes.items()
        },
        "loadavg": loadavg,
        "loadavg_before": loadavg_before,
        **(
            {"restart": restart_figures(parts, used["hup_sent"] - window[0], latencies, wall)}
            if hup is not None
            else {}
        ),
    }


def watch_restart(server, pg_name, window, hup) -> dict:
    """--restart-at: the server's master told to restart (SIGHUP: gunicorn starts new workers
    and stops the old ones gracefully) at ``hup``, and the CPU over the window of each process
    of the server and of PostgreSQL, read every SAMPLE_SECONDS: the old workers (and their
    database backends) end within the window and the new ones start in it, so reading the
    total at each end, as without a restart, would lose what the old ones used. What a process
    used after its last reading is lost (less than SAMPLE_SECONDS of it)."""
    master = server.process.pid

    def serving(pid, ppid, _cmd):
        return pid == master or ppid == master

    def database(_pid, _ppid, cmd):
        return cmd.startswith("postgres:") and pg_name in cmd

    def read():
        return cpu_by_process(serving), cpu_by_process(database) if pg_name else {}

    first = read()
    last = ({**first[0]}, {**first[1]})
    machine = machine_busy_seconds()
    sent = None
    while True:
        now = time.monotonic()
        if sent is None and now >= hup:
            os.kill(master, signal.SIGHUP)
            sent = now
        if now >= window[1]:
            break
        wake = min(window[1], now + SAMPLE_SECONDS, hup if sent is None else window[1])
        time.sleep(max(0.0, wake - now))
        for seen, now_ in zip(last, read(), strict=True):
            seen.update(now_)
    wall = window[1] - window[0]
    server_used = {pid: cpu - first[0].get(pid, 0.0) for pid, cpu in last[0].items()}
    return {
        "server_cpu": sum(server_used.values()) / wall,
        # The old workers and the new, busiest first (neither lived the whole step).
        "worker_cpu": sorted(
            (used / wall for pid, used in server_used.items() if pid != master), reverse=True
        ),
        "postgres_cpu": (
            sum(cpu - first[1].get(pid, 0.0) for pid, cpu in last[1].items()) / wall
            if pg_name
            else None
        ),
        "machine_cpu": (machine_busy_seconds() - machine) / wall,
        "hup_sent": sent,
    }


def restart_figures(parts: list[dict], hup_at: float, latencies, wall: float) -> dict:
    """What --restart-at's HUP did: the streams renewed, ended without a renew and opened
    again, how long pages went without a stream, and the requests and errors of the
    RESTART_SECONDS after it beside the step's average."""
    events: Counter[str] = Counter()
    requests: Counter[str] = Counter()
    causes: Counter[str] = Counter()
    streams: Counter[str] = Counter()
    gaps: list[float] = []
    for part in parts:
        restart = part["restart"]
        events.update(restart["stream_events"])
        requests.update(restart["requests"])
        causes.update(restart["causes"])
        streams.update(renewed=restart["streams_renewed"], closed=restart["streams_closed"])
        gaps += restart["gaps"]
    return {
        "at": hup_at,
        "renew": events["renew"],
        "streams_renewed": streams["renewed"],
        "closed": events["closed"],
        "streams_closed": streams["closed"],
        "reopened": events["reopened"],
        "reopen_failed": events["reopen failed"],
        "gap_p50": percentile(gaps, 0.50),
        "gap_max": max(gaps, default=0.0),
        "requests": dict(requests.most_common()),
        "requests_average": requests_per_second(latencies, wall) * RESTART_SECONDS,
        "causes": dict(causes.most_common()),
    }


def sizes_of(values: list[int]) -> dict:
    return {
        "count": len(values),
        "p50": percentile(values, 0.5),
        "max": max(values, default=0),
        "over": sum(value > FRAGMENT_TARGET_BYTES for value in values),
    }


def pg_cpu(name: str | None) -> float:
    return postgres_cpu_seconds(name) if name else 0.0


# --- One database, in its own process (Django's settings are fixed once read) -------------------


def session_key_for(user) -> str:
    """A database session logged in as ``user``, as the login form would leave it."""
    from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY
    from django.contrib.sessions.backends.db import SessionStore

    session = SessionStore()
    session[SESSION_KEY] = str(user.pk)
    session[BACKEND_SESSION_KEY] = "django.contrib.auth.backends.ModelBackend"
    session[HASH_SESSION_KEY] = user.get_session_auth_hash()
    session.create()
    return session.session_key


def populate(count: int) -> list[Table]:
    """``count`` started two-member tables, the games in turn, and a session per member made
    against the same database (as a login would leave it)."""
    from django.conf import settings
    from django.contrib.auth import (
        get_user_model,
    )
    from django.contrib.auth.hashers import make_password

    from games import registry, writes
    from games.models import RuleVariant

    if not settings.SESSION_ENGINE.endswith((".db", ".cached_db")):
        raise RuntimeError(
            f"SESSION_ENGINE {settings.SESSION_ENGINE}: the benchmark makes its sessions in the "
            "database; teach populate() how this engine's sessions are shared between processes"
        )
    User = get_user_model()
    password = make_password(None)  # unusable: nobody logs in with a password here
    users = User.objects.bulk_create(
        User(username=f"cap{i}", password=password) for i in range(2 * count)
    )
    users = list(User.objects.filter(username__startswith="cap").order_by("pk"))
    members = [Member(user.username, session_key_for(user)) for user in users]
    keys = registry.game_keys()
    variants = {key: RuleVariant.objects.get(game=key, slug="standard") for key in keys}
    tables = []
    for index in range(count):
        game = keys[index % len(keys)]
        first, second = users[2 * index], users[2 * index + 1]
        match = writes.create_match(first, variants[game], 2, ["open"])
        writes.join_match(match.pk, second)
        tables.append(Table(game, variants[game].pk, members[2 * index : 2 * index + 2], match.pk))
    return tables


def run_database(args) -> dict:
    import django

    django.setup()
    from django.core.management import call_command
    from django.db import connections

    call_command("migrate", verbosity=0, interactive=False)
    tables = populate(max(args.tables))
    connections.close_all()  # the load generator speaks HTTP only from here on
    pg_name = PG_NAME if args.db == ["postgres"] else None
    log = Path(args.workdir) / f"server-{args.db[0]}.log"
    steps = []
    root = Path(args.served_root) if args.served_root else ROOT
    with Server(args.port, args.workers, dict(os.environ), log, root=root) as server:
        fresh = server_memory(server.process.pid)
        for i, count in enumerate(args.tables):
            step = run_step(tables[:count], args, server, pg_name)
            steps.append(step)
            print(f"  {args.db[0]}: {count} tables done", file=sys.stderr, flush=True)
            if i == 0:
                time.sleep(QUIET_SECONDS)
                idle = server_memory(server.process.pid)
        after = recovery(server.process.pid, idle)
    memory = {
        "fresh_mb": sum(fresh.values()) / 1024,
        "idle_mb": sum(idle.values()) / 1024,
        **after,
        # A worker killed (its heartbeat missed, or out of memory) is replaced by a new pid.
        "workers_replaced": len(set(idle) - set(after["pids"])),
    }
    result = {"db": args.db[0], "mode": args.mode, "steps": steps, "memory": memory}
    if args.restart_at is not None:
        result["restart_at"] = args.restart_at
    return result


QUIET_SECONDS = 5
RECOVERY_SECONDS = 60


def server_memory(master: int) -> dict[int, int]:
    """Resident KB of gunicorn's master and each of its workers, by pid."""
    found = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            status = (entry / "status").read_text()
        except OSError:
            continue
        ppid = int(stat_fields(stat)[1])
        if int(entry.name) == master or ppid == master:
            rss = next(line for line in status.splitlines() if line.startswith("VmRSS"))
            found[int(entry.name)] = int(rss.split()[1])
    return found


def recovery(master: int, idle: dict[int, int]) -> dict:
    """After the ladder: the server's memory at its peak, and how long until it was back within
    20 % of its idle figure (None: not within RECOVERY_SECONDS)."""
    idle_kb = sum(idle.values())
    peak = server_memory(master)
    started = time.monotonic()
    back_after = None
    now = peak
    while time.monotonic() - started < RECOVERY_SECONDS:
        now = server_memory(master)
        if sum(now.values()) <= idle_kb * 1.2:
            back_after = time.monotonic() - started
            break
        time.sleep(2)
    return {
        "peak_mb": sum(peak.values()) / 1024,
        "end_mb": sum(now.values()) / 1024,
        "back_within_20pct_after_s": back_after,
        "pids": sorted(now),
    }


def database_env(db: str, workdir: Path, mode: str) -> dict[str, str] | None:
    """The environment of one database's run (a fresh database for each mode); None when
    PostgreSQL does not answer."""
    if db == "sqlite":
        return production_env(SQLITE_PATH=str(workdir / f"capacity-{mode}.sqlite3"))
    import psycopg

    try:
        with psycopg.connect(f"{PG_SERVER}/postgres", autocommit=True, connect_timeout=3) as db_:
            db_.execute(f'DROP DATABASE IF EXISTS "{PG_NAME}" WITH (FORCE)')
            db_.execute(f'CREATE DATABASE "{PG_NAME}"')
    except psycopg.OperationalError:
        return None
    return production_env(DATABASE_URL=f"{PG_SERVER}/{PG_NAME}")


def drop_postgres() -> None:
    import psycopg

    with psycopg.connect(f"{PG_SERVER}/postgres", autocommit=True, connect_timeout=3) as db_:
        db_.execute(f'DROP DATABASE IF EXISTS "{PG_NAME}" WITH (FORCE)')


def run_child(db: str, mode: str, args, workdir: Path, tables=None, root=None) -> dict:
    """One database's run of the ``tables`` ladder (``args.tables``) in a process of its own,
    serving this checkout or, with ``root``, another (``--compare``)."""
    env = database_env(db, workdir, mode)
    if env is None:
        return {"db": db, "mode": mode, "skipped": f"PostgreSQL does not answer at {PG_SERVER}"}
    if db == "sqlite":  # a fresh file for each run, as PostgreSQL's database is
        for suffix in ["", "-wal", "-shm"]:
            Path(env["SQLITE_PATH"] + suffix).unlink(missing_ok=True)
    out = workdir / f"figures-{db}-{mode}.json"
    tables = tables or args.tables
    command = [sys.executable, "-m", "tests.bench.bench_capacity", "--db", db, "--mode", mode]
    command += ["--tables", ",".join(map(str, tables)), "--duration", str(args.duration)]
    command += ["--warmup", str(args.warmup), "--seed", str(args.seed), "--port", str(args.port)]
    command += ["--workers", str(args.workers), "--generators", str(args.generators)]
    command += ["--workdir", str(workdir)]
    command += ["--child-output", str(out)]
    if args.restart_at is not None:
        command += ["--restart-at", str(args.restart_at)]
    if root is not None:
        command += ["--served-root", str(root)]
    try:
        completed = subprocess.run(command, cwd=ROOT, env=env, check=False)
    finally:
        if db == "postgres":
            drop_postgres()
    if completed.returncode != 0 or not out.exists():
        return {
            "db": db,
            "mode": mode,
            "error": f"the benchmark process exited {completed.returncode}",
        }
    result = json.loads(out.read_text())
    out.unlink()
    return result


def run_compared(db: str, mode: str, args, workdir: Path) -> list[dict]:
    """This checkout and ``args.compare`` served in turn, one ladder step at a time (each on a
    fresh database), the one that goes first changing from step to step: the machine's speed
    drifts within minutes, so a ladder run after the other would compare two machines. Two
    results, each with every step; the memory figures are of each one's last step."""
    runs = {"this": {"steps": []}, "compared": {"steps": []}}
    roots = {"this": None, "compared": Path(args.compare).resolve()}
    for i, count in enumerate(args.tables):
        for name in ["this", "compared"] if i % 2 == 0 else ["compared", "this"]:
            result = run_child(db, mode, args, workdir, tables=[count], root=roots[name])
            if "steps" not in result:
                return [{**result, "checkout": name}]
            runs[name]["steps"] += result["steps"]
            runs[name].update({k: v for k, v in result.items() if k != "steps"})
    return [{**run, "checkout": name} for name, run in runs.items()]


@contextmanager
def served(port: int, workers: int, database: Path, database_url: str | None = None):
    """The club served by gunicorn (``workers`` uvicorn workers, production settings, the
    benchmarks' bare view added) on ``database`` (or ``database_url``), for a benchmark that
    set up Django itself on that database: its base URL while it runs. The server checks the
    sessions the benchmark signed with its own key."""
    with tempfile.TemporaryDirectory(prefix="cardclub-bench-server-") as folder:
        workdir = Path(folder)
        collect_static(workdir)
        where = {"DATABASE_URL": database_url} if database_url else {"SQLITE_PATH": str(database)}
        env = production_env(
            **where,
            DJANGO_SETTINGS_MODULE="tests.bench.bench_server_settings",
            AXES_ENABLED="0",
            SECRET_KEY=os.environ["SECRET_KEY"],
        )
        with Server(port, workers, env, workdir / "server.log"):
            yield f"http://127.0.0.1:{port}"


def timed_get(client, url: str, **headers) -> float:
    """Client milliseconds of a GET through the server, from sending to the last byte."""
    start = time.perf_counter()
    response = client.get(url, headers=headers)
    elapsed = (time.perf_counter() - start) * 1000
    assert response.status_code == 200, (url, response.status_code)
    return elapsed


def collect_static(workdir: Path, root: Path = ROOT) -> None:
    """Production serves hashed static files: collect them once (into the STATIC_ROOT of the
    checkout ``root``)."""
    env = production_env(SQLITE_PATH=str(workdir / "collect.sqlite3"))
    subprocess.run(
        [sys.executable, "manage.py", "collectstatic", "--noinput", "-v", "0"],
        cwd=root,
        env=env,
        check=True,
    )


# --- The report ---------------------------------------------------------------------------------


def holds(step: dict) -> bool:
    """A step holds with 0 errors and move p95 on target; live, also push→fragment p95."""
    move, push = step["kinds"]["move"], step["kinds"]["push→fragment"]
    if step.get("mode") == "live" and not (push["count"] and push["p95"] <= TARGET_PUSH_P95_MS):
        return False
    return move["count"] > 0 and move["p95"] <= TARGET_MOVE_P95_MS and step["errors"] == 0


def run_name(result: dict) -> str:
    checkout = f", {result['checkout']}" if "checkout" in result else ""
    return f"{result['db']} ({result.get('mode', 'poll')}{checkout})"


def report(results: list[dict]) -> list[str]:
    lines = []
    for result in results:
        if "skipped" in result or "error" in result:
            lines.append(f"{run_name(result)}: {result.get('skipped') or result.get('error')}")
            continue
        for step in result["steps"]:
            postgres = step["postgres_cpu"]
            lines.append(
                f"\n{run_name(result)}, {step['tables']} tables: {step['requests_per_s']:.1f} "
                f"req/s, "
                f"{step['errors']} errors, {step['refused']} refused moves, {step['retried']} "
                f"requests sent again on a closed connection; {'holds' if holds(step) else 'MISS'}"
            )
            lines.append(
                f"  CPU (cores): load generator {step['loadgen_cpu']:.2f}, server "
                f"{step['server_cpu']:.2f}"
                + (f", PostgreSQL {postgres:.2f}" if postgres is not None else "")
                + f", whole machine {step['machine_cpu']:.2f}; per request (ms): load generator "
                f"{per_request(step, 'loadgen_cpu'):.1f}, server {per_request(step, 'server_cpu'):.1f}"
            )
            if step.get("worker_cpu"):
                replaced = " (old and new: the HUP replaced them)" if "restart" in step else ""
                lines.append(
                    f"  server workers{replaced} (cores, busiest first): "
                    + ", ".join(f"{cores:.2f}" for cores in step["worker_cpu"])
                    + f"; new connections {step['connections_per_s']:.1f}/s"
                )
            lines.append(
                f"  event-loop lag p99 {step['lag_p99']:.1f} ms; load average "
                f"{step['loadavg_before']:.2f} before the step, {step['loadavg']:.2f} after"
            )
            lines.append(
                f"  {'request':<13} {'count':>6} {'p50 ms':>8} {'p95 ms':>8} {'p99 ms':>8} "
                f"{'errors':>6}"
            )
            for kind in KINDS:
                row = step["kinds"][kind]
                lines.append(
                    f"  {kind:<13} {row['count']:>6} {row['p50']:>8.1f} {row['p95']:>8.1f} "
                    f"{row['p99']:>8.1f} {row['errors']:>6}"
                )
            if step["kinds"]["poll"]["errors"]:
                lines.append(
                    f"  poll (no answer)            errors {step['kinds']['poll']['errors']}"
                )
            if step["error_causes"]:
                lines.append(
                    "  errors by cause: "
                    + ", ".join(f"{cause} x{n}" for cause, n in step["error_causes"].items())
                )
            for sample in step["error_samples"]:
                lines.append(f"    {sample}")
            if "restart" in step:
                lines.extend(restart_report(step["restart"]))
    lines.extend(fragment_report(results))
    return lines


def restart_report(restart: dict) -> list[str]:
    """--restart-at's lines of a step: first what the HUP did to the pages' streams, then the
    RESTART_SECONDS after it, the errors by cause above all (what the members saw)."""
    requests = ", ".join(f"{kind} {n}" for kind, n in restart["requests"].items())
    causes = ", ".join(f"{cause} x{n}" for cause, n in restart["causes"].items())
    return [
        f"  restart (HUP to the master) at {restart['at']:.1f} s: renew heard "
        f"{restart['renew']} ({restart['streams_renewed']} streams), ended without renew "
        f"{restart['closed']} ({restart['streams_closed']} streams), reopened "
        f"{restart['reopened']}, reopening failed {restart['reopen_failed']}; without an open "
        f"stream p50 {restart['gap_p50']:.2f} s, longest {restart['gap_max']:.2f} s",
        f"  in the {RESTART_SECONDS:.0f} s after the HUP: {sum(restart['requests'].values())} "
        f"requests (the step's average {restart['requests_average']:.0f}): {requests or 'none'}",
        f"  errors in the {RESTART_SECONDS:.0f} s after the HUP: {causes or 'none'}",
    ]


def per_request(step: dict, figure: str) -> float:
    return 1000 * step[figure] / step["requests_per_s"] if step["requests_per_s"] else 0.0


def fragment_report(results: list[dict]) -> list[str]:
    """The size of the table fragments the members were sent, per game, over every step and
    database (two-member tables: a game's largest table may send more)."""
    merged: dict[str, dict[str, list[dict]]] = defaultdict(lambda: defaultdict(list))
    for result in results:
        for step in result.get("steps", []):
            for game, kinds in step["sizes"].items():
                for kind, figures in kinds.items():
                    merged[game][kind].append(figures)
    if not merged:
        return []
    limit = FRAGMENT_TARGET_BYTES // 1024
    lines = [
        f"\nTable fragments sent (2-member tables, every step; issue 22 asks <= {limit} KB, "
        "not checked here)",
        f"  {'game':<16} {'fragment':<13} {'count':>6} {'p50 KB':>7} {'max KB':>7} "
        f"{'> ' + str(limit) + ' KB':>8}",
    ]
    for game in sorted(merged):
        for kind in FRAGMENTS:
            figures = merged[game].get(kind, [])
            count = sum(f["count"] for f in figures)
            if not count:
                continue
            # The median of the steps' medians, weighted by their counts: an
            # approximation, enough to see the order of size.
            p50 = sum(f["p50"] * f["count"] for f in figures) / count
            largest = max(f["max"] for f in figures)
            over = sum(f["over"] for f in figures)
            lines.append(
                f"  {game:<16} {kind:<13} {count:>6} {p50 / 1024:>7.1f} {largest / 1024:>7.1f} "
                f"{over:>8}"
            )
    return lines


def verdict(results: list[dict], ladder: list[int]) -> tuple[bool, list[str]]:
    lines, ok = [], True
    for result in results:
        if "error" in result:
            ok = False
            lines.append(f"{run_name(result)}: {result['error']}")
            continue
        if "skipped" in result:
            lines.append(f"{run_name(result)}: skipped ({result['skipped']})")
            continue
        held = [step["tables"] for step in result["steps"] if holds(step)]
        largest = max(held, default=0)
        push = (
            f", push→fragment p95 <= {TARGET_PUSH_P95_MS:.0f} ms"
            if result.get("mode") == "live"
            else ""
        )
        lines.append(
            f"{run_name(result)}: largest N with move p95 <= {TARGET_MOVE_P95_MS:.0f} ms{push} "
            "and 0 errors: " + (str(largest) if held else "none")
        )
        if max(ladder) >= TARGET_TABLES and result.get("checkout", "this") == "this":
            target = next(s for s in result["steps"] if s["tables"] >= TARGET_TABLES)
            if not holds(target):
                ok = False
    if max(ladder) < TARGET_TABLES:
        lines.append(f"target not checked: the ladder stops below {TARGET_TABLES} tables")
    return ok, lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", choices=["sqlite", "postgres", "both"], default="both")
    parser.add_argument(
        "--tables",
        type=lambda text: sorted({int(n) for n in text.split(",") if n.strip()}),
        default=LADDER,
        help="comma-separated table counts (default 10,50,100,200)",
    )
    parser.add_argument(
        "--mode",
        choices=[*MODES, "both"],
        default="live",
        help="live: pages hold their stream and fetch when told (the main path; default); "
        "poll: pages poll every 2 s (as with no stream); both: one run each",
    )
    parser.add_argument("--duration", type=float, default=30, help="measured seconds per step")
    parser.add_argument("--warmup", type=float, default=6, help="unmeasured seconds per step")
    parser.add_argument("--seed", type=int, default=22)
    parser.add_argument("--port", type=int, default=int(os.environ.get("BENCH_PORT", "8500")))
    parser.add_argument("--workers", type=int, default=2, help="gunicorn workers (README: 2)")
    parser.add_argument(
        "--generators", type=int, default=2, help="load generator processes (default 2)"
    )
    parser.add_argument(
        "--compare",
        metavar="DIR",
        help="another checkout (e.g. a git worktree of the commit before), served in turn with "
        "this one at each step; the targets are this checkout's",
    )
    parser.add_argument(
        "--restart-at",
        type=float,
        metavar="SECONDS",
        help="live mode: this many seconds into each step's measured window, restart the "
        "server as a deploy does (SIGHUP to gunicorn's master); the pages' streams are opened "
        "again as live.js does, and the step's report says what the restart cost",
    )
    parser.add_argument("--served-root", help=argparse.SUPPRESS)
    parser.add_argument("--workdir", help=argparse.SUPPRESS)
    parser.add_argument("--child-output", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.restart_at is not None:
        if args.mode != "live":
            parser.error("--restart-at needs --mode live: only the pages' streams reconnect")
        if not 0 <= args.restart_at < args.duration:
            parser.error("--restart-at must fall within the measured window (--duration)")
    if args.child_output:  # one database, in this process
        args.db = [args.db]
        Path(args.child_output).write_text(json.dumps(run_database(args)))
        return 0

    databases = ["sqlite", "postgres"] if args.db == "both" else [args.db]
    workdir = Path(tempfile.mkdtemp(prefix="cardclub-capacity-"))
    results = []
    try:
        collect_static(workdir)
        if args.compare:
            collect_static(workdir, Path(args.compare).resolve())
        modes = MODES if args.mode == "both" else [args.mode]
        for db in databases:
            for mode in modes:
                if args.compare:
                    results += run_compared(db, mode, args, workdir)
                else:
                    results.append(run_child(db, mode, args, workdir))
    finally:
        for log in sorted(workdir.glob("server-*.log")):
            text = log.read_text(errors="replace").strip()
            if text:
                print(f"--- {log.name} (last lines)\n" + "\n".join(text.splitlines()[-15:]))
        shutil.rmtree(workdir, ignore_errors=True)
    print(
        f"capacity: {args.duration:.0f} s measured per step after {args.warmup:.0f} s warm-up, "
        f"gunicorn with {args.workers} uvicorn workers, {args.generators} load generator "
        f"processes, {os.cpu_count()} CPUs"
    )
    print("\n".join(report(results)))
    for result in results:
        if "memory" in result:
            m = result["memory"]
            back = m["back_within_20pct_after_s"]
            print(
                f"{run_name(result)}: server memory fresh {m['fresh_mb']:.0f} MB, idle after the "
                f"first step {m['idle_mb']:.0f} MB, at the end of the ladder {m['peak_mb']:.0f} "
                f"MB, then {m['end_mb']:.0f} MB: "
                + (
                    f"within 20 % of idle after {back:.0f} s"
                    if back is not None
                    else f"not within 20 % of idle after {RECOVERY_SECONDS} s"
                )
                + f"; workers replaced: {m['workers_replaced']}"
                + (
                    " (after the first step's; --restart-at's HUP replaces every worker at each "
                    "step on purpose, so this counts those HUPs as well as any crash)"
                    if result.get("restart_at") is not None
                    else ""
                )
            )
    ok, lines = verdict(results, args.tables)
    print("\n" + "\n".join(lines))
    if not ok:
        print(f"capacity: MISS: {TARGET_TABLES} tables do not hold on every database run")
    elif max(args.tables) < TARGET_TABLES:
        print("capacity: no failure (the target was not checked)")
    else:
        print(f"capacity: on target ({TARGET_TABLES} tables hold on every database run)")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
