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

It is on (``SPREAD_CONNECTIONS_AFTER`` 4) for what it does below saturation, where a club
spends its nights: there it shortened move p95 in most A/B pairs. At saturation it lengthens
it, because a worker that is always busy closes every connection and the clients pay a new one
for each request. The pairs are in the README ("Requests piled on a few connections"). 0 turns
it off.

A closed connection costs the client a new one (on the loopback or a private network, a
fraction of a millisecond); the answer itself is unchanged. With one worker there is nowhere
else to go, so the layer does nothing: gunicorn's worker names the number of workers
(``CARDCLUB_SERVER_WORKERS``, set by cardclub/server.py). The push streams are answered before
this layer and are never counted or closed.
"""

from __future__ import annotations

CLOSE = (b"connection", b"close")


class SpreadConnections:
    def __init__(self, app, after: int, workers: int):
        self.app = app
        # With one worker, or 0 asked: nothing to spread.
        self.after = after if workers > 1 else 0
        self.in_flight = 0
        self.sent_away = 0

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http" or not self.after:
            await self.app(scope, receive, send)
            return
        self.in_flight += 1
        try:
            if self.in_flight <= self.after:
                await self.app(scope, receive, send)
                return

            async def send_closing(message):
                if message["type"] == "http.response.start":
                    self.sent_away += 1
                    message = {**message, "headers": [*message.get("headers", ()), CLOSE]}
                await send(message)

            await self.app(scope, receive, send_closing)
        finally:
            self.in_flight -= 1
