"""The capacity benchmark's HTTP client: keep-alive HTTP/1.1 on bare asyncio streams (issue 34).

The load generator runs on the same small machine as the server it measures, so what it spends
per request is taken from the server. Measured in one sitting (50 live tables for 15 s, the
machine loaded 5–17 by other work), the generator's CPU per request was 7.9 ms (PostgreSQL) and
9.2 ms (SQLite) with httpx's ``AsyncClient`` (its request and response models, header
normalisation, cookie jar, pool and the h11 state machine, in pure Python), 1.0 and 1.2 ms with
aiohttp's ``ClientSession``, and 0.7 and 0.9 ms with this client; the client alone (a 5 KB page
from a bare uvicorn app) cost 3.4–4.1 ms, 0.2 ms and 0.09 ms a request. aiohttp, though well
kept, was not used: it costs more (1.4× in the benchmark, over 2× alone), and it sends a failed GET again by
itself on a reused connection, which hides the retries the benchmark counts (only a private
attribute turns that off). The subset asked of a client here is small
and fixed: the server is our own (uvicorn behind gunicorn, ``cardclub/server.py``), and it
answers only with

- an HTTP/1.1 status line and headers, ending in an empty line;
- a body framed by ``Content-Length`` or by ``Transfer-Encoding: chunked`` (chunk extensions
  and trailers are skipped), none for 1xx/204/304 answers, or one read to the end of the
  connection when neither is given (the connection is then not reused);
- ``Connection: close`` when it will close.

No TLS, no proxies, no redirects followed (the benchmark reads ``Location`` itself), no cookie
jar (each member's cookies are in the headers it sends, as the benchmark always did), no HTTP/2,
no ``Expect: 100-continue``. ``gzip``/``deflate`` bodies are decoded (the request offers them,
as httpx's did) although the club does not compress its pages.

Behaviour kept from the httpx client it replaces: a pool of kept-alive connections shared by the
members of one generator process, each idle connection dropped after ``keepalive`` seconds
(shorter than the server's keep-alive, so the server seldom closes one under a request), an idle
connection the server has already closed is not reused, and ``timeout`` seconds to connect and
then as many for the request to be sent and its whole answer read (httpx timed each read: the
club sends an answer at once, so the two differ only for an answer that trickles in). A connection the server closes under a request raises
:class:`ConnectionClosed` (a :class:`TransportError`), which says whether a browser would send
the request again; the benchmark's sending it again is its own (``Person.request``). A timeout raises :class:`Timeout`, also a
:class:`TransportError`, that the benchmark does not retry.
"""

from __future__ import annotations

import asyncio
import time
import zlib
from collections import deque
from urllib.parse import urlencode

NO_BODY = {204, 304}
USER_AGENT = "cardclub-capacity-bench"


class TransportError(Exception):
    """The request got no whole answer."""


class ConnectionClosed(TransportError):
    """The server closed the connection (or it failed) before the whole answer arrived.

    ``resendable``: the connection had served an earlier request and not one byte of this
    answer came. Chromium then sends the request again on a new connection, a POST as well as
    a GET (measured with Debian's Chromium 156: a ``fetch`` POST whose kept-alive connection
    was closed as it arrived was sent again and answered 200): a server may close an idle
    connection at the moment a request is sent on it, and that request was never served."""

    def __init__(self, message: str, resendable: bool = False):
        super().__init__(message)
        self.resendable = resendable


class ConnectError(TransportError):
    """No connection could be opened."""


class Timeout(TransportError):
    """No connection, request or answer within the client's timeout."""


class ProtocolError(TransportError):
    """The server's answer is not the HTTP/1.1 this client reads."""


class Response:
    """A whole answer: its status, its headers (names in lower case; ``set-cookie`` kept as
    each header sent, the others joined as HTTP allows) and its body."""

    __slots__ = ("status_code", "headers", "cookies", "content")

    def __init__(self, status_code: int, headers: dict[str, str], cookies: list[str], content):
        self.status_code = status_code
        self.headers = headers
        self.cookies = cookies  # each Set-Cookie header's value, in order
        self.content = content

    @property
    def text(self) -> str:
        return self.content.decode("utf-8", errors="replace")


def parse_head(head: bytes) -> tuple[int, dict[str, str], list[str]]:
    """The status, headers and Set-Cookie values of a response head (up to its empty line)."""
    lines = head.decode("latin-1").split("\r\n")
    parts = lines[0].split(" ", 2)
    if len(parts) < 2 or not parts[0].startswith("HTTP/1.") or not parts[1].isdigit():
        raise ProtocolError(f"not an HTTP/1.1 status line: {lines[0][:80]!r}")
    headers: dict[str, str] = {}
    cookies: list[str] = []
    for line in lines[1:]:
        if not line:
            continue
        name, colon, value = line.partition(":")
        if not colon:
            raise ProtocolError(f"not a header line: {line[:80]!r}")
        name, value = name.strip().lower(), value.strip()
        if name == "set-cookie":
            cookies.append(value)
        headers[name] = f"{headers[name]}, {value}" if name in headers else value
    if cookies:
        headers["set-cookie"] = cookies[-1]
    return int(parts[1]), headers, cookies


async def read_chunked(reader: asyncio.StreamReader) -> bytes:
    """A chunked body (RFC 9112 §7.1): sizes in hex, extensions and trailers skipped."""
    body = bytearray()
    while True:
        line = await reader.readuntil(b"\r\n")
        try:
            size = int(line.split(b";", 1)[0].strip(), 16)
        except ValueError:
            raise ProtocolError(f"not a chunk size: {line[:40]!r}") from None
        if size == 0:
            while (await reader.readuntil(b"\r\n")) != b"\r\n":
                pass  # trailers
            return bytes(body)
        body += await reader.readexactly(size)
        if await reader.readexactly(2) != b"\r\n":
            raise ProtocolError("a chunk not ended by CRLF")


def decoded(body: bytes, encoding: str | None) -> bytes:
    if encoding == "gzip":
        return zlib.decompress(body, 16 + zlib.MAX_WBITS)
    if encoding == "deflate":
        return zlib.decompress(body)
    return body


class Connection:
    __slots__ = ("reader", "writer", "idle_since", "served", "answering")

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter):
        self.reader, self.writer = reader, writer
        self.idle_since = 0.0
        self.served = 0  # whole answers read on it
        self.answering = False  # some of the current request's answer has come

    @property
    def usable(self) -> bool:
        """Not closed by either end: the loop has fed the reader the server's EOF if it came."""
        return not (self.writer.is_closing() or self.reader.at_eof())

    def close(self) -> None:
        self.writer.close()


class Client:
    """Keep-alive HTTP/1.1 requests to ``127.0.0.1:port`` (see the module's docstring)."""

    def __init__(self, port: int, timeout: float = 10.0, keepalive: float = 30.0):
        self.port, self.timeout, self.keepalive = port, timeout, keepalive
        self.host = f"127.0.0.1:{port}"
        self.idle: deque[Connection] = deque()  # the most recently used on the right
        self.connections_opened = 0

    async def __aenter__(self) -> Client:
        return self

    async def __aexit__(self, *_exc) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        while self.idle:
            self.idle.pop().close()

    async def connection(self) -> Connection:
        """The most recently used idle connection still open, else a new one."""
        now = time.monotonic()
        # The oldest first: those idle too long are dropped, before the server drops them.
        while self.idle and now - self.idle[0].idle_since > self.keepalive:
            self.idle.popleft().close()
        while self.idle:
            connection = self.idle.pop()
            if connection.usable:
                return connection
            connection.close()
        try:
            async with asyncio.timeout(self.timeout):
                reader, writer = await asyncio.open_connection("127.0.0.1", self.port)
        except TimeoutError:
            raise Timeout("connect") from None
        except OSError as error:
            raise ConnectError(f"{type(error).__name__}: {error}") from None
        self.connections_opened += 1
        return Connection(reader, writer)

    async def request(
        self,
        method: str,
        path: str,
        data: dict[str, str] | None = None,
        headers: dict[str, str] | None = None,
    ) -> Response:
        """One request; its whole answer. Raises a :class:`TransportError` if there is none."""
        lines = [
            f"{method} {path} HTTP/1.1",
            f"Host: {self.host}",
            "Accept: */*",
            "Accept-Encoding: gzip, deflate",
            "Connection: keep-alive",
            f"User-Agent: {USER_AGENT}",
        ]
        lines += [f"{name}: {value}" for name, value in (headers or {}).items()]
        body = b""
        if data is not None:
            body = urlencode(data, doseq=True).encode()
            lines.append("Content-Type: application/x-www-form-urlencoded")
        if data is not None or method in ("POST", "PUT", "PATCH"):
            lines.append(f"Content-Length: {len(body)}")
        message = ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body

        connection = await self.connection()
        try:
            async with asyncio.timeout(self.timeout):
                response, reusable = await self.exchange(connection, message, method)
        except TimeoutError:
            connection.close()
            raise Timeout(f"{method} {path}") from None
        except (OSError, asyncio.IncompleteReadError, asyncio.LimitOverrunError) as error:
            connection.close()
            answered = connection.answering or bool(getattr(error, "partial", b""))
            resendable = connection.served > 0 and not answered
            raise ConnectionClosed(type(error).__name__, resendable) from None
        except BaseException:
            connection.close()
            raise
        connection.served += 1
        if reusable:
            connection.idle_since = time.monotonic()
            self.idle.append(connection)
        else:
            connection.close()
        return response

    async def exchange(
        self, connection: Connection, message: bytes, method: str
    ) -> tuple[Response, bool]:
        reader, writer = connection.reader, connection.writer
        connection.answering = False
        writer.write(message)
        await writer.drain()
        head = await reader.readuntil(b"\r\n\r\n")
        connection.answering = True
        status, headers, cookies = parse_head(head)
        while 100 <= status < 200:  # an interim answer: the real one follows
            head = await reader.readuntil(b"\r\n\r\n")
            status, headers, cookies = parse_head(head)
        reusable = "close" not in headers.get("connection", "").lower()
        if method == "HEAD" or status in NO_BODY:
            content = b""
        elif "chunked" in headers.get("transfer-encoding", "").lower():
            content = await read_chunked(reader)
        elif "content-length" in headers:
            try:
                length = int(headers["content-length"])
            except ValueError:
                raise ProtocolError("a Content-Length that is not a number") from None
            content = await reader.readexactly(length)
        else:
            content = await reader.read()  # to the end of the connection
            reusable = False
        try:
            content = decoded(content, headers.get("content-encoding"))
        except zlib.error:
            raise ProtocolError("a body that does not decode") from None
        return Response(status, headers, cookies, content), reusable
