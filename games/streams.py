"""The push streams: one Server-Sent Events stream per open page, fed by this process's hub.

One implementation, a lean ASGI app in front of Django (``cardclub/asgi.py`` wires it). Why not
a Django view: Django's ASGI handler gives every request its own thread for its synchronous
middleware, kept until the response ends, so an open stream would hold a parked thread for as
long as the page stays open (about 300 KB and a thread each, measured with 1,000 streams).
Here a stream is an asyncio task and a few small objects: the session is read once (in
Django's shared sync thread), then the stream waits on the process's push hub
(``games/push.py``). The URLs are still Django's (``games:live``, ``games:my_matches_live``),
answered by :func:`no_stream` wherever this app is not in front (WSGI: ``runserver``, the test
``live_server``): 204, which tells the browser not to reconnect, and the page polls.

What a stream promises the page:

- Its first event is the current state: a table's version (``event: version``, also the
  event's ``id``) or the lobby list's stamp (``event: mine``). A page that had no stream for
  a while (offline, a restart, a broker outage) misses nothing by opening a new one. A browser
  reconnecting by itself sends the last id back (``Last-Event-ID``): such a page may have
  missed other news too, so its stream also starts with ``chat`` and ``bell`` (fetch them).
- It carries only numbers, never cards; the page fetches its own fragment.
- A keep-alive event (``event: keepalive``) every ``PUSH_KEEPALIVE_SECONDS`` (the page's
  ``data-keepalive``): a stream silent for longer than twice that is dead, whatever the
  browser believes.
- While this process's listener has lost the broker, streams are ended and new ones refused
  with 503 and ``Retry-After`` (the page polls): a stream that cannot hear would be a lie.
- At most ``PUSH_STREAMS_PER_MEMBER`` open at once per member and process; past that, 429
  with ``Retry-After`` and a sentence saying why (that page polls instead).
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from http.cookies import SimpleCookie
from importlib import import_module
from types import SimpleNamespace

from asgiref.sync import sync_to_async
from django.conf import settings
from django.contrib.auth import aget_user
from django.core.handlers.asgi import ASGIRequest
from django.db import DatabaseError
from django.http import HttpResponse
from django.http.request import split_domain_port, validate_host
from django.urls import Resolver404, resolve
from django.utils import translation
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET

from cardclub.server import STREAMING
from games import push
from games.models import Match, Seat
from games.signals import match_page_open

HEADERS = [
    (b"content-type", b"text/event-stream; charset=utf-8"),
    (b"cache-control", b"no-cache, no-store, private"),
    # Tell nginx and similar proxies not to buffer the stream.
    (b"x-accel-buffering", b"no"),
    (b"x-content-type-options", b"nosniff"),
]
# A process's first streams may come while its listener is still connecting: wait this long.
LISTENER_WAIT = 1.0
# Seconds a page is told to wait before asking again for a stream it was refused.
RETRY_AFTER = 2

# Streams of other apps' pages (e.g. a cup's bracket), by "namespace:url_name" of a URL with a
# ``pk``: ``keys(pk)`` the keys the stream listens to (the member's own news comes too) and
# ``first(pk, user_id)`` a coroutine giving its first events (``None``: a 404). Registered by
# the app (its ``ready``), so this module imports nothing of theirs.
PAGE_STREAMS: dict[str, tuple] = {}


def register_page_stream(name: str, keys, first) -> None:
    PAGE_STREAMS[name] = (keys, first)


def can_stream(request) -> bool:
    """Whether this server can hold a stream open: under ASGI. Pages served under WSGI
    (``runserver``, the tests' ``live_server``, a sync gunicorn) open none and poll."""
    return isinstance(request, ASGIRequest)


@require_GET
def no_stream(request, **kwargs):
    """What Django answers at a stream's URL, where :class:`LiveStreams` is not in front of it:
    204, so the browser does not reconnect and the page polls."""
    return HttpResponse(status=204)


def mine_stamp(total: int, changed) -> int:
    """A number that changes whenever the member's list of live matches does (how many, and
    the latest change of any): the lobby list's "version", in its ``data-version`` and as its
    stream's first event."""
    if changed is None:
        return total
    return int(changed.timestamp() * 1000) * 1000 + total % 1000


async def _mine_now(user_id: int) -> int:
    # The lobby's own reading (views._mine), so the stream and the page agree on the version.
    stamp = await sync_to_async(Seat.live_stamp)(user_id)
    return mine_stamp(stamp["total"], stamp["changed"])


class LiveStreams:
    def __init__(self, django_app):
        self.django_app = django_app

    async def __call__(self, scope, receive, send):
        if scope["type"] == "http" and scope["method"] == "GET":
            target = _stream_target(scope)
            if target is not None and settings.PUSH_BACKEND == "off":
                # No push at all: a stream would only ever say the first version. 204, as
                # Django's own answer says, and the page polls.
                await _plain(send, 204)
                return
            if target is not None:
                await self.stream(scope, receive, send, *target)
                return
        await self.django_app(scope, receive, send)

    async def stream(self, scope, receive, send, name: str, match_id: int | None) -> None:
        if not _host_allowed(scope):
            await _plain(send, 400)
            return
        try:
            user_id = await _member_id(scope)
        except DatabaseError:
            # The database is away (a restart): no stream, and no 500; the page polls.
            await _plain(send, 503, _refusal(scope, "down"), retry_after=RETRY_AFTER)
            return
        if user_id is None:
            # A stream is no page to redirect to the login; the page polls (and the poll
            # answers the login redirect as usual).
            await _plain(send, 403)
            return
        hub = push.hub()
        # Only a process just started waits for its listener; one that lost the broker says
        # so at once (the page polls meanwhile, and the listener retries on its own).
        if not await hub.wait_live(0 if hub.outages else LISTENER_WAIT):
            await _plain(send, 503, _refusal(scope, "down"), retry_after=RETRY_AFTER)
            return
        cap = settings.PUSH_STREAMS_PER_MEMBER
        if cap and hub.member_streams(user_id) >= cap:
            await _plain(send, 429, _refusal(scope, "cap"), retry_after=RETRY_AFTER * 15)
            return
        reconnect = bool(_header(scope, b"last-event-id"))
        # Subscribe before reading the current state: a commit in between is heard, not lost.
        if name == "live":
            keys = (f"m:{match_id}", push.table_key(match_id), push.member_key(user_id))
        elif name in PAGE_STREAMS:
            keys = (*PAGE_STREAMS[name][0](match_id), push.member_key(user_id))
        else:
            keys = (f"u:{user_id}", push.member_key(user_id))
        sub = hub.subscribe(*keys, member=user_id)
        try:
            try:
                first = await _first_events(name, match_id, user_id, reconnect)
            except DatabaseError:
                await _plain(send, 503, _refusal(scope, "down"), retry_after=RETRY_AFTER)
                return
            if first is None:
                await _plain(send, 404)
                return
            # A stop of the server renews it (cardclub/server.py): its last event says so.
            scope[STREAMING] = sub.renew
            await send({"type": "http.response.start", "status": 200, "headers": HEADERS})
            beat = _page_open(match_id, user_id) if name == "live" else None
            writer = asyncio.ensure_future(_write(send, sub, push.sse_head(first), beat))
            listener = asyncio.ensure_future(_until_disconnect(receive))
            try:
                await asyncio.wait({writer, listener}, return_when=asyncio.FIRST_COMPLETED)
            finally:
                for task in (writer, listener):
                    task.cancel()
                for task in (writer, listener):
                    with contextlib.suppress(BaseException):
                        await task
        finally:
            sub.close()


async def _first_events(name: str, match_id, user_id: int, reconnect: bool) -> dict | None:
    """What a new stream starts with (``None``: no such match)."""
    if name in PAGE_STREAMS:
        first = await PAGE_STREAMS[name][1](match_id, user_id)
        return None if first is None else {**first, **({"bell": 0} if reconnect else {})}
    if name == "live":
        row = (
            await Match.objects.filter(pk=match_id)
            .values_list("version", "private", "invited")
            .afirst()
        )
        if row is None:
            return None
        version, private, invited = row
        # A private table exists only for its seated and invited members (Match.visible_to):
        # for anyone else its stream is a 404 too, not a ticker of its moves.
        if (
            private
            and user_id not in (invited or [])
            and not await Seat.objects.filter(match_id=match_id, user_id=user_id).aexists()
        ):
            return None
        return {"version": version, **({"chat": 0, "bell": 0} if reconnect else {})}
    return {"mine": await _mine_now(user_id), **({"bell": 0} if reconnect else {})}


def _refusal(scope, why: str) -> str:
    """Why a stream was refused, in the member's language (a person may read it in the
    browser's network panel or open the URL by hand)."""
    cookie = SimpleCookie()
    with contextlib.suppress(Exception):
        cookie.load(_header(scope, b"cookie"))
    morsel = cookie.get(settings.LANGUAGE_COOKIE_NAME)
    language = morsel.value if morsel and morsel.value in dict(settings.LANGUAGES) else None
    with translation.override(language or settings.LANGUAGE_CODE):
        if why == "cap":
            return _(
                "Too many live pages open at once: this one updates every few seconds "
                "instead. Close some tabs to make it live again."
            )
        return _("Live updates are paused for a moment: this page updates every few seconds.")


def _stream_target(scope) -> tuple[str, int | None] | None:
    path = scope["path"]
    root = scope.get("root_path", "")
    if root and path.startswith(root):
        path = path[len(root) :]
    if not path.endswith("/live/"):
        return None  # the cheap test first: most requests are not streams
    try:
        found = resolve(path)
    except Resolver404:
        return None
    page = f"{found.namespace}:{found.url_name}"
    if page in PAGE_STREAMS:
        return page, int(found.kwargs["pk"])
    if found.namespace != "games" or found.url_name not in ("live", "my_matches_live"):
        return None
    if found.url_name == "live":
        return "live", int(found.kwargs["pk"])
    return "my_matches_live", None


def _header(scope, name: bytes) -> str:
    for key, value in scope.get("headers", ()):
        if key == name:
            return value.decode("latin-1")
    return ""


def _host_allowed(scope) -> bool:
    domain, _port = split_domain_port(_header(scope, b"host"))
    allowed = settings.ALLOWED_HOSTS
    if settings.DEBUG and not allowed:
        allowed = [".localhost", "127.0.0.1", "[::1]"]
    return bool(domain) and validate_host(domain, allowed)


async def _member_id(scope) -> int | None:
    cookie = SimpleCookie()
    with contextlib.suppress(Exception):
        cookie.load(_header(scope, b"cookie"))
    morsel = cookie.get(settings.SESSION_COOKIE_NAME)
    if morsel is None:
        return None
    store = import_module(settings.SESSION_ENGINE).SessionStore(morsel.value)
    # Django's own check: the session, its backend and the password hash it was made with.
    user = await aget_user(SimpleNamespace(session=store))
    return user.pk if user.is_authenticated else None


async def _plain(send, status: int, text: str = "", retry_after: int | None = None) -> None:
    headers = [
        (b"content-type", b"text/plain; charset=utf-8"),
        (b"cache-control", b"no-store"),
    ]
    if retry_after is not None:
        headers.append((b"retry-after", str(retry_after).encode()))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": text.encode()})


def _page_open(match_id: int, user_id: int):
    """What a table's stream says on a keep-alive, at most every ``WATCH_WRITE_EVERY``
    seconds: the page is still open (``games.signals.match_page_open``; who is at the table).
    Whatever a receiver meets (the database away) never ends the stream."""
    every = settings.WATCH_WRITE_EVERY
    last = [time.monotonic()]

    async def beat() -> None:
        now = time.monotonic()
        if now - last[0] < every:
            return
        last[0] = now
        with contextlib.suppress(Exception):
            await match_page_open.asend(sender=Match, match_id=match_id, user_id=user_id)

    return beat


async def _write(send, sub: push.Subscription, first: str, beat=None) -> None:
    keepalive = settings.PUSH_KEEPALIVE_SECONDS
    await send({"type": "http.response.body", "body": first.encode(), "more_body": True})
    while True:
        try:
            pending = await sub.wait(keepalive)
        except push.StreamEnded as ended:
            # The server is stopping: the page is told to open a new stream (and that it
            # missed nothing). Or the listener lost the broker: the response ends without a
            # word, so the page knows and polls.
            last = push.SSE_RENEW.encode() if ended.renew else b""
            await send({"type": "http.response.body", "body": last})
            return
        if pending is None and beat is not None:
            await beat()
        chunk = push.sse_events(pending)
        await send({"type": "http.response.body", "body": chunk.encode(), "more_body": True})


async def _until_disconnect(receive) -> None:
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            return
