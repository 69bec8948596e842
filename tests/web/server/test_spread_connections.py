"""A busy worker of several sends its clients to the others (cardclub/spread.py): with more
requests in flight than ``SPREAD_CONNECTIONS_AFTER``, it answers with ``Connection: close``.
Against real gunicorn processes with the club's worker class and truly simultaneous moves held
in flight by PostgreSQL's row lock, and the layer itself with requests held in flight by hand."""

from __future__ import annotations

import asyncio
import os
import time
from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest
from django.db import connection, transaction
from django.urls import reverse

from cardclub.spread import SpreadConnections
from cardclub.workerload import Board
from games.models import Match
from tests.bench.bench_capacity import Server
from tests.servers import bound_socket, database_env, run_in_new_loop, session_cookie
from tests.web.server.forked import other_worker
from tests.web.table_helpers import engine_state, start_match

MOVES = 6
CSRF = "spreadtestcsrftokenspreadtestcsr"  # 32 characters: a CSRF secret as the cookie holds it


def layer_with(after: int, workers: int, board=None) -> tuple[SpreadConnections, asyncio.Event]:
    """The layer in front of an app whose requests stay in flight until the event is set."""
    release = asyncio.Event()

    async def app(scope, receive, send):
        await release.wait()
        await send({"type": "http.response.start", "status": 200, "headers": [(b"x-a", b"1")]})
        await send({"type": "http.response.body", "body": b"ok"})

    return SpreadConnections(app, after, workers, board), release


def answers_of(after: int, workers: int, requests: int, board=None):
    """The layer, and the response headers of ``requests`` requests all in flight at once."""
    layer, release = layer_with(after, workers, board)
    headers = []

    async def one():
        async def send(message):
            if message["type"] == "http.response.start":
                headers.append(message["headers"])

        async def receive():
            return {"type": "http.request", "body": b""}

        await layer({"type": "http"}, receive, send)

    async def run():
        tasks = [asyncio.create_task(one()) for _ in range(requests)]
        while layer.in_flight < requests and not release.is_set():
            if layer.after == 0:
                release.set()  # the layer counts nothing: let them through
            await asyncio.sleep(0)
        release.set()
        await asyncio.gather(*tasks)

    run_in_new_loop(run())
    return layer, headers


def test_requests_beyond_the_threshold_are_answered_with_connection_close():
    layer, headers = answers_of(after=2, workers=2, requests=5)
    closing = [h for h in headers if (b"connection", b"close") in h]
    assert len(closing) == 3 and layer.sent_away == 3
    assert all((b"x-a", b"1") in h for h in headers)  # the answer itself is unchanged
    assert layer.in_flight == 0


def test_a_lone_worker_or_a_threshold_of_zero_never_closes_a_connection():
    for after, workers in [(2, 1), (0, 4)]:
        _layer, headers = answers_of(after, workers, requests=5)
        assert len(headers) == 5
        assert not [h for h in headers if (b"connection", b"close") in h]


def closing_with_another_worker_holding(in_flight: int) -> int:
    """How many of 5 requests held at once (threshold 2) are answered with Connection: close
    while another worker process, forked with the board, has ``in_flight`` of its own."""
    board = Board()
    with other_worker(board, in_flight):
        assert board.claim() is not None
        layer, headers = answers_of(after=2, workers=2, requests=5, board=board)
        # The worker's own count went up to 5 on the board, and is back to 0.
        assert board.least_busy_other() == in_flight
    assert layer.in_flight == 0
    return len([h for h in headers if (b"connection", b"close") in h])


def test_a_busy_worker_sends_clients_away_only_while_another_worker_is_less_busy():
    # Five in flight here: with none in the other, every one beyond two goes; with two
    # there, those that bring this one to two more than the other (4, 5); with as many
    # there as here, none (a new connection would find no freer worker).
    assert closing_with_another_worker_holding(0) == 3
    assert closing_with_another_worker_holding(2) == 2
    assert closing_with_another_worker_holding(5) == 0


@pytest.fixture
def postgres_only():
    if connection.vendor != "postgresql":
        pytest.skip("waits on PostgreSQL's row lock, which pg_stat_activity shows")


def waiting_on_a_lock() -> int:
    with connection.cursor() as cursor:
        # Inside a transaction, the statistics views keep what they showed first.
        cursor.execute("SELECT pg_stat_clear_snapshot()")
        cursor.execute(
            "SELECT count(*) FROM pg_stat_activity"
            " WHERE wait_event_type = 'Lock' AND datname = current_database()"
        )
        return cursor.fetchone()[0]


def moves_answered_while_held(tmp_path, match, mover, workers: int) -> list[httpx.Response]:
    """``MOVES`` moves of ``mover``, each on its own connection, sent at once to gunicorn with
    ``workers`` of the club's workers while the test holds the match's row: answered once
    every one of them waits for it, and it is let go."""
    listening = bound_socket()
    port = listening.getsockname()[1]
    env = {
        **os.environ,
        **database_env(),
        "DEBUG": "1",
        "AXES_ENABLED": "0",
        "PUSH_BACKEND": "off",
        "SPREAD_CONNECTIONS_AFTER": "1",
        # A thread for each move, however they fall between the workers: every one of them
        # reaches the row lock, rather than some waiting for a thread.
        "REQUEST_THREADS": str(MOVES),
    }
    env.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
    server = Server(port, workers, env, tmp_path / f"server-{workers}.log", listening=listening)
    with listening:
        server.__enter__()
    url = f"http://127.0.0.1:{port}"
    state = engine_state(match)
    seat = match.engine.to_move(state)[0]
    code = match.engine.legal_moves(state, seat)[0].code
    cookies = {**session_cookie(mover), "csrftoken": CSRF}
    clients = [httpx.Client(cookies=cookies, timeout=60) for _ in range(MOVES)]
    try:
        with ThreadPoolExecutor(MOVES) as pool:
            with transaction.atomic():
                Match.objects.select_for_update().get(pk=match.pk)
                waiting = [
                    pool.submit(
                        client.post,
                        f"{url}{reverse('games:move', args=[match.pk])}",
                        data={"code": code, "v": str(match.version)},
                        headers={"X-CSRFToken": CSRF, "HX-Request": "true", "Referer": url + "/"},
                    )
                    for client in clients
                ]
                deadline = time.monotonic() + 60  # a bound, not a measure
                while waiting_on_a_lock() < MOVES:
                    assert time.monotonic() < deadline, "the moves never all waited"
                    assert not [f for f in waiting if f.done()], [f.result() for f in waiting]
                    time.sleep(0.05)
            answers = [future.result(timeout=60) for future in waiting]
    finally:
        for client in clients:
            client.close()
        server.__exit__(None, None, None)
    assert "Traceback" not in server.log_path.read_text()
    return answers


@pytest.mark.django_db(transaction=True)
def test_two_busy_workers_send_some_of_the_simultaneous_moves_away_and_answer_them_all(
    postgres_only, tmp_path, alice, bob
):
    match = start_match("schotten_totten", [alice, bob])
    mover = match.seats.get(index=match.engine.to_move(engine_state(match))[0]).user
    answers = moves_answered_while_held(tmp_path, match, mover, workers=2)
    assert [a.status_code for a in answers] == [200] * MOVES
    # Six moves in flight at once on two workers: one of them held at least three, so at
    # least two of its answers asked for a new connection.
    closing = [a for a in answers if a.headers.get("connection") == "close"]
    assert len(closing) >= 2, [a.headers.get("connection") for a in answers]


@pytest.mark.django_db(transaction=True)
def test_a_lone_worker_keeps_every_connection_however_busy(postgres_only, tmp_path, alice, bob):
    match = start_match("schotten_totten", [alice, bob])
    mover = match.seats.get(index=match.engine.to_move(engine_state(match))[0]).user
    answers = moves_answered_while_held(tmp_path, match, mover, workers=1)
    assert [a.status_code for a in answers] == [200] * MOVES
    assert not [a for a in answers if a.headers.get("connection") == "close"]
