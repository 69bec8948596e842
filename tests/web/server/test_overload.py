"""Overload fails safely, against a real uvicorn process and real concurrent requests.

SQLite's write lock, held by the test, makes the server's writes wait (a rush in miniature):
the requests beyond ``MAX_REQUESTS_IN_FLIGHT`` are answered at once with 503 and Retry-After,
a stream still opens (streams are not requests in flight), "last seen" waits for the lock off
the request path, and when the lock is released every waiting request answers without a 500.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from types import SimpleNamespace

import httpx
import pytest
from django.conf import settings
from django.db import DatabaseError, connection
from django.urls import reverse
from django.utils import timezone

from cardclub.accounts.models import Preferences
from cardclub.notifications import seen
from tests.servers import session_cookie, start_app_server
from tests.web.table_helpers import engine_state, start_match

LIMIT = 3


@pytest.fixture
def sqlite_only():
    if connection.vendor != "sqlite":
        pytest.skip("holds SQLite's write lock")


def _move_request(server, user, match):
    state = engine_state(match)
    seat = match.engine.to_move(state)[0]
    code = match.engine.legal_moves(state, seat)[0].code
    client = httpx.Client(cookies=session_cookie(user), timeout=30)
    client.get(f"{server.url}{match.get_absolute_url()}")
    token = client.cookies["csrftoken"]

    def post():
        return client.post(
            f"{server.url}{reverse('games:move', args=[match.pk])}",
            data={"code": code, "v": str(match.version)},
            headers={"X-CSRFToken": token, "HX-Request": "true", "Referer": server.url + "/"},
        ).status_code

    return post


def _threads(pid: int) -> int:
    return len(list(Path(f"/proc/{pid}/task").iterdir()))


@contextmanager
def _moves_holding_the_server(match, mover, prober, let_in: int, moves: int, queued: bool):
    """A server that lets ``let_in`` requests in, and ``moves`` moves of ``mover`` waiting for
    SQLite's write lock, held here: yields once ``prober``'s reads are refused three times in a
    row (a refusal while a read of ours was still finishing would be no proof that the moves
    hold every place). On leaving, the lock is released and the moves' answers collected.

    ``queued``: a read let in before every move is in flight may wait for a thread behind the
    moves, which wait for the lock: such a read is given up after a few seconds (it keeps its
    place, so ``moves`` should leave room for it). Otherwise a read let in has a thread and is
    answered once drawn, which may take seconds on a busy machine: a bound, not a measure."""
    server = start_app_server({"MAX_REQUESTS_IN_FLIGHT": str(let_in), "LOG_LEVEL": "WARNING"})
    pool = ThreadPoolExecutor(let_in + 12)
    lock = sqlite3.connect(connection.settings_dict["NAME"], isolation_level=None)
    full = SimpleNamespace(server=server, pool=pool, at_start=_threads(server.process.pid))
    lobby_url = f"{server.url}{reverse('games:lobby')}"
    try:
        posts = [_move_request(server, mover, match) for _ in range(moves)]
        full.lobby = httpx.Client(cookies=session_cookie(prober), timeout=3 if queued else 60)
        # A member's first visit writes (their preferences): done before the lock, so that a
        # probe let in before every move is in flight reads rather than waits for the lock.
        assert full.lobby.get(lobby_url, timeout=60).status_code == 200
        lock.execute("BEGIN IMMEDIATE")  # every write of the server now waits
        held = time.monotonic()
        waiting = [pool.submit(post) for post in posts]
        refused = 0
        while refused < 3:
            # A bound on the wait, against a limit that never refuses; not a measure.
            assert time.monotonic() - held < 90, "the limit never refused a request"
            # A move answered while the lock is held was refused (a probe came first and took
            # its place): sent again, until every move is in.
            for index, future in enumerate(waiting):
                if future.done():
                    assert future.result() == 503
                    waiting[index] = pool.submit(posts[index])
                    refused = 0
            try:
                full.refusal = full.lobby.get(lobby_url)
            except httpx.ReadTimeout:
                assert queued, "a read let in was not answered"
                refused = 0
                continue
            refused = refused + 1 if full.refusal.status_code == 503 else 0
            assert full.refusal.status_code in (200, 503)
        yield full
        lock.execute("ROLLBACK")
        full.answers = [future.result(timeout=60) for future in waiting]
    finally:
        lock.close()
        pool.shutdown(wait=False)
        server.stop()


@pytest.mark.django_db(transaction=True)
def test_requests_beyond_the_limit_get_a_quick_503_and_the_waiting_ones_no_500(
    sqlite_only, alice, bob
):
    match = start_match("schotten_totten", [alice, bob])
    mover = match.seats.get(index=match.engine.to_move(engine_state(match))[0]).user
    with _moves_holding_the_server(match, mover, bob, LIMIT, LIMIT, queued=False) as full:
        url = full.server.url
        # Answered while the moves still hold every place (the lock is not released before
        # they are all back): refused at once, not queued behind the moves.
        burst = list(full.pool.map(lambda _: full.lobby.get(f"{url}/play/").status_code, range(10)))
        # A stream opens all the same: it is not a request in flight.
        with full.lobby.stream("GET", f"{url}{reverse('games:live', args=[match.pk])}") as live:
            assert live.status_code == 200
            first = next(line for line in live.iter_lines() if line.startswith("data:"))
    log = full.server.log.read_text()
    assert full.refusal.headers["retry-after"] == "2" and "ocupado" in full.refusal.text
    assert burst == [503] * 10, burst
    assert first == f"data: {match.version}"
    # The moves waited for the lock and went through (one applied, the others refused as
    # stale with a message): none failed.
    assert full.answers == [200] * LIMIT, full.answers
    assert "Traceback" not in log, log[-3000:]


@pytest.mark.django_db(transaction=True)
def test_requests_let_in_beyond_the_threads_wait_for_one_and_are_all_served(
    sqlite_only, alice, bob
):
    """A burst larger than the pool of threads: the requests beyond the threads are let in,
    wait for a thread holding none, and are answered once one is free."""
    let_in, moves = settings.REQUEST_THREADS + 8, settings.REQUEST_THREADS + 4
    match = start_match("schotten_totten", [alice, bob])
    mover = match.seats.get(index=match.engine.to_move(engine_state(match))[0]).user
    with _moves_holding_the_server(match, mover, bob, let_in, moves, queued=True) as full:
        while_held = _threads(full.server.process.pid)
    # Every move was in flight at once, yet the process gained at most the pool's threads (and
    # the few of its own it starts with the first request: the database's, "last seen"), not
    # one per request.
    assert while_held - full.at_start <= settings.REQUEST_THREADS + 3 < moves, (
        full.at_start,
        while_held,
    )
    assert full.answers == [200] * moves, full.answers
    assert "Traceback" not in full.server.log.read_text()


@pytest.mark.django_db
def test_a_last_seen_write_that_fails_leaves_the_page_alone_and_is_written_later(
    alice, client_for, monkeypatch
):
    def locked(*args, **kwargs):
        raise DatabaseError("database is locked")

    with monkeypatch.context() as patched:
        patched.setattr(type(Preferences.objects.filter(user=alice)), "update", locked)
        response = client_for(alice).get(reverse("games:lobby"))
    assert response.status_code == 200
    assert Preferences.objects.get(user=alice).last_seen is None
    assert seen.flush() == 1  # the note was kept and is written on the next round
    assert Preferences.objects.get(user=alice).last_seen is not None


@pytest.mark.django_db(transaction=True)
def test_the_last_seen_thread_writes_the_notes_of_this_process(alice, settings):
    settings.LAST_SEEN_FLUSH_EVERY = 0.05
    written = threading.Event()
    real_flush = seen.flush

    def flush():
        if real_flush():
            written.set()

    seen.flush = flush
    try:
        seen.note(alice.pk, timezone.now(), "en")
        assert written.wait(30)
    finally:
        seen.flush = real_flush
        seen.stop()  # the thread must not outlive this test (tests/conftest.py checks)
    prefs = Preferences.objects.get(user=alice)
    assert prefs.last_seen is not None and prefs.site_language == "en"


@pytest.mark.django_db(transaction=True)
def test_a_client_that_sends_its_headers_too_slowly_is_disconnected_and_a_prompt_one_served():
    import socket

    server = start_app_server({"HTTP_HEADER_TIMEOUT": "1"})
    try:
        slow = socket.create_connection(("127.0.0.1", server.port), timeout=10)
        started = time.monotonic()
        closed_after = None
        for byte in b"GET /accounts/login/ HTTP/1.1\r\nHost: 127.0.0.1\r\n":
            try:
                slow.sendall(bytes([byte]))
                slow.settimeout(0.2)
                if slow.recv(1) == b"":
                    closed_after = time.monotonic() - started
                    break
            except TimeoutError:
                continue
            except OSError:
                closed_after = time.monotonic() - started
                break
        slow.close()
        prompt = httpx.get(f"{server.url}/accounts/login/", timeout=5)
    finally:
        server.stop()
    # Closed while the headers were still trickling in (the loop would otherwise have sent
    # them all), and not before the timeout: a loaded machine only makes it later.
    assert closed_after is not None and closed_after > 0.9, closed_after
    assert prompt.status_code == 200


@pytest.mark.django_db(transaction=True)
def test_headers_larger_than_the_limit_are_refused_and_the_connection_closed():
    import socket

    server = start_app_server()
    try:
        with socket.create_connection(("127.0.0.1", server.port), timeout=10) as sock:
            sock.sendall(b"GET /accounts/login/ HTTP/1.1\r\nHost: 127.0.0.1\r\n")
            answer, reset = b"", False
            try:
                for _ in range(100):  # 100 KB of headers, never finished
                    sock.sendall(b"X-Filler: " + b"a" * 1000 + b"\r\n")
                while chunk := sock.recv(4096):
                    answer += chunk
            except (ConnectionResetError, BrokenPipeError):
                # Closed with our bytes still unread, the kernel resets the connection (and
                # may drop the 400 already sent), or, when the server closed it before we had
                # sent them all, refuses the rest: closed all the same.
                reset = True
        prompt = httpx.get(f"{server.url}/accounts/login/", timeout=5)
    finally:
        server.stop()
    assert reset or (answer.startswith(b"HTTP/1.1 400") and b"too large" in answer), answer
    assert prompt.status_code == 200


def test_the_last_seen_thread_stops_when_asked_and_leaves_no_note_behind(settings):
    """What the tests' clean-up relies on (tests/conftest.py): no thread of a test, and no note
    of its database, is left for the next test. No database here: the thread must not touch
    one after it was stopped."""
    settings.LAST_SEEN_FLUSH_EVERY = 60
    seen.note(1, timezone.now(), "en")
    thread, _stopped = seen._thread
    assert thread.is_alive()
    seen.stop()
    assert not thread.is_alive()
    assert seen._thread is None and seen.flush() == 0
