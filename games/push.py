"""Live updates: tell every open page of a match that a new version was committed.

One publisher API and one subscriber per process:

- :func:`announce` is called (through ``transaction.on_commit``) whenever a match's version
  changes, in whichever process commits it: a web worker, the background worker, the admin.
  A ``post_save`` receiver on :class:`~games.models.Match` (``games/receivers.py``)
  calls it for every save, so no code path that saves a match can forget; code that changes a
  match with ``QuerySet.update`` calls :func:`announce_on_commit` itself.
- Each server process runs one :class:`Hub` in its event loop: a single listener on the
  chosen backend that fans each message out to that process's open streams (asyncio events,
  no per-connection database polling). The streams themselves are ``games/streams.py``.

The message is small JSON: ``{"m": match id, "v": version, "u": [ids of seated members]}``.
Pages subscribe to ``m:<id>`` (a table, event ``version``) or ``u:<id>`` (a member's lobby list,
event ``mine``). The message carries no card and no state: a page that hears of a version
fetches its own fragment, drawn for its own seat, exactly as a poll does.

Other news rides on the same streams, so a page holds one connection whatever it shows:
:func:`publish_event` sends ``{"k": [keys], "e": event, "v": number}``, which wakes every stream
subscribed to one of the keys with that event. A table's stream also listens to ``t:<id>``
(news of the table that is not a move, e.g. its chat) and every member's stream to ``n:<id>``
(the member's own news, e.g. the notifications bell). Like a version, the number only says
"something changed, fetch it": never what.

Backends (``PUSH_BACKEND``):

``local`` (default; ``make run`` on SQLite, nothing to install)
    Every listening process binds a Unix datagram socket in one directory (derived from the
    database, so two databases on one machine never hear each other); a publisher sends one
    datagram to each socket it finds there. Delivery is immediate, costs nothing while idle,
    and a process that died leaves a socket file that refuses the datagram, which the next
    publisher removes. Chosen over polling a small table because polling adds its interval
    to every push and a query per process per interval forever; chosen over UDP ports because
    a directory of sockets needs no port registry and no configuration. Only one machine.
``redis``
    Redis pub/sub on ``PUSH_REDIS_URL``, channel ``PUSH_CHANNEL`` (several app servers).
``postgres``
    PostgreSQL ``LISTEN``/``NOTIFY`` on the default database (several app servers, no extra
    service). The publisher uses Django's own connection; each process's listener holds one
    extra connection.
``off``
    No push: pages poll (tests that need no live updates, or a broken broker).
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import hashlib
import json
import logging
import os
import queue
import random
import socket
import tempfile
import threading
import time
from pathlib import Path

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.db import connection, transaction

logger = logging.getLogger(__name__)


def message(match_id: int, version: int, members=()) -> bytes:
    return json.dumps(
        {"m": match_id, "v": version, "u": sorted({m for m in members if m})},
        separators=(",", ":"),
    ).encode()


def event_message(keys, event: str, value: int) -> bytes:
    return json.dumps(
        {"k": sorted(set(keys)), "e": event, "v": int(value)}, separators=(",", ":")
    ).encode()


def publish_event(keys, event: str, value: int) -> None:
    """Wake the streams subscribed to any of ``keys`` with ``event`` carrying ``value`` (a
    counter or an id: never content). Never raises, like :func:`announce`."""
    publisher().put(event_message(keys, event, value))


def publish_event_on_commit(keys, event: str, value: int) -> None:
    """:func:`publish_event` once the surrounding transaction commits (never on a rollback)."""
    if _backend_name() == "off":
        return
    keys = list(keys)
    transaction.on_commit(lambda: publish_event(keys, event, value))


def table_key(match_id: int) -> str:
    """The key of a table's news that is not a new version (e.g. its chat)."""
    return f"t:{match_id}"


def member_key(user_id: int) -> str:
    """The key of a member's own news (e.g. the notifications bell), heard on every stream."""
    return f"n:{user_id}"


def _prefetched_members(match) -> list[int] | None:
    """The seated members' ids from the seats the action already loaded, else ``None``."""
    cache = getattr(match, "_prefetched_objects_cache", {}).get("seats")
    if cache is None:
        return None
    return [seat.user_id for seat in cache if seat.user_id]


def _members(match_id: int) -> list[int]:
    from games.models import Seat

    return list(
        Seat.objects.filter(match_id=match_id, user__isnull=False).values_list("user_id", flat=True)
    )


def announce(match_id: int, version: int, members=None) -> None:
    """Publish that ``match_id`` is at ``version`` (``members``: the seated members' ids,
    looked up when not given). Never raises and never waits on the broker (the publisher's
    thread sends it): a lost push only means the pages learn of the version by their poll."""
    try:
        if members is None:
            members = _members(match_id)
    except Exception:
        logger.warning("push: could not announce match %s v%s", match_id, version, exc_info=True)
        return
    publisher().put(message(match_id, version, members))


def announce_on_commit(match) -> None:
    """Announce ``match`` at its current version once the surrounding transaction commits
    (at once outside a transaction; never when it rolls back). Costs no query inside the
    transaction: the members come from the prefetched seats or are looked up after it."""
    if _backend_name() == "off":
        return
    match_id, version = match.pk, match.version
    members = _prefetched_members(match)
    transaction.on_commit(lambda: announce(match_id, version, members))


# --- the stream's wire format ---------------------------------------------------------------

# How long the browser waits before reconnecting a dropped stream (the page polls meanwhile).
RETRY_MS = 2000


def sse_event(event: str, value) -> str:
    # A table's version is also the event's id: a browser reconnecting by itself sends it
    # back as Last-Event-ID, which tells the stream that the page may have missed other news.
    ident = f"id: {value}\n" if event == "version" else ""
    return f"{ident}event: {event}\ndata: {value}\n\n"


def sse_events(pending: dict[str, int] | None) -> str:
    """What a stream writes after waiting: each event heard, or a keep-alive. The keep-alive
    is an event, not a comment: EventSource hides comments, and the page must hear that its
    stream is alive (silent for twice the keep-alive: dead). An event needs data to fire."""
    if not pending:
        return "event: keepalive\ndata: 0\n\n"
    return "".join(sse_event(event, value) for event, value in pending.items())


# A stream's last words when its server stops (a deploy, a restart): reconnect, nothing was
# missed (static/js/live.js opens a new stream a moment later, spread at random, and fetches
# nothing before: the new stream's first event is the current version).
SSE_RENEW = "event: renew\ndata: 1\n\n"


def sse_head(first: dict[str, int]) -> str:
    """The start of a stream: the reconnection delay, then its first events (for a table its
    current version, so a move committed while the page had no stream is not missed)."""
    return f"retry: {RETRY_MS}\n\n" + sse_events(first) if first else f"retry: {RETRY_MS}\n\n"


# --- backends --------------------------------------------------------------------------------


def _backend_name() -> str:
    return getattr(settings, "PUSH_BACKEND", "local")


class LocalBackend:
    """Unix datagram sockets in one directory: one per listening process."""

    def __init__(self, directory: Path | None = None):
        self._directory = directory

    @property
    def directory(self) -> Path:
        if self._directory is not None:
            return self._directory
        configured = getattr(settings, "PUSH_SOCKET_DIR", "")
        if configured:
            return Path(configured)
        # Keyed on the database the processes share (the test database included, which is
        # only known once the test runner renamed it), short enough for a socket path.
        name = str(connection.settings_dict.get("NAME") or "")
        key = hashlib.sha1(f"{connection.vendor}:{name}".encode()).hexdigest()[:12]
        return Path(tempfile.gettempdir()) / f"cardclub-push-{key}"

    def publish(self, data: bytes) -> None:
        directory = self.directory
        try:
            names = os.listdir(directory)
        except FileNotFoundError:
            return  # nobody is listening
        with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
            sock.setblocking(False)
            for name in names:
                if not name.endswith(".sock"):
                    continue
                path = directory / name
                try:
                    sock.sendto(data, str(path))
                except (ConnectionRefusedError, FileNotFoundError):
                    # The process that bound it is gone.
                    with contextlib.suppress(OSError):
                        path.unlink()
                except BlockingIOError:
                    # Its queue is full: that process is stuck; its pages will poll.
                    logger.warning("push: %s is not reading", path)

    async def listen(self, deliver, ready) -> None:
        directory = self.directory
        directory.mkdir(mode=0o700, parents=True, exist_ok=True)
        path = directory / f"{os.getpid()}-{id(self):x}.sock"
        with contextlib.suppress(FileNotFoundError):
            path.unlink()
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        sock.bind(str(path))
        sock.setblocking(False)
        loop = asyncio.get_running_loop()
        closed = loop.create_future()

        class Protocol(asyncio.DatagramProtocol):
            def datagram_received(self, data, addr):
                deliver(data)

            def connection_lost(self, exc):
                if not closed.done():
                    closed.set_result(None)

        transport, _protocol = await loop.create_datagram_endpoint(Protocol, sock=sock)
        ready()
        try:
            await closed
        finally:
            transport.close()
            with contextlib.suppress(OSError):
                path.unlink()
            with contextlib.suppress(OSError):
                directory.rmdir()  # only when this was the last listener


# How often a quiet broker connection is asked whether it is still there, and how long it has
# to answer: a broker that hangs (paused, a network that drops packets) says nothing, and
# without the question its listener would wait for ever while the pages hear nothing.
HEALTH_EVERY = 2.0
HEALTH_TIMEOUT = 2.0


class BrokerSilent(ConnectionError):
    """The broker did not answer the listener's health check in time."""


class RedisBackend:
    # Short: the publisher's thread waits at most this long on a hung Redis per message.
    SEND_TIMEOUT = 1.0

    def __init__(self, url: str, channel: str):
        self.url, self.channel = url, channel
        self._client = None
        self._lock = threading.Lock()

    def publish(self, data: bytes) -> None:
        import redis
        from redis.backoff import NoBackoff
        from redis.retry import Retry

        with self._lock:
            if self._client is None:
                self._client = redis.Redis.from_url(
                    self.url,
                    socket_timeout=self.SEND_TIMEOUT,
                    socket_connect_timeout=self.SEND_TIMEOUT,
                    # One more try on a fresh connection, at once: a broker that restarted is
                    # reached again; one that is away costs the thread two timeouts, not ten.
                    retry=Retry(NoBackoff(), 1),
                )
        self._client.publish(self.channel, data)

    async def listen(self, deliver, ready) -> None:
        import redis.asyncio as aioredis
        from redis.asyncio.retry import Retry
        from redis.backoff import NoBackoff

        # No silent retries inside redis-py: a reconnect it made on its own would hide the
        # outage, and the messages published meanwhile, from the hub.
        client = aioredis.Redis.from_url(
            self.url, socket_connect_timeout=HEALTH_TIMEOUT, retry=Retry(NoBackoff(), 0)
        )
        pubsub = client.pubsub()
        try:
            await asyncio.wait_for(pubsub.subscribe(self.channel), HEALTH_TIMEOUT)
            ready()
            asked = None  # when the unanswered health check was sent
            while True:
                item = await pubsub.get_message(timeout=HEALTH_EVERY)
                if item is None:
                    if asked is not None and time.monotonic() - asked > HEALTH_TIMEOUT:
                        raise BrokerSilent("Redis did not answer the listener's PING")
                    if asked is None:
                        await asyncio.wait_for(pubsub.ping(), HEALTH_TIMEOUT)
                        asked = time.monotonic()
                    continue
                asked = None  # anything heard shows the connection is alive
                if item.get("type") == "message":
                    deliver(item["data"])
        finally:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(pubsub.aclose(), 1)
            with contextlib.suppress(Exception):
                await asyncio.wait_for(client.aclose(), 1)


class PostgresBackend:
    def __init__(self, channel: str):
        self.channel = channel

    def publish(self, data: bytes) -> None:
        # On the publisher's thread, in autocommit: the NOTIFY goes out at once.
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_notify(%s, %s)", [self.channel, data.decode()])

    async def listen(self, deliver, ready) -> None:
        import psycopg
        from psycopg import sql

        params = connection.get_connection_params()
        for name in ("cursor_factory", "context", "prepare_threshold", "server_side_binding"):
            params.pop(name, None)
        params.setdefault("connect_timeout", int(HEALTH_TIMEOUT) or 1)
        conn = await asyncio.wait_for(
            psycopg.AsyncConnection.connect(**params, autocommit=True), HEALTH_TIMEOUT * 2
        )
        try:
            await conn.execute(sql.SQL("LISTEN {}").format(sql.Identifier(self.channel)))
            ready()
            while True:
                async for notify in conn.notifies(timeout=HEALTH_EVERY):
                    deliver(notify.payload.encode())
                # Quiet for HEALTH_EVERY: is the server still there?
                try:
                    await asyncio.wait_for(conn.execute("SELECT 1"), HEALTH_TIMEOUT)
                except TimeoutError:
                    raise BrokerSilent("PostgreSQL did not answer the listener") from None
        finally:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(conn.close(), 1)


_backend = None
_backend_key = None


def backend():
    """The configured backend (built once per process and per setting)."""
    global _backend, _backend_key
    name = _backend_name()
    channel = getattr(settings, "PUSH_CHANNEL", "cardclub")
    key = (name, channel, getattr(settings, "PUSH_REDIS_URL", ""))
    if _backend is not None and _backend_key == key:
        return _backend
    if name == "local":
        made = LocalBackend()
    elif name == "redis":
        made = RedisBackend(settings.PUSH_REDIS_URL, channel)
    elif name == "postgres":
        if connection.vendor != "postgresql":
            raise ImproperlyConfigured("PUSH_BACKEND=postgres needs a PostgreSQL DATABASE_URL.")
        # A LISTEN channel is an identifier: keep it one.
        made = PostgresBackend(channel.replace(":", "_").replace("-", "_"))
    elif name == "off":
        made = _Off()
    else:
        raise ImproperlyConfigured(f"Unknown PUSH_BACKEND {name!r}: local, redis, postgres or off.")
    _backend, _backend_key = made, key
    return made


class _Off:
    def publish(self, data: bytes) -> None:
        pass

    async def listen(self, deliver, ready) -> None:
        ready()
        await asyncio.Event().wait()


# --- the per-process publisher --------------------------------------------------------------


class Publisher:
    """Sends this process's messages to the broker from a thread of its own.

    A request (or the worker) only puts the message in a bounded queue, which never waits: a
    broker that is down costs a move nothing, and one that hangs blocks only this thread (each
    send has a short timeout). When the queue is full the message is dropped with a log line;
    the pages learn of that version by their poll, or by the first event of their next stream.
    """

    def __init__(self, size: int = 1000):
        self.size = size
        self.dropped = 0
        self.failed = 0
        self._failing = False
        self._pid = None
        self._queue: queue.Queue[bytes] = queue.Queue(size)
        self._lock = threading.Lock()

    def put(self, data: bytes) -> None:
        self._started()
        try:
            self._queue.put_nowait(data)
        except queue.Full:
            self.dropped += 1
            # One line per hundred drops: a broker that hangs during a rush must not also
            # flood the log.
            if self.dropped % 100 == 1:
                logger.warning(
                    "push: the broker is not keeping up; %s messages dropped", self.dropped
                )

    def drain(self, timeout: float = 5.0) -> bool:
        """Wait until every message put so far was sent (or given up); ``False`` after
        ``timeout``. For tests and for a process about to exit."""
        deadline = time.monotonic() + timeout
        with self._queue.all_tasks_done:
            while self._queue.unfinished_tasks:
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._queue.all_tasks_done.wait(left)
        return True

    def _started(self) -> None:
        if self._pid == os.getpid():
            return
        with self._lock:
            if self._pid == os.getpid():
                return
            # A forked child (gunicorn's workers) gets a queue and a thread of its own.
            self._queue = queue.Queue(self.size)
            threading.Thread(target=self._run, name="push-publisher", daemon=True).start()
            self._pid = os.getpid()

    def _run(self) -> None:
        while True:
            data = self._queue.get()
            try:
                backend().publish(data)
            except Exception:
                self.failed += 1
                # The first failure of a run is logged whole; the rest are counted, so a
                # broker that is away for an hour does not fill the log.
                if not self._failing:
                    logger.warning("push: could not publish (pages will poll)", exc_info=True)
                self._failing = True
            else:
                if self._failing:
                    logger.warning("push: publishing again (%s messages lost)", self.failed)
                self._failing, self.failed = False, 0
            finally:
                self._queue.task_done()
            if self._queue.empty():
                # The PostgreSQL backend publishes on this thread's own connection: give it
                # back between bursts rather than hold one of the pool's for ever.
                with contextlib.suppress(Exception):
                    connection.close()


_publisher = Publisher()
atexit.register(lambda: _publisher.drain(1.0))


def publisher() -> Publisher:
    return _publisher


def drain(timeout: float = 5.0) -> bool:
    """Wait until this process's messages so far were handed to the broker (tests)."""
    return _publisher.drain(timeout)


# --- the per-process subscriber ------------------------------------------------------------


class StreamEnded(Exception):
    """The hub closed this stream: its listener lost the broker (the page polls meanwhile and
    opens a new stream later, whose first event is the version it missed); or, ``renew``, its
    server is stopping (the page opens a new stream, to whichever server answers)."""

    def __init__(self, renew: bool = False):
        super().__init__()
        self.renew = renew


class Subscription:
    """One open stream's mailbox: per event, the newest number heard, and an event to wake it.

    Numbers coalesce: a stream that is slow to write hears only the newest one of each event,
    which is all a page needs (it fetches the table, the chat, the bell as they are now).
    """

    __slots__ = ("hub", "keys", "member", "pending", "ended", "renewing", "_event")

    def __init__(self, hub: Hub, keys: tuple[str, ...], member: int | None = None):
        self.hub, self.keys, self.member = hub, keys, member
        self.pending: dict[str, int] = {}
        self.ended = False
        self.renewing = False
        self._event = asyncio.Event()

    def put(self, version: int, event: str = "version") -> None:
        current = self.pending.get(event)
        if current is None or version > current:
            self.pending[event] = version
        self._event.set()

    def end(self) -> None:
        self.ended = True
        self._event.set()

    def renew(self) -> None:
        """The server is stopping: the stream says so and ends (cardclub/server.py)."""
        self.renewing = True
        self.end()

    async def wait(self, timeout: float) -> dict[str, int] | None:
        """The newest number of each event heard since the last call (in the order first
        heard), or ``None`` after ``timeout``. Raises :class:`StreamEnded` once the hub ended
        the stream."""
        if not self.ended:
            try:
                await asyncio.wait_for(self._event.wait(), timeout)
            except TimeoutError:
                return None
        if self.ended:
            raise StreamEnded(renew=self.renewing)
        self._event.clear()
        pending, self.pending = self.pending, {}
        return pending

    def close(self) -> None:
        self.hub.unsubscribe(self)


class Hub:
    """The one listener of this process and the streams it serves.

    While the listener is connected (:attr:`live`) the streams hear every message. When it
    loses the broker every stream is ended, so that no page trusts a stream that can no longer
    hear anything (the pages poll), and new streams are refused until the listener is back:
    it reconnects with a growing pause (with jitter, so that the processes of a fleet do not
    knock together), and the streams the pages then open start with the current version.
    """

    RETRY_FIRST = 0.25
    RETRY_MAX = 2.0

    def __init__(self, loop: asyncio.AbstractEventLoop):
        self.loop = loop
        self.streams: dict[str, set[Subscription]] = {}
        self.by_member: dict[int, int] = {}
        self.delivered = 0
        self.outages = 0
        self._task: asyncio.Task | None = None
        self.ready = asyncio.Event()

    @property
    def live(self) -> bool:
        return self.ready.is_set()

    def subscribe(self, *keys: str, member: int | None = None) -> Subscription:
        sub = Subscription(self, keys, member)
        for key in keys:
            self.streams.setdefault(key, set()).add(sub)
        if member is not None:
            self.by_member[member] = self.by_member.get(member, 0) + 1
        return sub

    def unsubscribe(self, sub: Subscription) -> None:
        first = self.streams.get(sub.keys[0], ()) if sub.keys else ()
        if sub not in first:
            return  # closed already
        for key in sub.keys:
            subs = self.streams.get(key)
            if subs is not None:
                subs.discard(sub)
                if not subs:
                    del self.streams[key]
        if sub.member is not None:
            left = self.by_member.get(sub.member, 1) - 1
            if left > 0:
                self.by_member[sub.member] = left
            else:
                self.by_member.pop(sub.member, None)

    def member_streams(self, member: int) -> int:
        return self.by_member.get(member, 0)

    def _all(self) -> set[Subscription]:
        return {sub for subs in self.streams.values() for sub in subs}

    def end_all(self) -> None:
        for sub in self._all():
            sub.end()

    def deliver(self, data: bytes) -> None:
        try:
            item = json.loads(data)
            version = int(item["v"])
            if "k" in item:
                event = str(item["e"])
                targets = [(str(key), event) for key in item["k"]]
            else:
                targets = [
                    (f"m:{int(item['m'])}", "version"),
                    *((f"u:{int(u)}", "mine") for u in item.get("u", ())),
                ]
        except (ValueError, KeyError, TypeError, AttributeError):
            logger.warning("push: ignored a malformed message %r", data[:200])
            return
        self.delivered += 1
        for key, event in targets:
            for sub in self.streams.get(key, ()):
                sub.put(version, event)

    def start(self) -> None:
        if self._task is None or self._task.done():
            self._task = self.loop.create_task(self._run())

    async def wait_live(self, timeout: float) -> bool:
        """Whether the listener is connected, waiting up to ``timeout`` for it (a process's
        first stream arrives while its listener is still connecting)."""
        if not self.live:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.ready.wait(), timeout)
        return self.live

    async def _run(self) -> None:
        # The listener runs as long as the process.
        pause = self.RETRY_FIRST
        while True:
            started = time.monotonic()
            try:
                await backend().listen(self.deliver, self.ready.set)
            except asyncio.CancelledError:
                self._lost()
                raise
            except Exception as error:
                if self.live or pause == self.RETRY_FIRST:
                    logger.warning("push: listener lost the broker (%r), retrying", error)
            self._lost()
            if time.monotonic() - started > self.RETRY_MAX * 4:
                pause = self.RETRY_FIRST  # it had been up a while: a new outage
            await asyncio.sleep(pause * random.uniform(0.5, 1.0))
            pause = min(pause * 2, self.RETRY_MAX)

    def _lost(self) -> None:
        if self.live:
            self.outages += 1
        self.ready.clear()
        self.end_all()

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None


_hubs: dict[int, Hub] = {}


def hub() -> Hub:
    """This event loop's hub, started on first use."""
    loop = asyncio.get_running_loop()
    current = _hubs.get(id(loop))
    if current is None or current.loop is not loop:
        # Forget hubs of loops that are gone (tests run a loop per test).
        for key, old in list(_hubs.items()):
            if old.loop.is_closed():
                del _hubs[key]
        current = _hubs[id(loop)] = Hub(loop)
    current.start()
    return current
