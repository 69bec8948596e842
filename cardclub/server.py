"""How the club's ASGI server holds its connections: uvicorn, with two limits of our own.

- **Headers must arrive in time.** uvicorn waits for a request's headers for ever: 200 clients
  sending a byte a second were all kept open (each an open socket and a parser). Here a
  connection has ``HEADER_TIMEOUT`` seconds from its first byte (or from being opened) to
  finish a request's headers, else it is closed; and at most ``HEADER_MAX_BYTES`` of them
  (httptools, unlike h11, sets no limit of its own), else it is answered 400 and closed.
- **A stop does not wait for the live pages.** Told to stop (a deploy, a restart, Ctrl-C of
  ``make run``), uvicorn lets every response in flight finish, and a page's push stream never
  does: each open page held the stop until the kill came (gunicorn's graceful timeout,
  runclub's 10 s). A stream is ended at once instead, with a last event, ``renew`` (the
  stream puts its ending in its scope under ``STREAMING``): the page opens a new stream to
  whichever server answers, a moment later spread at random, and fetches nothing before, since
  a stream's first event is the current state. Cutting the connections instead made every
  page of the stopped worker fetch its table at once, as after a failure: a burst at the new
  workers while they start, which refused members' moves with 503 (measured by
  ``tests/bench/bench_capacity.py --restart-at``). A stream that has not ended
  ``STREAM_STOP_GRACE`` seconds later (a client that reads nothing) is cut.
- **Keep-alive long enough for a member who thinks.** gunicorn's default (2 s) closed most
  idle connections just before a member's next move, which then paid a new connection. The
  commands below keep an idle connection ``KEEP_ALIVE`` seconds, a little longer than a
  proxy's own idle timeout (nginx: 60 s towards the upstream), so the proxy closes first.

``manage.py runclub`` and the tests' servers run uvicorn with ``--http
cardclub.server:HttpToolsProtocol``; production runs gunicorn with ``-k cardclub.server.Worker``
(README, *Running in production*).
"""

from __future__ import annotations

import asyncio
import os

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol as _HttpToolsProtocol
from uvicorn_worker import UvicornWorker

from cardclub.env import env_float
from cardclub.workerload import BOARD

# A bad value stops the start naming the variable (ImproperlyConfigured), as for any setting.
HEADER_TIMEOUT = env_float("HTTP_HEADER_TIMEOUT", 10)
HEADER_MAX_BYTES = 64 * 1024
KEEP_ALIVE = 75  # the commands' --keep-alive / --timeout-keep-alive
# Set in an ASGI scope by games/streams.py: the response is a push stream, which never ends
# unless told to; the value is what ends it, with its last event (a callable).
STREAMING = "cardclub.streaming"
STREAM_STOP_GRACE = 2.0

# Several worker processes accept on one listening socket. uvloop's libuv accepts every
# connection waiting at once, so a burst (a club night starting, a restart, a proxy opening its
# pool) went mostly to whichever worker woke first, and with keep-alive each connection stays
# where it landed: with two workers and 200 tables of bench_capacity, one worker used three
# times the CPU of the other, and the tail of every request was that worker's queue. One
# connection per wake-up (libuv's own switch, read when the worker starts listening) lets the
# other workers take their share.
os.environ.setdefault("UV_TCP_SINGLE_ACCEPT", "1")


class HttpToolsProtocol(_HttpToolsProtocol):
    _header_deadline: asyncio.TimerHandle | None = None
    _header_bytes = 0

    def connection_made(self, transport) -> None:
        super().connection_made(transport)
        self._start_header_deadline()

    def data_received(self, data: bytes) -> None:
        # The first bytes of a new request on a kept-alive connection start its clock.
        awaiting = self.cycle is None or self.cycle.response_complete
        if self._header_deadline is None and awaiting:
            self._start_header_deadline()
        counting = self._header_deadline is not None
        super().data_received(data)
        # Still no whole headers after this chunk (a chunk that completes them may carry the
        # start of a body, which is not counted).
        if counting and self._header_deadline is not None and not self.transport.is_closing():
            self._header_bytes += len(data)
            if self._header_bytes > HEADER_MAX_BYTES:
                self._cancel_header_deadline()
                self.send_400_response("Request headers too large.")

    def on_headers_complete(self) -> None:
        self._cancel_header_deadline()
        super().on_headers_complete()

    def connection_lost(self, exc) -> None:
        self._cancel_header_deadline()
        super().connection_lost(exc)

    def on_response_complete(self) -> None:
        # Idle now: the keep-alive timeout takes over until the next request's first byte.
        self._cancel_header_deadline()
        super().on_response_complete()

    def shutdown(self) -> None:
        cycle = self.cycle
        end_stream = (
            None if cycle is None or cycle.response_complete else cycle.scope.get(STREAMING)
        )
        if end_stream is not None:
            end_stream()  # its last event, then its end; the connection closes after it
            self.loop.call_later(STREAM_STOP_GRACE, self._cut)
        super().shutdown()

    def _cut(self) -> None:
        if not self.transport.is_closing():
            self.transport.close()  # the stream hears the disconnect and ends

    def _start_header_deadline(self) -> None:
        self._header_deadline = self.loop.call_later(HEADER_TIMEOUT, self._headers_too_slow)

    def _cancel_header_deadline(self) -> None:
        self._header_bytes = 0
        if self._header_deadline is not None:
            self._header_deadline.cancel()
            self._header_deadline = None

    def _headers_too_slow(self) -> None:
        self._header_deadline = None
        if not self.transport.is_closing():
            self.transport.close()


class Worker(UvicornWorker):
    """gunicorn's worker class for the club: uvicorn with the protocol above."""

    CONFIG_KWARGS = {**UvicornWorker.CONFIG_KWARGS, "http": HttpToolsProtocol}

    def init_process(self) -> None:
        # Before the application is loaded: a busy worker sends clients elsewhere only when
        # there is an elsewhere, and a less busy worker there (cardclub/spread.py). The board
        # was made in the master, before the fork (cardclub/workerload.py).
        os.environ["CARDCLUB_SERVER_WORKERS"] = str(self.cfg.workers)
        BOARD.claim()
        try:
            super().init_process()
        finally:
            BOARD.release()
