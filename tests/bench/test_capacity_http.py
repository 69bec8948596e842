"""The capacity benchmark's own HTTP client reads what the club's server sends: each test serves
scripted bytes from a local asyncio server and checks what the client (or the benchmark's
member, for the retry rule) makes of them."""

from __future__ import annotations

import asyncio
import random

import pytest

from tests.bench.bench_capacity import Member, Person, Recorder, Table
from tests.bench.capacity_http import Client, ConnectionClosed, parse_head, read_chunked
from tests.servers import run_in_new_loop


async def _read_request(reader: asyncio.StreamReader) -> bytes | None:
    """One request's head and its Content-Length body, or None at the end of the connection."""
    try:
        head = await reader.readuntil(b"\r\n\r\n")
    except asyncio.IncompleteReadError:
        return None
    length = 0
    for line in head.split(b"\r\n"):
        if line.lower().startswith(b"content-length:"):
            length = int(line.split(b":", 1)[1])
    return head + await reader.readexactly(length)


class _Cut(bytes):
    """Bytes sent before the connection is closed."""


async def _serve(answers, requests: list[bytes]):
    """A server answering the n-th request of each connection with ``answers(n, connection)``
    (bytes to send; None: close the connection without answering; ``_Cut``: send, then
    close)."""
    connections = 0

    async def handle(reader, writer):
        nonlocal connections
        connection, connections = connections, connections + 1
        n = 0
        while (request := await _read_request(reader)) is not None:
            requests.append(request)
            answer = answers(n, connection)
            if answer is None:
                break
            writer.write(answer)
            await writer.drain()
            if isinstance(answer, _Cut):
                break
            n += 1
        writer.close()

    return await asyncio.start_server(handle, "127.0.0.1", 0)


def _port(server) -> int:
    return server.sockets[0].getsockname()[1]


def _run(answers, exchange):
    """Serve ``answers``; ``await exchange(client)``; its result and the requests received."""

    async def main():
        requests: list[bytes] = []
        server = await _serve(answers, requests)
        async with server, Client(_port(server), timeout=5) as client:
            return await exchange(client), requests, client

    return run_in_new_loop(main())


PAGE = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 5\r\n\r\nhello"


def test_a_chunked_body_is_joined_without_its_sizes_extensions_or_trailers():
    chunked = (
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
        b"5\r\n<sect\r\n"
        b'a;name=value\r\nion id="t"\r\n'
        b"0\r\nX-Trailer: yes\r\n\r\n"
    )

    async def twice(client):
        first = await client.request("GET", "/play/m/1/")
        return first, await client.request("GET", "/play/m/1/")

    (first, second), _requests, client = _run(lambda n, _c: chunked if n == 0 else PAGE, twice)
    assert first.content == b'<section id="t"'
    # The chunked body was read to its end: the next answer on the connection is whole.
    assert second.content == b"hello"
    assert client.connections_opened == 1


def test_chunk_sizes_are_hexadecimal():
    async def read():
        reader = asyncio.StreamReader()
        reader.feed_data(b"1A\r\n" + b"x" * 26 + b"\r\n0\r\n\r\n")
        return await read_chunked(reader)

    assert run_in_new_loop(read()) == b"x" * 26


def test_every_set_cookie_header_is_kept_and_other_repeated_headers_are_joined():
    status, headers, cookies = parse_head(
        b"HTTP/1.1 302 Found\r\nLocation: /play/m/9/\r\n"
        b"Set-Cookie: csrftoken=abc; Path=/; SameSite=Lax\r\n"
        b"Vary: Cookie\r\nvary: Accept-Language\r\n"
        b"set-cookie: sessionid=xyz; HttpOnly; Path=/\r\n\r\n"
    )
    assert status == 302
    assert headers["location"] == "/play/m/9/"
    assert cookies == ["csrftoken=abc; Path=/; SameSite=Lax", "sessionid=xyz; HttpOnly; Path=/"]
    assert headers["vary"] == "Cookie, Accept-Language"


def test_a_set_cookie_answer_changes_nothing_the_next_request_sends():
    answer = b"HTTP/1.1 204 No Content\r\nSet-Cookie: sessionid=other; Path=/\r\n\r\n"

    async def twice(client):
        headers = {"Cookie": "sessionid=mine", "X-CSRFToken": "t", "HX-Request": "true"}
        first = await client.request("GET", "/a/", headers=headers)
        await client.request("POST", "/b/", data={"code": "c:1", "v": "3"}, headers=headers)
        return first

    first, requests, _client = _run(lambda _n, _c: answer, twice)
    assert first.status_code == 204 and first.content == b""
    assert first.cookies == ["sessionid=other; Path=/"]
    get, post = requests
    assert b"\r\nCookie: sessionid=mine\r\n" in get and b"sessionid=other" not in post
    assert b"\r\nX-CSRFToken: t\r\nHX-Request: true\r\n" in post
    assert b"Content-Type: application/x-www-form-urlencoded" in post
    assert post.endswith(b"\r\n\r\ncode=c%3A1&v=3")


def test_a_closed_connection_under_a_request_is_an_error_the_client_does_not_hide():
    async def twice(client):
        await client.request("GET", "/a/")
        with pytest.raises(ConnectionClosed):
            await client.request("GET", "/a/")

    _result, requests, _client = _run(lambda n, _c: PAGE if n == 0 else None, twice)
    assert len(requests) == 2


def _member_of(client, recorder) -> Person:
    table = Table("scout", 1, [], 5)
    member = Member("cap0", "session")
    return Person(member, table, 0, client, recorder, random.Random(1), float("inf"))


def test_a_get_on_a_kept_alive_connection_closed_under_it_is_sent_again_once():
    # The first connection answers once, then closes when the second request arrives; the
    # second connection answers.
    def answers(n, connection):
        return PAGE if connection == 1 or n == 0 else None

    async def play(client):
        recorder = Recorder()
        recorder.window = (0.0, float("inf"))
        person = _member_of(client, recorder)
        await person.request("page", "GET", "/play/m/5/")
        again = await person.request("page", "GET", "/play/m/5/")
        return recorder, again

    (recorder, again), requests, client = _run(answers, play)
    assert again.content == b"hello"
    assert recorder.retried == 1
    assert recorder.errors == {}
    assert len(requests) == 3 and client.connections_opened == 2


def _move_after_a_page(client):
    """A member's page, then their move on the same kept-alive connection."""

    async def play():
        recorder = Recorder()
        recorder.window = (0.0, float("inf"))
        person = _member_of(client, recorder)
        await person.request("page", "GET", "/play/m/5/")
        moved = await person.request("move", "POST", "/play/m/5/move/", data={"code": "x"})
        return recorder, moved

    return play()


def test_a_post_on_a_kept_alive_connection_closed_before_any_answer_is_sent_again_once():
    # As Chromium does: the first connection answers the page, then closes as the move
    # arrives; the move is sent on a new connection and answered.
    def answers(n, connection):
        return PAGE if connection == 1 or n == 0 else None

    (recorder, moved), requests, client = _run(answers, _move_after_a_page)
    assert moved.content == b"hello"
    assert recorder.retried == 1 and recorder.errors == {}
    assert [request.split(b" ", 1)[0] for request in requests] == [b"GET", b"POST", b"POST"]
    assert client.connections_opened == 2


def test_a_post_whose_answer_was_cut_short_is_an_error_not_sent_again():
    # Part of the answer came: the server had the move, so sending it again could play it
    # twice; the member is told it failed instead.
    cut = _Cut(b"HTTP/1.1 200 OK\r\nContent-Length: 50\r\n\r\nhel")

    (recorder, moved), requests, _client = _run(
        lambda n, _c: PAGE if n == 0 else cut, _move_after_a_page
    )
    assert moved is None
    assert recorder.retried == 0
    assert recorder.causes == {"move ConnectionClosed": 1}
    assert len(requests) == 2


def test_a_post_on_a_new_connection_closed_before_any_answer_is_not_sent_again():
    async def play(client):
        recorder = Recorder()
        recorder.window = (0.0, float("inf"))
        moved = await _member_of(client, recorder).request(
            "move", "POST", "/play/m/5/move/", data={"code": "x"}
        )
        return recorder, moved

    (recorder, moved), requests, _client = _run(lambda n, _c: None, play)
    assert moved is None
    assert recorder.retried == 0
    assert recorder.causes == {"move ConnectionClosed": 1}
    assert len(requests) == 1
