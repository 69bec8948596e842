"""Overload is shed, not absorbed: an ASGI layer in front of Django's handler that lets at most
``MAX_REQUESTS_IN_FLIGHT`` requests of this worker process be in Django at once and answers
the others at once with a short 503 and ``Retry-After`` (the page's back-off honours it).

Why in front of Django: under more load than the machine serves, nothing else bounds the
requests waiting. Django's own ASGI handler gave each a thread: a worker was measured with 115
threads and 885 MB, queueing on SQLite's write lock until requests failed with "database is
locked", and missing its heartbeat until gunicorn killed it with every open stream. The pooled
handler (``cardclub/handler.py``) has a fixed number of threads, and those let in beyond them
wait in its queue, holding none: the bound keeps that queue short enough that a request in it
is still worth answering. A request refused here costs a few microseconds and no thread.

The push streams (``games/streams.py``) are answered before this layer: an open page's stream
is not a request in flight (it is capped per member instead).

After a rush the threads are gone but the C allocator keeps the memory it gave them; once the
worker is quiet again it is asked to hand it back to the system (``malloc_trim``, glibc).
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import ctypes.util
import logging
import time

logger = logging.getLogger(__name__)

RETRY_AFTER = 2
# Spanish first (the club's language), English beside it: the layer answers before Django
# knows the member's language, and without a thread to render a template with.
BUSY_PAGE = (
    '<!doctype html><html lang="es"><meta charset="utf-8">'
    '<meta name="viewport" content="width=device-width">'
    "<title>Un momento · One moment</title>"
    "<p>El club está muy ocupado ahora mismo: vuelve a intentarlo en unos segundos.</p>"
    '<p lang="en">The club is very busy right now: please try again in a few seconds.</p>'
).encode()
BUSY_HEADERS = [
    (b"content-type", b"text/html; charset=utf-8"),
    (b"retry-after", str(RETRY_AFTER).encode()),
    (b"cache-control", b"no-store"),
    (b"content-length", str(len(BUSY_PAGE)).encode()),
]
# Hand memory back once the worker has had no request for this long after a busy spell.
TRIM_AFTER_QUIET = 2.0


def _malloc_trim():
    with contextlib.suppress(OSError, AttributeError, TypeError):
        return ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6").malloc_trim
    return None


class InFlightLimit:
    def __init__(self, app, limit: int):
        self.app, self.limit = app, limit
        self.in_flight = 0
        self.refused = 0
        self.busiest = 0  # the most in flight since memory was last handed back
        self.last_done = 0.0
        self._trim = _malloc_trim()
        self._trimming = False

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http" or not self.limit:
            await self.app(scope, receive, send)
            return
        if self.in_flight >= self.limit:
            self.refused += 1
            if self.refused % 1000 == 1:
                logger.warning("overload: %s requests refused with 503 so far", self.refused)
            await send({"type": "http.response.start", "status": 503, "headers": BUSY_HEADERS})
            await send({"type": "http.response.body", "body": BUSY_PAGE})
            return
        self.in_flight += 1
        self.busiest = max(self.busiest, self.in_flight)
        try:
            await self.app(scope, receive, send)
        finally:
            self.in_flight -= 1
            self.last_done = time.monotonic()
            if not self.in_flight and self.busiest > 4 and not self._trimming:
                self._trimming = True
                asyncio.get_running_loop().call_later(TRIM_AFTER_QUIET, self._trim_when_quiet)

    def _trim_when_quiet(self) -> None:
        quiet = time.monotonic() - self.last_done
        if self.in_flight or quiet < TRIM_AFTER_QUIET:
            asyncio.get_running_loop().call_later(TRIM_AFTER_QUIET, self._trim_when_quiet)
            return
        self._trimming = False
        self.busiest = 0
        if self._trim is not None:
            # In a thread: trimming a large heap takes milliseconds the event loop is better
            # spent on.
            asyncio.get_running_loop().run_in_executor(None, self._trim, 0)
