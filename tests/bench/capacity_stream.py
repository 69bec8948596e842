"""A page's push stream, as the capacity benchmark's members hold it (issue 34).

The main path of a table is not the 2-second poll but the page's SSE stream
(``/play/m/<id>/live/``, ``games/streams.py``): its first event is the table's current
version, each later ``version`` event says a newer one is committed, and ``static/js/live.js``
then fetches the table's own fragment. :class:`Stream` holds one such connection with bare
asyncio (no HTTP client's pool in the way: a browser holds the stream on a connection of its
own) and tells its member what it heard, and when.

Created with ``reconnect=True`` (``bench_capacity.py --restart-at``), it also opens the stream
again when the server ends it, as live.js does: after a ``renew`` (the server is stopping, a
deploy) a random moment within ``RENEW_SPREAD_SECONDS`` later and with nothing fetched; after an
end without it (a crash, or a server that does not say so) the page is owed a fetch at once and
the stream is opened again after live.js's back-off. Either way the page fetches once when the
new stream opens ("back after a break"). Without ``reconnect`` a stream that ends stays ended,
and its page polls (the benchmark as it always ran).
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import time
from collections.abc import Callable

# live.js's timings (static/js/live.js), in seconds: a renewed stream is opened again within
# RENEW_SPREAD; a failed one after its Backoff.
RENEW_SPREAD_SECONDS = 3.0
FIRST_RETRY_SECONDS = 1.0
RETRY_GROWTH = 1.25
MAX_RETRY_SECONDS = 30.0
JITTER = 0.3
# A stream that stayed open this long was healthy: its end starts the back-off anew.
STABLE_SECONDS = 10.0
# A reopened stream with no answer after this long has failed (the first one is waited for by
# its member, bench_capacity.TIMEOUT_SECONDS, as before).
OPEN_TIMEOUT_SECONDS = 10.0


def stream_path(match_id: int) -> str:
    """The URL of a table's stream (the page's ``sse-connect``; checked against
    ``games:live`` in test_bench_capacity.py)."""
    return f"/play/m/{match_id}/live/"


def versions_in(lines: list[bytes]) -> list[int]:
    """The versions announced by an SSE event's lines (``event: version`` then ``data: N``);
    other events (chat, bell) and keep-alive comments announce none."""
    event, found = "message", []
    for line in lines:
        if line.startswith(b"event: "):
            event = line[7:].decode().strip()
        elif line.startswith(b"data: ") and event == "version":
            found.append(int(line[6:]))
    return found


def renews(lines: list[bytes]) -> bool:
    """Whether an SSE event's lines are the server's ``renew`` (it is stopping: open a new
    stream). EventSource fires an event only with data, so a bare ``event: renew`` is none."""
    event, data = "message", False
    for line in lines:
        if line.startswith(b"event: "):
            event = line[7:].decode().strip()
        elif line.startswith(b"data:"):
            data = True
    return event == "renew" and data


def renew_delay(rng: random.Random) -> float:
    """Seconds before a renewed stream is opened again: uniform in [0, RENEW_SPREAD), as
    live.js's ``Math.random() * RENEW_SPREAD_MS``, so that a stopped server's pages reach the
    new one spread out."""
    return rng.random() * RENEW_SPREAD_SECONDS


class Backoff:
    """live.js's Backoff (for its stream, and for its fetches): 1 s, then 1.25 times longer each failure, up to 30 s,
    each shortened at random by up to 30 % (never lengthened)."""

    def __init__(self, rng: random.Random):
        self.rng = rng
        self.failures = 0

    def next(self, floor: float = 0.0) -> float:
        """The wait before the next try (at least ``floor``: a Retry-After)."""
        base = min(MAX_RETRY_SECONDS, FIRST_RETRY_SECONDS * RETRY_GROWTH**self.failures)
        self.failures += 1
        return max(base * (1 - JITTER * self.rng.random()), floor)

    def reset(self) -> None:
        self.failures = 0


class Refused(Exception):
    """The server answered the stream with another status than 200 (its status line)."""


class Stream:
    """One open stream of one member's page: the newest version heard and when each was
    first heard (the generator's monotonic clock), woken on each.

    With ``reconnect``, what happened to it: ``log`` holds (moment, what) for each ``renew``
    heard, each end without it (``closed``), each new stream ``reopened`` and each reopening
    that failed (``reopen failed``); ``gaps`` (moment it went down, seconds until reopened)."""

    def __init__(
        self,
        port: int,
        match_id: int,
        cookie: str,
        reconnect: bool = False,
        rng: random.Random | None = None,
    ):
        self.port, self.match_id, self.cookie = port, match_id, cookie
        self.reconnect = reconnect
        self.rng = rng or random.Random()
        self.latest = 0
        self.heard: dict[int, float] = {}
        # Why it closed or was refused; None while it holds (or, reconnecting, while it is
        # being opened again: only a first open refused ends it).
        self.error: str | None = None
        self.opened = asyncio.Event()
        self.news = asyncio.Event()
        self.task: asyncio.Task | None = None
        self.writer: asyncio.StreamWriter | None = None
        self.open = False  # a connection is open now
        self.opened_at = 0.0
        # Reconnecting: the page is owed a fetch (an end without renew, a new stream opened).
        self.owed = False
        # Reconnecting, while down: since when, and from when the page's poll counts (live.js
        # sets its lastPoll to the moment it will reconnect after a renew, to now after a
        # failure, whose catch-up fetch is a poll).
        self.down_since: float | None = None
        self.poll_from = 0.0
        self.reopen_failures = 0  # since it went down
        self.last_failure = ""
        self.log: list[tuple[float, str]] = []
        self.gaps: list[tuple[float, float]] = []

    @property
    def holding(self) -> bool:
        return self.opened.is_set() and self.error is None

    def start(self) -> Stream:
        self.task = asyncio.create_task(self.run())
        return self

    async def close(self) -> None:
        if self.task is not None:
            self.task.cancel()
            with contextlib.suppress(BaseException):
                await self.task
        if self.writer is not None:
            self.writer.close()

    async def run(self) -> None:
        try:
            if self.reconnect:
                await self.hold_and_reopen()
                return
            try:
                ended = await self.hold()
            except Refused as refused:
                self.error = f"refused: {refused}"
                return
            self.error = "closed by the server" if ended == "closed" else "renewed by the server"
        except (OSError, ValueError) as error:
            self.error = f"{type(error).__name__}"
        finally:
            # Whoever waits on the stream wakes, to fetch or to fall back to polling.
            self.opened.set()
            self.news.set()

    async def hold(self, open_timeout: float | None = None) -> str:
        """One connection, held until it ends: ``"renew"`` when its last event said so, else
        ``"closed"``. Raises :class:`Refused` on another status than 200; OSError and
        ValueError (a garbled event) pass, as does TimeoutError after ``open_timeout``."""
        reader = await asyncio.wait_for(self.connect(), open_timeout)
        self.on_open()
        event: list[bytes] = []
        while True:
            line = await reader.readline()
            # The end of the connection, or of a chunked response (its last chunk, "0": no line
            # of an event is a bare number) on a connection the server keeps.
            if not line or line.rstrip(b"\r\n") == b"0":
                return "closed"
            line = line.rstrip(b"\r\n")
            if line:
                event.append(line)
                continue
            if renews(event):
                return "renew"  # as live.js: closed at once, whatever follows
            self.hear(versions_in(event))
            event = []

    async def connect(self) -> asyncio.StreamReader:
        """The request sent and the answer's head read: the reader at the first event."""
        reader, self.writer = await asyncio.open_connection("127.0.0.1", self.port)
        self.writer.write(
            f"GET {stream_path(self.match_id)} HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            f"Cookie: {self.cookie}\r\nAccept: text/event-stream\r\n\r\n".encode()
        )
        await self.writer.drain()
        status = await reader.readline()
        if b" 200 " not in status:
            raise Refused(status.decode(errors="replace").strip())
        while (await reader.readline()) not in (b"\r\n", b""):
            pass  # the response's headers
        return reader

    def on_open(self) -> None:
        now = time.monotonic()
        self.open, self.opened_at = True, now
        if self.down_since is not None:  # back after a break: the page fetches once
            self.gaps.append((self.down_since, now - self.down_since))
            self.log.append((now, "reopened"))
            self.down_since, self.reopen_failures, self.owed = None, 0, True
            self.news.set()
        self.opened.set()

    async def hold_and_reopen(self) -> None:
        """Holds the stream, and each time it ends opens it again as live.js does; only a
        first open that fails ends it (``error``: its page polls, as without ``reconnect``)."""
        backoff = Backoff(self.rng)
        while True:
            ended, why = None, ""
            try:
                ended = await self.hold(OPEN_TIMEOUT_SECONDS if self.opened.is_set() else None)
            except Refused as refused:
                why = f"refused: {refused}"
            except (OSError, ValueError, TimeoutError) as error:
                why = type(error).__name__
            finally:
                if self.writer is not None:
                    self.writer.close()
                    self.writer = None
            now = time.monotonic()
            was_open, self.open = self.open, False
            if not self.opened.is_set():
                self.error = why
                return
            if was_open:
                self.down_since = now
            if ended == "renew":
                self.log.append((now, "renew"))
                delay = renew_delay(self.rng)
                self.poll_from = now + delay
            elif was_open:  # ended without a renew, or broken after it had opened
                self.log.append((now, "closed"))
                self.owed = True  # live.js fetches at once what it may have missed
                if now - self.opened_at >= STABLE_SECONDS:
                    backoff.reset()
                delay = backoff.next()
                self.poll_from = now
            else:
                self.log.append((now, "reopen failed"))
                self.reopen_failures += 1
                self.last_failure = why
                delay = backoff.next()
            self.news.set()
            await asyncio.sleep(delay)

    def hear(self, versions: list[int]) -> None:
        now = time.monotonic()
        for version in versions:
            self.heard.setdefault(version, now)
            self.latest = max(self.latest, version)
        if versions:
            self.news.set()

    async def wait_newer(self, than: int, until: float) -> None:
        """Until a version newer than ``than`` is heard, the stream ends, or ``until``."""
        while self.latest <= than and self.error is None:
            self.news.clear()
            remaining = until - time.monotonic()
            if remaining <= 0:
                return
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.news.wait(), remaining)

    async def wait_news(self, than: int, until: float, last_poll: float, poll_ms: int) -> None:
        """Reconnecting: until the page has something to fetch (a version newer than ``than``,
        a fetch owed) or, while it has no stream open, its poll is due (live.js polls then,
        every ``poll_ms`` from the later of ``last_poll`` and ``poll_from``); or ``until``."""

        def due() -> float:
            if self.open:
                return until
            return min(until, max(last_poll, self.poll_from) + poll_ms / 1000)

        await self._wait(lambda: self.latest > than or self.owed, due)

    async def wait_owed(self, until: float) -> None:
        """Reconnecting: until the page is owed a fetch, or ``until`` (a member thinking over
        a move: live.js fetches meanwhile all the same)."""
        await self._wait(lambda: self.owed, lambda: until)

    async def _wait(self, ready: Callable[[], bool], deadline: Callable[[], float]) -> None:
        while not ready() and self.error is None:
            self.news.clear()
            remaining = deadline() - time.monotonic()
            if remaining <= 0:
                return
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.news.wait(), remaining)
