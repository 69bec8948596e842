"""The push stream's promises to the page (games/streams.py) and the hub's behaviour when its
broker goes away, in one process: the first event is the current state, a reconnect is told to
fetch the other news too, a stream is ended when the listener loses the broker and refused
(503, Retry-After) until it is back, and one member's streams are capped (429). The same
with a real Redis killed and paused, across real server processes: test_push_outage.py."""

from __future__ import annotations

import asyncio
import threading

import pytest
from django.urls import reverse

from games import push
from games.models import Match
from games.streams import LiveStreams
from tests.servers import run_in_new_loop
from tests.web.live.test_live import run_async
from tests.web.table_helpers import start_match

pytestmark = pytest.mark.django_db(transaction=True)


class Stream:
    """One GET through the ASGI app, read until it ends or ``until`` is seen in the body."""

    def __init__(self, app, path, cookie="", headers=()):
        self.app, self.path = app, path
        self.headers = [(b"host", b"127.0.0.1"), *headers]
        if cookie:
            self.headers.append((b"cookie", cookie.encode()))
        self.status = None
        self.response_headers = {}
        self.body = ""
        self.ended = asyncio.Event()
        self.changed = asyncio.Event()
        self._gone = asyncio.Event()

    async def run(self):
        async def receive():
            await self._gone.wait()
            return {"type": "http.disconnect"}

        async def send(message):
            if message["type"] == "http.response.start":
                self.status = message["status"]
                self.response_headers = {k.decode(): v.decode() for k, v in message["headers"]}
            else:
                self.body += message.get("body", b"").decode()
                if not message.get("more_body"):
                    self.ended.set()
            self.changed.set()

        scope = {"type": "http", "method": "GET", "path": self.path, "headers": self.headers}
        await self.app(scope, receive, send)
        self.ended.set()

    async def until(self, text, timeout=5.0):
        async def seen():
            while text not in self.body:
                if self.ended.is_set():
                    raise AssertionError(f"stream ended without {text!r}: {self.body!r}")
                self.changed.clear()
                await self.changed.wait()

        await asyncio.wait_for(seen(), timeout)

    def leave(self):
        self._gone.set()


def _cookie(client):
    return f"sessionid={client.cookies['sessionid'].value}"


class Controlled:
    """A push backend whose broker the test takes away and gives back."""

    def __init__(self):
        self.up = asyncio.Event()
        self.up.set()
        self.lose = None
        self.listening = 0
        self.connected = asyncio.Event()

    def publish(self, data):
        pass

    async def listen(self, deliver, ready):
        await self.up.wait()
        self.lose = asyncio.Event()
        self.listening += 1
        ready()
        self.connected.set()
        await self.lose.wait()
        self.connected.clear()
        raise ConnectionError("the broker went away")


@pytest.fixture
def broker(monkeypatch):
    controlled = Controlled()
    monkeypatch.setattr(push, "backend", lambda: controlled)
    monkeypatch.setattr(push.Hub, "RETRY_FIRST", 0.05)
    monkeypatch.setattr(push.Hub, "RETRY_MAX", 0.1)
    return controlled


def test_the_first_event_is_the_current_version_and_a_reconnect_also_fetches_chat_and_bell(
    alice, bob, client_for, broker
):
    match = start_match("schotten_totten", [alice, bob])
    cookie = _cookie(client_for(alice))
    url = reverse("games:live", args=[match.pk])

    async def scenario():
        fresh = Stream(LiveStreams(None), url, cookie)
        again = Stream(LiveStreams(None), url, cookie, [(b"last-event-id", b"3")])
        tasks = [asyncio.ensure_future(s.run()) for s in (fresh, again)]
        await fresh.until(f"id: {match.version}\nevent: version\ndata: {match.version}\n\n")
        await again.until("event: bell\ndata: 0\n\n")
        for s in (fresh, again):
            s.leave()
        await asyncio.gather(*tasks)
        return fresh, again

    fresh, again = run_async(scenario())
    assert fresh.status == again.status == 200
    assert "event: chat" not in fresh.body and "event: bell" not in fresh.body
    assert f"data: {match.version}\n\nevent: chat\ndata: 0\n\n" in again.body


def test_the_lobby_stream_starts_with_the_stamp_the_list_shows(alice, bob, client_for, broker):
    start_match("schotten_totten", [alice, bob])
    client = client_for(alice)
    fragment = client.get(reverse("games:my_matches"), HTTP_HX_REQUEST="true").content.decode()
    shown = fragment.split('data-version="', 1)[1].split('"', 1)[0]

    async def scenario():
        stream = Stream(LiveStreams(None), reverse("games:my_matches_live"), _cookie(client))
        task = asyncio.ensure_future(stream.run())
        await stream.until("event: mine\n")
        stream.leave()
        await task
        return stream.body

    assert f"event: mine\ndata: {shown}\n\n" in run_async(scenario())


def test_a_lost_broker_ends_every_stream_refuses_new_ones_and_a_stream_after_it_is_back_starts_with_the_current_version(
    alice, bob, client_for, broker
):
    match = start_match("schotten_totten", [alice, bob])
    cookie = _cookie(client_for(alice))
    url = reverse("games:live", args=[match.pk])

    async def scenario():
        app = LiveStreams(None)
        before = Stream(app, url, cookie)
        task = asyncio.ensure_future(before.run())
        await before.until(f"data: {match.version}\n")
        broker.up.clear()
        broker.lose.set()
        await asyncio.wait_for(before.ended.wait(), 2)
        await task
        refused = Stream(app, url, cookie)
        await refused.run()
        # A move committed while the broker was away: no stream heard it.
        await asyncio.to_thread(_bump, match.pk)
        broker.up.set()
        await asyncio.wait_for(broker.connected.wait(), 2)  # the listener is back
        after = Stream(app, url, cookie)
        task = asyncio.ensure_future(after.run())
        await after.until(f"data: {match.version + 1}\n")
        after.leave()
        await task
        return refused

    refused = run_async(scenario())
    assert refused.status == 503 and refused.response_headers["retry-after"] == "2"
    assert "every few seconds" in refused.body or "cada pocos segundos" in refused.body
    assert broker.listening == 2


def _bump(match_id):
    from games.models import Match

    Match.objects.filter(pk=match_id).update(version=Match.objects.get(pk=match_id).version + 1)


def test_one_member_gets_no_more_streams_than_the_cap_and_is_told_why(
    alice, bob, client_for, broker, settings
):
    settings.PUSH_STREAMS_PER_MEMBER = 2
    match = start_match("schotten_totten", [alice, bob])
    alice_cookie, bob_cookie = _cookie(client_for(alice)), _cookie(client_for(bob))
    url = reverse("games:live", args=[match.pk])

    async def scenario():
        app = LiveStreams(None)
        open_ = [Stream(app, url, alice_cookie) for _ in range(2)]
        tasks = [asyncio.ensure_future(s.run()) for s in open_]
        for s in open_:
            await s.until("event: version")
        third = Stream(app, url, alice_cookie)
        await third.run()
        others = Stream(app, url, bob_cookie)  # another member is not counted with alice
        tasks.append(asyncio.ensure_future(others.run()))
        await others.until("event: version")
        open_[0].leave()
        await tasks[0]
        fourth = Stream(app, url, alice_cookie)  # one closed: room again
        tasks.append(asyncio.ensure_future(fourth.run()))
        await fourth.until("event: version")
        for s in (*open_, others, fourth):
            s.leave()
        await asyncio.gather(*tasks)
        return third, push.hub().member_streams(alice.pk)

    third, left = run_async(scenario())
    assert third.status == 429 and int(third.response_headers["retry-after"]) > 0
    assert "Too many live pages" in third.body or "Demasiadas páginas" in third.body
    assert left == 0


def test_the_listener_tries_again_sooner_than_its_cap_and_never_faster_than_its_first_pause(
    monkeypatch,
):
    """The pauses the listener asks for between attempts, read from its calls, not timed: a
    loaded machine makes every gap longer, never the pause chosen."""
    pauses = []
    retried = None

    class Down:
        async def listen(self, deliver, ready):
            raise ConnectionRefusedError

    class Asyncio:
        """The asyncio the push module sees, with a sleep that records its pause and yields."""

        def __getattr__(self, name):
            return getattr(asyncio, name)

        @staticmethod
        async def sleep(seconds):
            pauses.append(seconds)
            if len(pauses) >= 6:
                retried.set()
            await asyncio.sleep(0)

    monkeypatch.setattr(push, "backend", lambda: Down())
    monkeypatch.setattr(push, "asyncio", Asyncio())
    monkeypatch.setattr(push.Hub, "RETRY_FIRST", 0.02)
    monkeypatch.setattr(push.Hub, "RETRY_MAX", 0.08)

    async def scenario():
        nonlocal retried
        retried = asyncio.Event()
        hub = push.Hub(asyncio.get_running_loop())
        hub.start()
        await asyncio.wait_for(retried.wait(), 30)
        await hub.stop()

    run_in_new_loop(scenario())
    # Jittered down to half at most, never above the cap.
    assert all(0.01 <= pause <= 0.08 for pause in pauses), pauses
    # It backs off: the later pauses reach the cap's range, beyond the first pause.
    assert max(pauses[2:]) > 0.04, pauses


def test_a_hung_broker_blocks_only_the_publishers_thread_and_a_full_queue_drops(monkeypatch):
    release = threading.Event()
    sent = []

    class Hung:
        def publish(self, data):
            release.wait(10)
            sent.append(data)

    monkeypatch.setattr(push, "backend", lambda: Hung())
    publisher = push.Publisher(size=3)
    for version in range(10):
        publisher.put(push.message(1, version))
    # Ten puts returned while the broker still holds the first message: none waited on it
    # (one that had would have come back only once the broker took its message).
    assert sent == [] and not release.is_set()
    assert not publisher.drain(0.1)
    release.set()
    assert publisher.drain(5)
    # Three queued (and perhaps one already in the thread's hands), the rest dropped and
    # counted.
    assert len(sent) in (3, 4) and len(sent) + publisher.dropped == 10


def test_a_database_that_is_away_gets_a_503_not_a_crash(
    alice, bob, client_for, broker, monkeypatch
):
    from django.db import OperationalError

    from games import streams

    match = start_match("schotten_totten", [alice, bob])
    cookie = _cookie(client_for(alice))

    async def away(*args):
        raise OperationalError("the database system is starting up")

    monkeypatch.setattr(streams, "_first_events", away)

    async def scenario():
        stream = Stream(LiveStreams(None), reverse("games:live", args=[match.pk]), cookie)
        await stream.run()
        return stream

    stream = run_async(scenario())
    assert stream.status == 503 and stream.response_headers["retry-after"] == "2"


def test_with_push_off_a_stream_is_a_204_so_the_page_polls(alice, bob, client_for, settings):
    settings.PUSH_BACKEND = "off"
    match = start_match("schotten_totten", [alice, bob])
    cookie = _cookie(client_for(alice))

    async def scenario():
        stream = Stream(LiveStreams(None), reverse("games:live", args=[match.pk]), cookie)
        await stream.run()
        return stream.status

    assert run_async(scenario()) == 204


def test_a_private_tables_stream_is_a_404_for_a_member_not_seated_or_invited(
    alice, bob, charlie, client_for, broker
):
    match = start_match("schotten_totten", [alice, bob])
    Match.objects.filter(pk=match.pk).update(private=True)
    url = reverse("games:live", args=[match.pk])
    charlie_cookie, bob_cookie = _cookie(client_for(charlie)), _cookie(client_for(bob))

    async def scenario():
        stranger = Stream(LiveStreams(None), url, charlie_cookie)
        seated = Stream(LiveStreams(None), url, bob_cookie)
        task = asyncio.ensure_future(seated.run())
        await stranger.run()
        await seated.until(f"event: version\ndata: {match.version}\n\n")
        seated.leave()
        await task
        return stranger, seated

    stranger, seated = run_async(scenario())
    assert stranger.status == 404 and "version" not in stranger.body
    assert seated.status == 200


def test_a_tables_stream_keeps_its_members_page_seen_while_it_sits_idle(
    alice, bob, client_for, broker, settings
):
    from datetime import timedelta

    from django.core.cache import cache
    from django.utils import timezone

    from cardclub.social.models import Watcher
    from games import writes

    match = start_match("schotten_totten", [alice, bob])
    writes.resign(match.pk, alice)
    bob_client = client_for(bob)
    bob_client.get(match.get_absolute_url())  # the finished page drawn: a row for Bob
    long_ago = timezone.now() - timedelta(hours=1)
    Watcher.objects.filter(match=match, user=bob).update(seen_at=long_ago)
    settings.PUSH_KEEPALIVE_SECONDS = 0.05
    settings.WATCH_WRITE_EVERY = 0.01
    cache.clear()
    cookie = _cookie(bob_client)

    async def scenario():
        stream = Stream(LiveStreams(None), reverse("games:live", args=[match.pk]), cookie)
        task = asyncio.ensure_future(stream.run())
        # The beat is said before the keep-alive is written: once it is read, it was said.
        await stream.until("event: keepalive")
        stream.leave()
        await task

    run_async(scenario())
    assert Watcher.objects.get(match=match, user=bob).seen_at > long_ago
