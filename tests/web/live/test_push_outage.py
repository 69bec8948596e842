"""A broker that dies or hangs, for real: a Redis of the test's own (SIGKILL, SIGSTOP), a real
uvicorn process with ``PUSH_BACKEND=redis``, real HTTP.

- Killed: the open stream ends (the page polls), new streams are refused with 503 and
  Retry-After, a move goes through; once Redis is back a new stream opens and its first event
  is the version made during the outage, and the next move is pushed again.
- Paused (the broker hangs, its connections open and silent): every move goes through (the
  publish is off the request path) and the stream is ended by the listener's health check.

What each takes is the benchmark's to measure (``tests/bench/bench_broker.py``: a hung or killed
broker costs a move at most 200 ms at the median), not these tests': a loaded machine slows
everything, and here only what happens counts. The waits below are for events, each with a
generous bound.
"""

from __future__ import annotations

import queue
import threading
import time

import httpx
import pytest
from django.urls import reverse

from games.models import Match
from tests.servers import RedisProcess, session_cookie, start_app_server
from tests.web.table_helpers import engine_state, start_match

pytestmark = [pytest.mark.push_servers, pytest.mark.django_db(transaction=True)]

# The helper's own port range on the shared machine.
PORTS = range(9100, 9200)


class StreamReader(threading.Thread):
    """One stream read in a thread: its status, then each ``data:`` line as it arrives, then
    ``None`` when the server ended it (``renewed``: its last event said to open another)."""

    def __init__(self, url, cookies):
        super().__init__(daemon=True)
        self.url, self.cookies = url, cookies
        self.status = None
        self.headers = {}
        self.events: queue.Queue = queue.Queue()
        self.answered = threading.Event()
        self.renewed = False

    def run(self):
        try:
            with (
                httpx.Client(cookies=self.cookies, timeout=httpx.Timeout(5, read=60)) as client,
                client.stream("GET", self.url) as response,
            ):
                self.status, self.headers = response.status_code, response.headers
                self.answered.set()
                event = ""
                for line in response.iter_lines():
                    if line.startswith("event:"):
                        event = line[6:].strip()
                    elif line.startswith("data:") and event == "renew":
                        self.renewed = True
                    elif line.startswith("data:") and event != "keepalive":
                        self.events.put(int(line[5:]))
        except httpx.HTTPError:
            pass
        self.answered.set()
        self.events.put(None)

    def wait_for_status(self, timeout):
        """The stream's status once the server answered (None: it never did)."""
        self.answered.wait(timeout)
        return self.status

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
        """Play the member's first legal move (answered 200, whatever the broker does)."""
        match = Match.objects.get(pk=match_id)
        state = engine_state(match)
        seat = match.engine.to_move(state)[0]
        code = match.engine.legal_moves(state, seat)[0].code
        if "csrftoken" not in self.client.cookies:
            self.client.get(f"{self.server.url}{match.get_absolute_url()}")
        response = self.client.post(
            f"{self.server.url}{reverse('games:move', args=[match_id])}",
            data={"code": code, "v": str(match.version)},
            headers={
                "X-CSRFToken": self.client.cookies["csrftoken"],
                "HX-Request": "true",
                "Referer": self.server.url + "/",
            },
        )
        assert response.status_code == 200, response.text[:300]


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
    assert stream.next(30) is None  # ended: the page polls
    refused = open_stream(live, cookies)
    assert refused.next(30) is None
    assert refused.status == 503 and refused.headers["retry-after"] == "2"
    _to_move(match.pk, members).move(match.pk)
    outage_version = match.version + 1

    redis.start()
    again = _stream_once_the_broker_is_back(live, cookies)
    assert again.next(30) == outage_version
    _to_move(match.pk, members).move(match.pk)
    assert again.next(30) == outage_version + 1  # pushed again


def _stream_once_the_broker_is_back(live, cookies):
    """A stream opened as a page would: refused (503) until the listener has the broker again,
    then open. The wait is for that answer, bounded only against a broker that never returns."""
    deadline = time.monotonic() + 60
    while True:
        again = open_stream(live, cookies)
        if again.wait_for_status(30) == 200:
            return again
        assert time.monotonic() < deadline, "no stream after the broker came back"
        time.sleep(0.2)  # a page's retry (live.js backs off too); not a synchronisation


def test_a_hung_broker_slows_no_move_and_its_streams_are_ended(redis, served, alice, bob):
    match = start_match("schotten_totten", [alice, bob])
    members = [Member(served, alice), Member(served, bob)]
    live = f"{served.url}{reverse('games:live', args=[match.pk])}"
    cookies = session_cookie(alice)
    for _ in range(6):
        _to_move(match.pk, members).move(match.pk)
    stream = open_stream(live, cookies)
    assert stream.next(30) == match.version + 6

    redis.pause()
    for _ in range(6):
        _to_move(match.pk, members).move(match.pk)  # each answered while the broker hangs
    assert stream.next(30) is None  # the health check gave up on the silent broker
    redis.resume()
    again = _stream_once_the_broker_is_back(live, cookies)
    assert again.next(30) == match.version + 12
