"""The capacity benchmark's page stream follows live.js when its server ends it (a deploy,
``bench_capacity.py --restart-at``): each test serves scripted SSE answers from a local asyncio
server and checks what the stream did, with live.js's delays shortened so that it runs fast."""

from __future__ import annotations

import asyncio
import random
import time

import pytest

from tests.bench import capacity_stream
from tests.bench.bench_capacity import Recorder
from tests.bench.capacity_stream import (
    RENEW_SPREAD_SECONDS,
    Backoff,
    Stream,
    renew_delay,
    renews,
    versions_in,
)
from tests.servers import run_in_new_loop

HEAD = (
    b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream; charset=utf-8\r\n"
    b"Transfer-Encoding: chunked\r\n\r\n"
)
REFUSED = b"HTTP/1.1 503 Service Unavailable\r\ncontent-length: 0\r\n\r\n"
RENEW = "event: renew\ndata: 1\n\n"  # the server's last event when it stops (games/streams.py)
LAST_CHUNK = b"0\r\n\r\n"


def chunk(text: str) -> bytes:
    """One body message as uvicorn sends it on HTTP/1.1: a chunk of its own."""
    data = text.encode()
    return f"{len(data):x}\r\n".encode() + data + b"\r\n"


def version(n: int) -> bytes:
    return chunk(f"id: {n}\nevent: version\ndata: {n}\n\n")


def lines_of(text: str) -> list[bytes]:
    return [line.encode() for line in text.splitlines() if line]


def test_the_servers_renew_is_recognised_and_announces_no_version():
    assert renews(lines_of(RENEW))
    assert versions_in(lines_of(RENEW)) == []
    assert not renews(lines_of("id: 4\nevent: version\ndata: 4\n"))
    assert not renews([b"event: renew"])  # no data: EventSource fires no event


def test_a_renewed_stream_is_opened_again_within_three_seconds_spread_out():
    rng = random.Random(5)
    delays = [renew_delay(rng) for _ in range(2000)]
    assert RENEW_SPREAD_SECONDS == 3.0  # live.js's RENEW_SPREAD_MS
    assert all(0 <= delay < 3.0 for delay in delays)
    assert min(delays) < 0.1 and max(delays) > 2.9


def test_a_failed_stream_backs_off_as_live_js_one_second_first_then_a_quarter_longer():
    backoff = Backoff(random.Random(7))
    for failures in range(25):
        base = min(30.0, 1.25**failures)
        assert 0.7 * base <= backoff.next() <= base
    backoff.reset()
    assert 0.7 <= backoff.next() <= 1.0


async def _serve(script, connections: list[bytes]):
    """A server answering the n-th connection with ``script(n)``: (bytes, then "close" or
    "hold": keep the connection open until the client closes it)."""

    async def handle(reader, writer):
        connections.append(await reader.readuntil(b"\r\n\r\n"))
        answer, then = script(len(connections) - 1)
        writer.write(answer)
        await writer.drain()
        if then == "hold":
            await reader.read()
        writer.close()

    return await asyncio.start_server(handle, "127.0.0.1", 0)


async def _until(condition, seconds: float = 3.0) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "the stream never got there"
        await asyncio.sleep(0.005)


def _with_stream(script, exchange, reconnect=True):
    """Serve ``script``; ``await exchange(stream, connections)`` with a stream started on it."""

    async def main():
        connections: list[bytes] = []
        server = await _serve(script, connections)
        async with server:
            port = server.sockets[0].getsockname()[1]
            stream = Stream(port, 9, "sessionid=s", reconnect, random.Random(3)).start()
            try:
                return await exchange(stream, connections)
            finally:
                await stream.close()

    return run_in_new_loop(main())


@pytest.fixture
def quick(monkeypatch):
    """live.js's delays made short: a renewed stream reopens after 0.2 s, a failed one after
    0.2 s (0.14 to 0.2 with the jitter), then a quarter longer each time."""
    monkeypatch.setattr(capacity_stream, "renew_delay", lambda _rng: 0.2)
    monkeypatch.setattr(capacity_stream, "FIRST_RETRY_SECONDS", 0.2)


def test_a_renew_asks_the_page_for_no_fetch_and_the_new_stream_for_one(quick):
    def script(n):
        if n == 0:  # the connection kept open after the renew: the stream must not wait for it
            return HEAD + version(3) + chunk(RENEW) + LAST_CHUNK, "hold"
        return HEAD + version(4), "hold"

    async def exchange(stream, connections):
        await _until(lambda: stream.log)
        renewed = (stream.owed, stream.open, stream.latest, [what for _at, what in stream.log])
        start = time.monotonic()
        await stream.wait_news(3, start + 3, last_poll=start, poll_ms=2000)
        return renewed, time.monotonic() - start, stream

    renewed, waited, stream = _with_stream(script, exchange)
    assert renewed == (False, False, 3, ["renew"])
    # The page waited for the new stream (0.2 s), not for its poll (2 s), and is then owed the
    # one fetch of a page back after a break; the new stream's first event was heard too.
    assert 0.1 <= waited < 1.5
    assert [what for _at, what in stream.log] == ["renew", "reopened"]
    assert stream.owed and stream.latest == 4 and stream.error is None
    [(_down, gap)] = stream.gaps
    assert 0.15 <= gap < 1.5


@pytest.mark.parametrize("ending", ["connection closed", "response ended"])
def test_a_stream_ended_without_renew_asks_the_page_for_a_fetch_at_once(quick, ending):
    def script(n):
        if n > 0:
            return HEAD + version(5), "hold"
        if ending == "connection closed":
            return HEAD + version(3), "close"
        return HEAD + version(3) + LAST_CHUNK, "hold"

    async def exchange(stream, connections):
        start = time.monotonic()
        await stream.wait_news(3, start + 3, last_poll=start, poll_ms=2000)
        ended = (time.monotonic() - start, stream.owed, stream.open, list(stream.log))
        stream.owed = False  # the page fetched
        await _until(lambda: len(stream.log) == 2)
        return ended, stream, len(connections)

    (waited, owed, open_, log), stream, connections = _with_stream(script, exchange)
    assert waited < 1.5 and owed and not open_  # at once: before its poll (2 s) or reopening
    assert [what for _at, what in log] == ["closed"]
    assert [what for _at, what in stream.log] == ["closed", "reopened"]
    assert stream.owed and stream.latest == 5 and connections == 2
    [(_down, gap)] = stream.gaps
    assert 0.1 <= gap < 1.5  # the back-off: 0.14 to 0.2 s here


def test_a_reopening_refused_is_tried_again_later_and_is_no_error(quick):
    def script(n):
        if n == 0:
            return HEAD + version(3) + chunk(RENEW), "hold"
        if n in (1, 2):
            return REFUSED, "close"
        return HEAD + version(6), "hold"

    async def exchange(stream, connections):
        await _until(lambda: len(stream.log) == 4)
        return stream

    stream = _with_stream(script, exchange)
    log = [what for _at, what in stream.log]
    assert log == ["renew", "reopen failed", "reopen failed", "reopened"]
    # Each try after the back-off (0.14 s at the least here), never at once.
    times = [at for at, _what in stream.log]
    assert min(times[2] - times[1], times[3] - times[2]) >= 0.14
    assert stream.error is None and stream.latest == 6 and stream.reopen_failures == 0


def test_a_page_whose_stream_cannot_reopen_polls_at_its_pace_meanwhile(quick):
    def script(n):
        return (HEAD + version(3) + chunk(RENEW), "hold") if n == 0 else (REFUSED, "close")

    async def exchange(stream, connections):
        await _until(lambda: stream.log)
        start = time.monotonic()
        await stream.wait_news(3, start + 3, last_poll=start, poll_ms=300)
        return time.monotonic() - stream.log[0][0], stream

    since_renew, stream = _with_stream(script, exchange)
    # live.js counts the poll from the moment the renewed stream was to open again (0.2 s).
    assert 0.49 <= since_renew < 1.5
    assert not stream.owed and stream.error is None
    assert "reopen failed" in [what for _at, what in stream.log]


def test_a_stream_refused_at_its_first_open_is_an_error_and_not_tried_again(quick):
    async def exchange(stream, connections):
        await stream.opened.wait()
        await asyncio.sleep(0.3)  # a retry would come after 0.2 s
        return stream, len(connections)

    stream, connections = _with_stream(lambda _n: (REFUSED, "close"), exchange)
    assert stream.error == "refused: HTTP/1.1 503 Service Unavailable"
    assert not stream.holding and connections == 1 and stream.log == []


def test_without_reconnect_a_renewed_stream_stays_ended_and_its_page_polls(quick):
    async def exchange(stream, connections):
        await stream.wait_newer(3, time.monotonic() + 3)
        await asyncio.sleep(0.3)  # a reopening would come after 0.2 s
        return stream, len(connections)

    script = lambda _n: (HEAD + version(3) + chunk(RENEW), "hold")  # noqa: E731
    stream, connections = _with_stream(script, exchange, reconnect=False)
    assert stream.error == "renewed by the server" and not stream.holding
    assert connections == 1 and stream.log == []


def _down_stream(failures: int, down_since: float) -> Stream:
    stream = Stream(1, 9, "sessionid=s", reconnect=True)
    stream.log = [(down_since, "renew")] + [(down_since + 1, "reopen failed")] * failures
    stream.down_since, stream.reopen_failures = down_since, failures
    stream.last_failure = "refused: HTTP/1.1 503 Service Unavailable"
    return stream


def _recorder() -> Recorder:
    recorder = Recorder()
    recorder.window = (0.0, float("inf"))
    return recorder


def test_a_stream_that_could_not_reopen_by_the_end_of_the_step_is_an_error():
    recorder = _recorder()
    recorder.stream_ended(_down_stream(2, time.monotonic() - 4), time.monotonic(), at_end=True)
    assert recorder.errors == {"stream": 1}
    [cause] = recorder.causes
    assert cause.startswith("stream not reopened by the end (2 tries")
    assert recorder.stream_events == {"renew": 1, "reopen failed": 2}
    assert recorder.streams_renewed == 1 and 4 <= recorder.gaps[0] < 5


def test_a_stream_still_waiting_for_its_moment_to_reopen_at_the_end_is_no_error():
    recorder = _recorder()
    recorder.stream_ended(_down_stream(0, time.monotonic() - 1), time.monotonic(), at_end=True)
    assert recorder.errors == {} and recorder.streams_renewed == 1


def test_an_error_of_the_ten_seconds_after_the_restart_is_counted_apart_by_when_it_failed():
    recorder = _recorder()
    now = time.monotonic()
    recorder.restart = (now - 1, now + 9)
    recorder.error(now - 5, "move", "POST /play/m/1/move/: 503")  # sent before the HUP
    recorder.restart = (now + 1, now + 11)
    recorder.error(now, "poll", "GET /play/m/1/poll/: 503")  # failed before it
    assert recorder.restart_causes == {"move 503": 1}
    assert recorder.causes == {"move 503": 1, "poll 503": 1}
