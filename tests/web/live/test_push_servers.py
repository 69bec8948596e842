"""A move posted to one app-server process reaches a page streaming from another one.

Two real uvicorn processes share the test database; the fan-out goes through the backend under
test: the local sockets (one machine, SQLite's ``make run``), Redis pub/sub, or PostgreSQL
LISTEN/NOTIFY (only when the tests run on PostgreSQL). Redis is skipped when none answers on
127.0.0.1:6379 unless ``PUSH_REQUIRE_BROKERS=1`` (as ``.ci/run`` sets), where it must be there.
"""

from __future__ import annotations

import asyncio
import os

import httpx
import pytest
from django.db import connection
from django.urls import reverse

from games.models import Match
from tests.servers import redis_answers, run_in_new_loop, session_cookie, start_app_server
from tests.web.table_helpers import engine_state, start_match

pytestmark = [pytest.mark.push_servers, pytest.mark.django_db(transaction=True)]


def _backend_env(name: str) -> dict[str, str]:
    required = os.environ.get("PUSH_REQUIRE_BROKERS") == "1"
    if name == "redis" and not redis_answers():
        if required:
            pytest.fail("PUSH_REQUIRE_BROKERS=1 but no Redis answers on 127.0.0.1:6379")
        pytest.skip("no Redis on 127.0.0.1:6379")
    if name == "postgres" and connection.vendor != "postgresql":
        pytest.skip("LISTEN/NOTIFY needs the tests to run on PostgreSQL (DATABASE_URL)")
    # A channel of its own: other test runs on this machine publish on theirs.
    return {
        "PUSH_BACKEND": name,
        "PUSH_CHANNEL": f"cardclub19_test_{os.getpid()}",
        "PUSH_REDIS_URL": "redis://127.0.0.1:6379/1",
        "PUSH_SOCKET_DIR": "",
    }


async def _first_versions(url, cookies, count, timeout, opened=None):
    """The versions a stream announces, until ``count`` arrived or ``timeout`` passed
    (``opened`` is set when the first one arrived). A stream only pushes: a version it
    announces was not polled for."""
    versions = []
    async with (
        httpx.AsyncClient(cookies=cookies, timeout=timeout) as client,
        client.stream("GET", url) as response,
    ):
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/event-stream")
        event = ""
        async for line in response.aiter_lines():
            if line.startswith("event:"):
                event = line[6:].strip()
            elif line.startswith("data:") and event != "keepalive":
                versions.append(int(line[5:]))
                if opened is not None:
                    opened.set()
                if len(versions) == count:
                    break
    return versions


async def _watch_and_move(a, b, match, code, viewer_cookies, mover_cookies):
    live_url = f"{a.url}{reverse('games:live', args=[match.pk])}"
    opened = asyncio.Event()
    stream = asyncio.ensure_future(
        asyncio.wait_for(_first_versions(live_url, viewer_cookies, 2, 10, opened), 15)
    )
    await asyncio.wait_for(opened.wait(), 10)  # the stream is open and its first event sent
    async with httpx.AsyncClient(cookies=mover_cookies, timeout=10) as client:
        page = await client.get(f"{b.url}{match.get_absolute_url()}")
        token = client.cookies.get("csrftoken")
        response = await client.post(
            f"{b.url}{reverse('games:move', args=[match.pk])}",
            data={"code": code, "v": str(match.version)},
            headers={"X-CSRFToken": token, "HX-Request": "true", "Referer": b.url + "/"},
        )
        assert page.status_code == 200 and response.status_code == 200, response.text[:500]
    return await stream


@pytest.mark.parametrize("backend", ["local", "redis", "postgres"])
def test_a_move_posted_to_one_server_reaches_a_stream_on_another(backend, alice, bob, tmp_path):
    env = _backend_env(backend)
    if backend == "local":
        # A directory of this test's own (short enough for a socket's path).
        env["PUSH_SOCKET_DIR"] = str(tmp_path / "push")
    match = start_match("schotten_totten", [alice, bob])
    state = engine_state(match)
    seat = match.engine.to_move(state)[0]
    mover, viewer = (alice, bob) if seat == 0 else (bob, alice)
    code = match.engine.legal_moves(state, seat)[0].code
    a = start_app_server(env)
    b = start_app_server(env)
    try:
        versions = run_in_new_loop(
            _watch_and_move(a, b, match, code, session_cookie(viewer), session_cookie(mover))
        )
    finally:
        a.stop()
        b.stop()
    assert versions == [match.version, match.version + 1]
    assert Match.objects.get(pk=match.pk).version == match.version + 1
