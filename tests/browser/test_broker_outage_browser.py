"""A broker outage as a member lives it (issue 28): ``PUSH_BACKEND=redis``, a Redis of the
test's own, SIGKILLed under an open table.

While Redis is down the server ends the page's stream and refuses new ones, so the page polls
and shows the opponent's move within 5 s. Once Redis is back the page's stream opens again
(its first event is the version made during the outage) and the next move arrives by push,
within 2 s, with no poll.
"""

from __future__ import annotations

import time

import pytest
from playwright.sync_api import expect

from games import writes
from games.models import Match
from tests.servers import RedisProcess, start_app_server
from tests.web.table_helpers import engine_state, start_match

from .helpers import page_with_session

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def redis():
    process = RedisProcess(range(9100, 9200)).start()
    yield process
    process.stop()


@pytest.fixture
def redis_server(redis, settings):
    # The moves are committed by this process: it publishes on the same Redis.
    settings.PUSH_BACKEND, settings.PUSH_REDIS_URL = "redis", redis.url
    settings.PUSH_CHANNEL = "outage-browser"
    app = start_app_server(
        {"PUSH_BACKEND": "redis", "PUSH_REDIS_URL": redis.url, "PUSH_CHANNEL": "outage-browser"}
    )
    yield app
    app.stop()


def _move(match_id):
    """The first legal move of the member to move, committed here: its version."""
    match = Match.objects.get(pk=match_id)
    state = engine_state(match)
    seat = match.engine.to_move(state)[0]
    user = match.seats.get(index=seat).user
    writes.play_move(match.pk, user, match.engine.legal_moves(state, seat)[0].code, match.version)
    return match.version + 1


def test_with_the_broker_killed_the_page_polls_and_once_back_the_push_resumes(
    browser, redis, redis_server, alice, bob, console_problems
):
    match = start_match("schotten_totten", [alice, bob])
    page = page_with_session(browser, redis_server, alice)
    page.goto(redis_server.url + match.get_absolute_url())
    live = page.locator('[data-live="table"]')
    expect(live).to_have_attribute("data-stream", "open", timeout=10000)
    assert live.get_attribute("data-keepalive") == "20"

    redis.kill()
    # The server ends the stream at once (the listener lost the broker): the page polls.
    expect(live).to_have_attribute("data-stream", "closed", timeout=5000)
    outage = _move(match.pk)
    moved = time.monotonic()
    expect(page.locator(f'#table[data-version="{outage}"]')).to_have_count(1, timeout=5000)
    by_poll = time.monotonic() - moved

    redis.start()
    # The page's stream comes back on its own (how soon is the page's back-off), its first
    # event the version made during the outage, which the page already shows.
    expect(live).to_have_attribute("data-stream", "open", timeout=40000)
    expect(page.locator(f'#table[data-version="{outage}"]')).to_have_count(1)
    page.evaluate(
        "() => { window.streamChanges = 0; new MutationObserver(() => window.streamChanges++)"
        ".observe(document.querySelector('[data-live=table]'),"
        " {attributes: true, attributeFilter: ['data-stream']}); }"
    )
    after = _move(match.pk)
    moved = time.monotonic()
    expect(page.locator(f'#table[data-version="{after}"]')).to_have_count(1, timeout=2000)
    by_push = time.monotonic() - moved
    assert page.evaluate("() => window.streamChanges") == 0, "the stream stayed open"
    print(f"broker outage: shown by poll after {by_poll:.2f} s, by push after {by_push:.2f} s")
    assert by_poll < 5 and by_push < 2, (by_poll, by_push)
    # Chromium logs each refused stream (503) as a failed resource, and the SSE extension the
    # EventSource's error event ("[object Event]"): expected here, nothing else.
    expected = ("503", "EventSource", "[object Event]")
    unexpected = [p for p in console_problems if not any(e in p for e in expected)]
    console_problems.clear()
    assert unexpected == []
