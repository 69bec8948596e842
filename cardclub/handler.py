"""Django's ASGI handler with each request served in one go in a thread of a fixed pool, as a
WSGI server serves it (issue 34).

Django's own ASGI handler runs its middleware and the view in its async mode: a new thread for
every request (``ThreadSensitiveContext``), and a hop between that thread and the event loop at
every step that is not async (a sync middleware, a ``MiddlewareMixin``'s ``process_request`` and
``process_response`` each, the view). Every page of this club is a sync view behind sync
middleware, so all that bought nothing: measured through gunicorn with a uvicorn worker, the
hops and the thread set-up were about a fifth of every request's CPU, and each request's thread
opened its own database connection (SQLite: a connection and its PRAGMAs per request).

Here the event loop reads the request's body, then hands the request to one thread of a pool
that runs the whole synchronous chain (``request_started``, the middleware, the view, the
response's ``close`` and ``request_finished``) at once, and sends the answer back from the
loop. The threads live as long as the process, so each keeps its database connection
(``CONN_MAX_AGE``) or takes one from the pool, as under WSGI.

What stays as it was: the push streams are answered before this handler (``games/streams.py``)
and the bound on requests in flight is in front of it (``cardclub/overload.py``). That bound lets
in more requests than the pool has threads: those beyond wait in the pool's queue, holding no
thread, and are served in the order they came. A streaming answer (a static file) is read in
its request's thread, each part sent from the loop, then closed in that thread.
"""

from __future__ import annotations

import asyncio
import gc
from concurrent.futures import ThreadPoolExecutor

from django.core import signals
from django.core.exceptions import RequestAborted
from django.core.handlers import base
from django.core.handlers.asgi import ASGIHandler, get_script_prefix
from django.urls import set_script_prefix

# Threads per process (settings.REQUEST_THREADS, 4). Every request here is CPU for the one core
# a process can use (the GIL) plus short database waits, so more threads add no throughput:
# they only share the core more finely, and cost memory (115 threads once took a worker to
# 885 MB). Sharing it finely is what made the tail long near saturation: sixteen threads took
# turns at the GIL with each other and with the event loop, which sends every answer (the A/B
# pairs against 16 threads are in the README, "Each request in one thread"). The requests let
# in beyond the threads (MAX_REQUESTS_IN_FLIGHT, 64) wait in the pool's queue rather than being
# refused: with as many let in as threads, bursts were refused at half the machine (150 tables
# on PostgreSQL: 16 let in refused 1,249 requests with 503 in 30 s; 64 let in to 16 threads,
# none).

# The cyclic collector of a server process. Its default (a young collection every 700 new
# objects) ran several times inside every request, so the objects of the requests in flight
# were promoted as if long-lived, and a full collection followed every second or two, each
# stopping every thread of the process for 100-300 ms (the traversal of everything the process
# holds): on PostgreSQL with two workers and 200 tables of bench_capacity's main path, a move's
# p95 was 150 ms on a server using half the machine. With a young generation of 10,000, most of
# a request's objects are gone by the time it is collected (requests leave no reference cycle:
# cardclub/templating.py, Match.hold_seats, the request cleared below), and what the process
# loaded to serve (modules, URL patterns, templates) is frozen out of every collection.
YOUNG_OBJECTS = 10_000


class PooledASGIHandler(ASGIHandler):
    def __init__(self, threads: int):
        base.BaseHandler.__init__(self)
        self.load_middleware(is_async=False)
        self.executor = ThreadPoolExecutor(threads, thread_name_prefix="django-request")

    @staticmethod
    def tune_collector() -> None:
        """Once the application is loaded in the server process (cardclub/asgi.py): see
        YOUNG_OBJECTS."""
        _young, middle, old = gc.get_threshold()
        gc.set_threshold(YOUNG_OBJECTS, middle, old)
        gc.collect()
        gc.freeze()

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            raise ValueError(f"Django can only handle ASGI/HTTP connections, not {scope['type']}.")
        try:
            body_file = await self.read_body(receive)
        except RequestAborted:
            return
        loop = asyncio.get_running_loop()
        try:
            response = await loop.run_in_executor(
                self.executor, self._respond, scope, body_file, loop, send
            )
            if response is not None:
                await self.send_response(response, send)
        finally:
            body_file.close()

    def _respond(self, scope, body_file, loop, send):
        """The whole synchronous chain, in a thread of the pool, closed here (so
        ``request_finished`` runs in the thread that used the connection): the response for
        the loop to send, or ``None`` when it streamed, sent from here part by part."""
        set_script_prefix(get_script_prefix(scope))
        signals.request_started.send(sender=self.__class__, scope=scope)
        request, response = self.create_request(scope, body_file)
        if request is not None:
            response = self.get_response(request)
        response._handler_class = self.__class__
        try:
            if not response.streaming:
                return response
            self._stream(
                response,
                lambda message: asyncio.run_coroutine_threadsafe(send(message), loop).result(),
            )
            return None
        finally:
            response.close()
            if request is not None:
                # The request is in reference cycles (its user's lazy loader, its messages,
                # django-htmx's details each point back at it), which kept it and all it reached
                # for the cyclic collector: see cardclub/templating.py. Nothing uses it now.
                request.__dict__.clear()

    def _stream(self, response, send) -> None:
        """A streaming response (a static file), its parts read and sent from this thread."""
        headers = [
            (header.encode("ascii"), value.encode("latin1")) for header, value in response.items()
        ]
        for cookie in response.cookies.values():
            headers.append((b"Set-Cookie", cookie.output(header="").encode("ascii").strip()))
        send({"type": "http.response.start", "status": response.status_code, "headers": headers})
        for part in response:
            for chunk, _last in self.chunk_bytes(part):
                send({"type": "http.response.body", "body": chunk, "more_body": True})
        send({"type": "http.response.body"})
