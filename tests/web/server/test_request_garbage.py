"""Issue 34: a request served by the club's handler leaves no reference cycle behind, so all it
made is freed as it ends, by reference counting, not by the cyclic collector, whose full passes
stopped a busy server process for a tenth of a second every second or two. Served here as the
server serves it (``PooledASGIHandler._respond``: the middleware, the view, the close), in the
test's own thread."""

from __future__ import annotations

import gc
import io
from collections import Counter
from urllib.parse import urlencode

import pytest
from django.conf import settings
from django.core.signals import request_finished, request_started
from django.db import close_old_connections
from django.urls import reverse

from cardclub.handler import PooledASGIHandler
from games import versions
from games.models import Match
from tests.servers import session_cookie
from tests.web.table_helpers import engine_state, start_match

CSRF = "gc" * 16  # a CSRF secret, as the cookie holds one
# What a request reads and draws: any of these in a cycle means the whole table went with it.
HELD = {"ASGIRequest", "Match", "Seat", "User", "Context", "RequestContext", "ContextDict"}


@pytest.fixture
def handler():
    # As Django's test client serves: the test's own connection (and its transaction) stays
    # open across the requests, where a server closes its old connections at each one.
    for signal in (request_started, request_finished):
        signal.disconnect(close_old_connections)
    served = PooledASGIHandler(1)
    yield served
    served.executor.shutdown()
    for signal in (request_started, request_finished):
        signal.connect(close_old_connections)


def serve(handler, user, method, path, query="", form=None):
    cookies = {**session_cookie(user), settings.CSRF_COOKIE_NAME: CSRF}
    headers = [
        (b"host", b"localhost"),
        (b"hx-request", b"true"),
        (b"cookie", "; ".join(f"{k}={v}" for k, v in cookies.items()).encode()),
        (b"x-csrftoken", CSRF.encode()),
    ]
    body = urlencode(form or {}).encode()
    if form is not None:
        headers.append((b"content-type", b"application/x-www-form-urlencoded"))
    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": method,
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": query.encode(),
        "root_path": "",
        "headers": headers,
        "client": ("127.0.0.1", 40000),
        "server": ("localhost", 80),
    }
    response = handler._respond(scope, io.BytesIO(body), None, None)
    return response.status_code


def cycles_left_by(requests) -> Counter:
    """The types of what ``requests`` left to the cyclic collector (and nothing else did)."""
    gc.collect()
    gc.disable()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        requests()
        gc.collect()
        return Counter(type(found).__qualname__ for found in gc.garbage)
    finally:
        gc.garbage.clear()
        gc.set_debug(0)
        gc.enable()


@pytest.mark.parametrize("game", ["escoba", "schotten_totten", "scout"])
def test_a_move_a_changed_table_and_a_page_leave_no_reference_cycle(handler, game, alice, bob):
    match = start_match(game, [alice, bob])
    players = {seat.index: seat.user for seat in match.seats.all()}

    def play_and_show():
        current = Match.objects.get(pk=match.pk)
        state = engine_state(current)
        seat = current.engine.to_move(state)[0]
        code = current.engine.legal_moves(state, seat)[0].code
        move = reverse("games:move", args=[match.pk])
        form = {"code": code, "v": str(current.version)}
        assert serve(handler, players[seat], "POST", move, form=form) == 200
        other = players[1 - seat] if len(players) == 2 else players[(seat + 1) % len(players)]
        poll = reverse("games:poll", args=[match.pk])
        assert serve(handler, other, "GET", poll, query=f"v={current.version}") == 200
        # The page reads the match afresh (the move kept the version that the poll showed).
        versions.forget_all()
        assert serve(handler, other, "GET", match.get_absolute_url()) == 200

    play_and_show()  # the first of each: templates compiled, caches filled
    left = cycles_left_by(lambda: [play_and_show() for _ in range(3)])
    assert not HELD & set(left), f"left in reference cycles: {dict(left)}"
