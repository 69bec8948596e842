"""A bot move committed by the real worker process reaches a page served by uvicorn through
the push stream (issues 18 and 19 together): the worker's save announces the version like any
move, and the page, whose stream stays open throughout, never polls."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from playwright.sync_api import expect

from games import writes
from games.models import Match
from tests.servers import spawn
from tests.web.background.test_background import DATABASE, _worker_environment
from tests.web.table_helpers import engine_state, start_match

from .helpers import page_with_session

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def worker(settings):
    settings.TASKS = DATABASE
    settings.BOT_MOVE_PAUSE = 0.4
    manage = Path(__file__).resolve().parents[2] / "manage.py"
    env = {**_worker_environment(), "PUSH_BACKEND": "local", "PUSH_SOCKET_DIR": ""}
    process = spawn(
        [sys.executable, str(manage), "db_worker", "--interval", "0.1", "--no-reload"]
        + ["--no-startup-delay", "--verbosity", "0"],
        env=env,
    )
    yield process
    process.terminate()
    process.wait(10)


def test_a_bot_move_made_by_the_worker_is_pushed_to_the_open_page(browser, server, worker, alice):
    match = start_match("schotten_totten", [alice], fillers=["easy"])
    page = page_with_session(browser, server, alice)
    page.goto(server.url + match.get_absolute_url())
    live = page.locator('[data-live="table"][data-stream="open"]')
    expect(live).to_have_count(1, timeout=10000)
    # Count every change of the stream's state from here on.
    page.evaluate(
        "() => { window.streamChanges = 0; new MutationObserver(() => window.streamChanges++)"
        ".observe(document.querySelector('[data-live=table]'),"
        " {attributes: true, attributeFilter: ['data-stream']}); }"
    )

    # alice's move commits here; the bot's reply is queued on commit and played by the worker.
    match.refresh_from_db()
    state = engine_state(match)
    code = match.engine.legal_moves(state, 0)[0].code
    writes.play_move(match.pk, alice, code, match.version)
    member_version = Match.objects.get(pk=match.pk).version

    expect(page.locator(f'#table[data-version="{member_version + 1}"]')).to_have_count(
        1, timeout=10000
    )
    match.refresh_from_db()
    assert match.version == member_version + 1, "the bot's move is its own version"
    assert match.seats.get(index=1).user is None
    expect(page.locator("#table .just-happened")).to_be_visible()
    # The stream never closed, so the fallback poll never ran: the version came by push.
    expect(live).to_have_count(1)
    assert page.evaluate("() => window.streamChanges") == 0
