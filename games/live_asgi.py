"""The push streams as a lean ASGI app in front of Django (``cardclub/asgi.py`` wires it).

Why not only the Django views in ``games/live_views.py``: Django's ASGI handler gives every
request its own thread for its synchronous middleware, kept until the response ends, so an
open stream would hold a parked thread for as long as the page stays open — about 300 KB and a
thread each, measured with 1,000 streams. Here a stream is an asyncio task and a few small
objects: the session is read once (in Django's shared sync thread), then the stream waits on
the process's push hub.

What it serves is exactly what the Django views serve (same URLs, same events, same checks:
allowed host, a logged-in member, an existing match); anything else goes to Django.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from http.cookies import SimpleCookie
from importlib import import_module
from types import SimpleNamespace

from django.conf import settings
from django.contrib.auth import aget_user
from django.http.request import split_domain_port, validate_host
from django.urls import Resolver404, resolve

from games import push
from games.models import Match

logger = logging.getLogger(__name__)

HEADERS = [
    (b"content-type", b"text/event-stream; charset=utf-8"),
    (b"cache-control", b"no-cache, no-store, private"),
    (b"x-accel-buffering", b"no"),
    (b"x-content-type-options", b"nosniff"),
]


class LiveStreams:
    def __init__(self, django_app):
        self.django_app = django_app

    async def __call__(self, scope, receive, send):
        if scope["type"] == "http" and scope["method"] == "GET":
            target = _stream_target(scope)
            if target is not None:
                await self.stream(scope, receive, send, *target)
                return
        await self.django_app(scope, receive, send)

    async def stream(self, scope, receive, send, name: str, match_id: int | None) -> None:
        if not _host_allowed(scope):
            await _plain(send, 400)
            return
        user_id = await _member_id(scope)
        if user_id is None:
            # A stream is no page to redirect to the login; the page polls (and the poll
            # answers the login redirect as usual).
            await _plain(send, 403)
            return
        hub = push.hub()
        if name == "live":
            # Subscribe before reading the version: a commit in between is heard, not lost.
            sub = hub.subscribe(f"m:{match_id}", push.table_key(match_id), push.member_key(user_id))
            version = (
                await Match.objects.filter(pk=match_id).values_list("version", flat=True).afirst()
            )
            if version is None:
                sub.close()
                await _plain(send, 404)
                return
            first = push.sse_head("version", version)
        else:
            sub = hub.subscribe(f"u:{user_id}", push.member_key(user_id))
            first = push.sse_head("mine", None)
        await send({"type": "http.response.start", "status": 200, "headers": HEADERS})
        writer = asyncio.ensure_future(_write(send, sub, first))
        listener = asyncio.ensure_future(_until_disconnect(receive))
        try:
            await asyncio.wait({writer, listener}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for task in (writer, listener):
                task.cancel()
            for task in (writer, listener):
                with contextlib.suppress(BaseException):
                    await task
            sub.close()


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


async def _plain(send, status: int) -> None:
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [(b"content-type", b"text/plain; charset=utf-8")],
        }
    )
    await send({"type": "http.response.body", "body": b""})


async def _write(send, sub: push.Subscription, first: str) -> None:
    keepalive = settings.PUSH_KEEPALIVE_SECONDS
    await send({"type": "http.response.body", "body": first.encode(), "more_body": True})
    while True:
        chunk = push.sse_events(await sub.wait(keepalive))
        await send({"type": "http.response.body", "body": chunk.encode(), "more_body": True})


async def _until_disconnect(receive) -> None:
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            return
