"""A page's push stream, as the capacity benchmark's members hold it (issue 34).

The main path of a table is not the 2-second poll but the page's SSE stream
(``/play/m/<id>/live/``, ``games/streams.py``): its first event is the table's current
version, each later ``version`` event says a newer one is committed, and ``static/js/live.js``
then fetches the table's own fragment. :class:`Stream` holds one such connection with bare
asyncio (no HTTP client's pool in the way: a browser holds the stream on a connection of its
own) and tells its member what it heard, and when.
"""

from __future__ import annotations

import asyncio
import contextlib
import time


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


class Stream:
    """One open stream of one member's page: the newest version heard and when each was
    first heard (the generator's monotonic clock), woken on each."""

    def __init__(self, port: int, match_id: int, cookie: str):
        self.port, self.match_id, self.cookie = port, match_id, cookie
        self.latest = 0
        self.heard: dict[int, float] = {}
        self.error: str | None = None  # why it closed or was refused; None while it holds
        self.opened = asyncio.Event()
        self.news = asyncio.Event()
        self.task: asyncio.Task | None = None
        self.writer: asyncio.StreamWriter | None = None

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
            reader, self.writer = await asyncio.open_connection("127.0.0.1", self.port)
            self.writer.write(
                f"GET {stream_path(self.match_id)} HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                f"Cookie: {self.cookie}\r\nAccept: text/event-stream\r\n\r\n".encode()
            )
            await self.writer.drain()
            status = await reader.readline()
            if b" 200 " not in status:
                self.error = f"refused: {status.decode(errors='replace').strip()}"
                return
            while (await reader.readline()) not in (b"\r\n", b""):
                pass  # the response's headers
            self.opened.set()
            event: list[bytes] = []
            while True:
                line = await reader.readline()
                if not line:
                    self.error = "closed by the server"
                    return
                line = line.rstrip(b"\r\n")
                if line:
                    event.append(line)
                    continue
                self.hear(versions_in(event))
                event = []
        except (OSError, ValueError) as error:
            self.error = f"{type(error).__name__}"
        finally:
            # Whoever waits on the stream wakes, to fetch or to fall back to polling.
            self.opened.set()
            self.news.set()

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
