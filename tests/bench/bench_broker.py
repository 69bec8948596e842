"""A move's answer time with the broker up, killed and hung (issue 28: hung costs ≤ +200 ms).

Run: ``.venv/bin/python -m tests.bench.bench_broker`` (SQLite; one uvicorn process with
``PUSH_BACKEND=redis`` on a Redis of the benchmark's own, on a free port of 9100-9199, never
the shared one). ``BENCH_BROKER_MOVES`` moves (default 30) are POSTed as htmx posts them, one
after another, by the member to move: with Redis up, with Redis SIGSTOPped (hung: its
connections open and silent), with Redis SIGKILLed, and with Redis started again. Printed: median and p95 per phase and
the hung and killed medians' difference from the one with Redis up. Exits 1 when hung or
killed costs more than 200 ms at the median.
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from tests.bench.bench_live import CSRF, cookies_for, machine_load, new_match, next_move, setup
from tests.bench.bench_live import server_env as live_env
from tests.bench.stats import percentile

MOVES = int(os.environ.get("BENCH_BROKER_MOVES", 30))
TARGET_MS = 200


def post_moves(server, users, count) -> list[float]:
    """``count`` moves, each answered; a match that ends is followed by a new one."""
    import httpx
    from django.urls import reverse

    from games.models import Match

    times = []
    clients = {}
    match_id = new_match(users).pk
    for _ in range(count):
        if Match.objects.get(pk=match_id).status != Match.Status.PLAYING:
            match_id = new_match(users).pk
        user, code, version = next_move(match_id)
        client = clients.get(user.pk)
        if client is None:
            client = clients[user.pk] = httpx.Client(cookies=cookies_for(user), timeout=30)
        started = time.perf_counter()
        response = client.post(
            f"{server.url}{reverse('games:move', args=[match_id])}",
            data={"code": code, "v": str(version)},
            headers={"X-CSRFToken": CSRF, "HX-Request": "true", "Referer": server.url + "/"},
        )
        times.append((time.perf_counter() - started) * 1000)
        assert response.status_code == 200, response.status_code
    return times


def main() -> int:
    from django.contrib.auth import get_user_model

    from tests.servers import RedisProcess, start_app_server

    users = [get_user_model().objects.create_user(f"broker{i}") for i in range(2)]
    redis = RedisProcess(range(9100, 9200)).start()
    env = live_env(
        {"PUSH_BACKEND": "redis", "PUSH_REDIS_URL": redis.url, "PUSH_CHANNEL": "bench-broker"}
    )
    server = start_app_server(env)
    phases = {}
    try:
        post_moves(server, users, 5)  # warm-up
        phases["up"] = post_moves(server, users, MOVES)
        redis.pause()
        phases["hung"] = post_moves(server, users, MOVES)
        redis.resume()
        redis.kill()
        phases["killed"] = post_moves(server, users, MOVES)
        redis.start()
        phases["back"] = post_moves(server, users, MOVES)
    finally:
        server.stop()
        redis.stop()
    base = statistics.median(phases["up"])
    ok = True
    print(f"broker: {MOVES} moves per phase, one uvicorn process, SQLite [{machine_load()}]")
    for name, times in phases.items():
        median = statistics.median(times)
        extra = "" if name == "up" else f", {median - base:+.1f} ms against up"
        print(
            f"  Redis {name:<7} median {median:7.1f} ms, p95 {percentile(times, 0.95):7.1f} ms{extra}"
        )
        if name in ("hung", "killed") and median - base > TARGET_MS:
            ok = False
    if not ok:
        print(f"broker: MISS: a broker down costs more than {TARGET_MS} ms at the median")
    return 0 if ok else 1


if __name__ == "__main__":
    setup(None, Path(tempfile.mkdtemp(prefix="bench-broker-")))
    sys.exit(main())
