"""Server push: one Server-Sent Events stream per open page, fed by this process's hub.

Under ``cardclub.asgi`` these URLs are answered by the lean ASGI app in ``games/live_asgi.py``
before Django sees them (no thread parked per open stream); these views are what Django itself
serves at the same URLs: the same stream under any other ASGI set-up, and 204 under WSGI.

A stream carries only version numbers ("the match is now at version 12"); the page then fetches
its own fragment from the poll URL, drawn for its own seat, so there is one markup path and no
card ever travels in a push. The streams are async views: under ASGI (uvicorn) an idle stream is
a few kilobytes and an asyncio wait, not a thread. Under WSGI (``runserver``, the test
``live_server``) a stream would hold a worker thread forever, so the view answers 204, which
tells the browser not to reconnect at once, and the page polls instead.
"""

from __future__ import annotations

from django.conf import settings
from django.core.handlers.asgi import ASGIRequest
from django.http import Http404, HttpResponse, StreamingHttpResponse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET

from games import push
from games.models import Match


def can_stream(request) -> bool:
    """Whether this server can hold a stream open: under ASGI. Pages served under WSGI
    (``runserver``, the tests' ``live_server``, a sync gunicorn) open none and poll."""
    return isinstance(request, ASGIRequest)


def _sse(sub: push.Subscription, event: str, first: int | None):
    keepalive = settings.PUSH_KEEPALIVE_SECONDS

    async def events():
        try:
            yield push.sse_head(event, first)
            while True:
                yield push.sse_events(await sub.wait(keepalive))
        finally:
            sub.close()

    response = StreamingHttpResponse(events(), content_type="text/event-stream")
    response["Cache-Control"] = "no-cache, no-store, private"
    # Tell nginx and similar proxies not to buffer the stream.
    response["X-Accel-Buffering"] = "no"
    return response


@require_GET
async def match_stream(request, pk):
    """The versions of match ``pk`` as they are committed, starting with the current one (so a
    move committed between drawing the page and opening the stream is not missed)."""
    if not can_stream(request):
        return HttpResponse(status=204)
    # Subscribe before reading the version: a commit in between is then heard, not lost.
    user = await request.auser()
    keys = [f"m:{pk}", push.table_key(pk)]
    if user.is_authenticated:
        keys.append(push.member_key(user.pk))
    sub = push.hub().subscribe(*keys)
    try:
        version = await Match.objects.filter(pk=pk).values_list("version", flat=True).afirst()
    except BaseException:
        sub.close()
        raise
    if version is None:
        sub.close()
        raise Http404(_("There is no match with that number."))
    return _sse(sub, "version", version)


@require_GET
async def my_matches_stream(request):
    """A signal whenever one of the member's matches changes, for the lobby's list."""
    if not can_stream(request):
        return HttpResponse(status=204)
    user = await request.auser()
    sub = push.hub().subscribe(f"u:{user.pk}", push.member_key(user.pk))
    return _sse(sub, "mine", None)
