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

import httpx
import pytest
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


@pytest.mark.django_db(transaction=True)
def test_requests_beyond_the_limit_get_a_quick_503_and_the_waiting_ones_no_500(
    sqlite_only, alice, bob
):
    match = start_match("schotten_totten", [alice, bob])
    mover = match.seats.get(index=match.engine.to_move(engine_state(match))[0]).user
    server = start_app_server({"MAX_REQUESTS_IN_FLIGHT": str(LIMIT), "LOG_LEVEL": "WARNING"})
    pool = ThreadPoolExecutor(LIMIT + 12)
    lock = sqlite3.connect(connection.settings_dict["NAME"], isolation_level=None)
    try:
        posts = [_move_request(server, mover, match) for _ in range(LIMIT)]
        lobby = httpx.Client(cookies=session_cookie(bob), timeout=10)
        lock.execute("BEGIN IMMEDIATE")  # every write of the server now waits
        held = time.monotonic()
        waiting = [pool.submit(post) for post in posts]
        # The server is full once reads are refused three times in a row (a refusal while a
        # read of ours was still finishing would be no proof that the moves hold every slot).
        refused = 0
        while refused < 3:
            response = lobby.get(f"{server.url}{reverse('games:lobby')}")
            refused = refused + 1 if response.status_code == 503 else 0
            assert response.status_code in (200, 503)
            # A bound on the wait, against a limit that never refuses; not a measure.
            assert time.monotonic() - held < 60, "the limit never refused a request"
        assert response.headers["retry-after"] == "2" and "ocupado" in response.text
        # Answered while the moves still hold every slot (the lock is not released before they
        # are all back): refused at once, not queued behind the moves.
        burst = list(pool.map(lambda _: lobby.get(f"{server.url}/play/").status_code, range(10)))
        # A stream opens all the same: it is not a request in flight.
        with lobby.stream("GET", f"{server.url}{reverse('games:live', args=[match.pk])}") as live:
            assert live.status_code == 200
            first = next(line for line in live.iter_lines() if line.startswith("data:"))
        lock.execute("ROLLBACK")
        answers = [future.result(timeout=30) for future in waiting]
    finally:
        lock.close()
        pool.shutdown(wait=False)
        server.stop()
    log = server.log.read_text()
    assert burst == [503] * 10, burst
    assert first == f"data: {match.version}"
    # The moves waited for the lock and went through (one applied, the others refused as
    # stale with a message): none failed.
    assert answers == [200] * LIMIT, answers
    assert "Traceback" not in log, log[-3000:]


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
