"""A broker that dies or hangs, for real: a Redis of the test's own (SIGKILL, SIGSTOP), a real
uvicorn process with ``PUSH_BACKEND=redis``, real HTTP.

- Killed: the open stream ends (the page polls), new streams are refused with 503 and
  Retry-After, a move goes through as fast as ever; once Redis is back a new stream opens
  within seconds and its first event is the version made during the outage, and the next move
  is pushed again.
- Paused (the broker hangs, its connections open and silent): moves are no slower (the publish
  is off the request path) and the stream is ended by the listener's health check.
"""

from __future__ import annotations

import queue
import statistics
import threading
import time

import httpx
import pytest
from django.urls import reverse

from games.models import Match
from tests.servers import RedisProcess, session_cookie, start_app_server

from .table_helpers import engine_state, start_match

pytestmark = [pytest.mark.push_servers, pytest.mark.django_db(transaction=True)]

# The helper's own port range on the shared machine.
PORTS = range(9100, 9200)


class StreamReader(threading.Thread):
    """One stream read in a thread: its status, then each ``data:`` line as it arrives, then
    ``None`` when the server ended it."""

    def __init__(self, url, cookies):
        super().__init__(daemon=True)
        self.url, self.cookies = url, cookies
        self.status = None
        self.headers = {}
        self.events: queue.Queue = queue.Queue()

    def run(self):
        try:
            with (
                httpx.Client(cookies=self.cookies, timeout=httpx.Timeout(5, read=60)) as client,
                client.stream("GET", self.url) as response,
            ):
                self.status, self.headers = response.status_code, response.headers
                event = ""
                for line in response.iter_lines():
                    if line.startswith("event:"):
                        event = line[6:].strip()
                    elif line.startswith("data:") and event != "keepalive":
                        self.events.put(int(line[5:]))
        except httpx.HTTPError:
            pass
        self.events.put(None)

    def next(self, timeout):
        return self.events.get(timeout=timeout)


def open_stream(url, cookies):
    reader = StreamReader(url, cookies)
    reader.start()
    return reader


class Member:
    """A member's browser, as far as moves go: a session, the CSRF cookie, htmx's headers."""

    def __init__(self, server, user):
        self.server, self.user = server, user
        self.client = httpx.Client(cookies=session_cookie(user), timeout=10)

    def move(self, match_id):
        """Play the member's first legal move; the time the server took to answer."""
        match = Match.objects.get(pk=match_id)
        state = engine_state(match)
        seat = match.engine.to_move(state)[0]
        code = match.engine.legal_moves(state, seat)[0].code
        if "csrftoken" not in self.client.cookies:
            self.client.get(f"{self.server.url}{match.get_absolute_url()}")
        started = time.monotonic()
        response = self.client.post(
            f"{self.server.url}{reverse('games:move', args=[match_id])}",
            data={"code": code, "v": str(match.version)},
            headers={
                "X-CSRFToken": self.client.cookies["csrftoken"],
                "HX-Request": "true",
                "Referer": self.server.url + "/",
            },
        )
        took = time.monotonic() - started
        assert response.status_code == 200, response.text[:300]
        return took


def _to_move(match_id, members):
    match = Match.objects.get(pk=match_id)
    seat = match.engine.to_move(engine_state(match))[0]
    return next(m for m in members if m.user == match.seats.get(index=seat).user)


@pytest.fixture
def redis():
    process = RedisProcess(PORTS).start()
    yield process
    process.stop()


@pytest.fixture
def served(redis):
    server = start_app_server(
        {"PUSH_BACKEND": "redis", "PUSH_REDIS_URL": redis.url, "PUSH_CHANNEL": "outage-test"}
    )
    yield server
    server.stop()


def test_a_killed_broker_ends_the_streams_and_once_back_the_outage_version_is_delivered(
    redis, served, alice, bob
):
    match = start_match("schotten_totten", [alice, bob])
    members = [Member(served, alice), Member(served, bob)]
    live = f"{served.url}{reverse('games:live', args=[match.pk])}"
    cookies = session_cookie(alice)
    stream = open_stream(live, cookies)
    assert stream.next(10) == match.version

    redis.kill()
    killed = time.monotonic()
    assert stream.next(5) is None  # ended: the page polls
    ended_after = time.monotonic() - killed
    refused = open_stream(live, cookies)
    assert refused.next(5) is None
    assert refused.status == 503 and refused.headers["retry-after"] == "2"
    took = _to_move(match.pk, members).move(match.pk)
    outage_version = match.version + 1

    redis.start()
    back = time.monotonic()
    while True:
        again = open_stream(live, cookies)
        first = again.next(5)
        if again.status == 200:
            break
        assert time.monotonic() - back < 5, "no stream within 5 s of the broker's return"
        time.sleep(0.2)
    reopened_after = time.monotonic() - back
    assert first == outage_version
    _to_move(match.pk, members).move(match.pk)
    assert again.next(2) == outage_version + 1  # pushed again
    assert ended_after < 2 and took < 1 and reopened_after < 3, (ended_after, took)


def test_a_hung_broker_slows_no_move_and_its_streams_are_ended(redis, served, alice, bob):
    match = start_match("schotten_totten", [alice, bob])
    members = [Member(served, alice), Member(served, bob)]
    live = f"{served.url}{reverse('games:live', args=[match.pk])}"
    cookies = session_cookie(alice)
    up = [_to_move(match.pk, members).move(match.pk) for _ in range(6)]
    stream = open_stream(live, cookies)
    assert stream.next(10) == match.version + 6

    redis.pause()
    paused = time.monotonic()
    hung = [_to_move(match.pk, members).move(match.pk) for _ in range(6)]
    assert stream.next(10) is None  # the health check gave up on the silent broker
    ended_after = time.monotonic() - paused
    redis.resume()
    assert statistics.median(hung) - statistics.median(up) < 0.2, (up, hung)
    assert ended_after < 8, ended_after
    deadline = time.monotonic() + 8
    while True:
        again = open_stream(live, cookies)
        first = again.next(5)
        if again.status == 200:
            break
        assert time.monotonic() < deadline, "no stream after the broker came back"
        time.sleep(0.2)
    assert first == match.version + 12
