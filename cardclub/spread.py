"""A busy worker sends its clients to the others: an ASGI layer that, while this worker process
has more than ``SPREAD_CONNECTIONS_AFTER`` requests in flight, answers with ``Connection:
close``, so the client's next request comes on a connection the server accepts anew (issue 34).

Why: a client with a pool of keep-alive connections (nginx towards its upstream, a load
generator) sends each request on the connection it used last. The few connections that are
free first carry most requests, and each stays with the worker that accepted it. Measured with
two workers and 200 tables of bench_capacity's main path: one worker served 5,359 requests over
77 connections, the other 567 over 39. In the busy one a move spent 20 ms of wall time for
4.3 ms of CPU (its threads waiting for its one core) while the machine was half idle.
``UV_TCP_SINGLE_ACCEPT`` (cardclub/server.py) spreads the connections as they are accepted; this
spreads the requests, because a busy worker gives back the connections that bring it more. It
evens out the workers' CPU (0.88/0.08 cores became 0.51/0.48).

It closes only while another worker is less busy: by at least ``SPREAD_CONNECTIONS_AFTER``
requests in flight, as the workers' shared board says (``cardclub/workerload.py``). Without
that condition it shortened move p95 below saturation but lengthened it at saturation: every
worker was always busy, so each closed connection after connection, and the clients paid a new
one for request after request while no worker was any freer. The A/B pairs are in the README
("Requests piled on a few connections"). ``SPREAD_CONNECTIONS_AFTER`` 0 turns it off. A worker
that holds no slot on the board (none was made before the fork) closes whenever it is busy.

A closed connection costs the client a new one (on the loopback or a private network, a
fraction of a millisecond); the answer itself is unchanged. With one worker there is nowhere
else to go, so the layer does nothing: gunicorn's worker names the number of workers
(``CARDCLUB_SERVER_WORKERS``, set by cardclub/server.py). The push streams are answered before
this layer and are never counted or closed.
"""

from __future__ import annotations

from cardclub.workerload import Board

CLOSE = (b"connection", b"close")


class SpreadConnections:
    def __init__(self, app, after: int, workers: int, board: Board | None = None):
        self.app = app
        # With one worker, or 0 asked: nothing to spread.
        self.after = after if workers > 1 else 0
        self.board = board
        self.in_flight = 0
        self.sent_away = 0

    def _elsewhere(self) -> bool:
        """Whether a client sent away may find a less busy worker."""
        least = self.board.least_busy_other() if self.board is not None else None
        return least is None or least <= self.in_flight - self.after

    def _counted(self, change: int) -> None:
        self.in_flight += change
        if self.board is not None:
            self.board.note(self.in_flight)

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http" or not self.after:
            await self.app(scope, receive, send)
            return
        self._counted(1)
        try:
            if self.in_flight <= self.after or not self._elsewhere():
                await self.app(scope, receive, send)
                return

            async def send_closing(message):
                if message["type"] == "http.response.start":
                    self.sent_away += 1
                    message = {**message, "headers": [*message.get("headers", ()), CLOSE]}
                await send(message)

            await self.app(scope, receive, send_closing)
        finally:
            self._counted(-1)
