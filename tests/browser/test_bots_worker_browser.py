"""A member plays Escoba against a bot in Chromium while a real worker process plays the bot:
the page shows the member's move at once, and each bot move arrives by itself (issue 18)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from games.models import Match, MoveRecord
from tests.servers import spawn
from tests.web.background.test_background import DATABASE, _worker_environment

from .helpers import log_in, wait_for_my_turn
from .test_escoba_browser import play_escoba_turn

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def worker(settings):
    settings.TASKS = DATABASE
    settings.BOT_MOVE_PAUSE = 0.4
    manage = Path(__file__).resolve().parents[2] / "manage.py"
    process = spawn(
        [sys.executable, str(manage), "db_worker", "--interval", "0.1", "--no-reload"]
        + ["--no-startup-delay", "--verbosity", "0"],
        env=_worker_environment(),
    )
    yield process
    process.terminate()
    process.wait(10)


def test_a_bot_played_by_the_worker_replies_on_the_members_page(
    live_server, page: Page, alice, worker
):
    log_in(page, live_server.url, alice.username)
    page.goto(live_server.url + "/play/new/escoba/?players=2")
    page.locator("#id_seat_1").select_option("hard")
    page.locator("#table-form button[type=submit]").last.click()
    expect(page.locator("#table .escoba")).to_be_visible()
    match = Match.objects.get()
    for _ in range(3):
        wait_for_my_turn(page)
        play_escoba_turn(page)
        # The answer to the move is the member's own move: the bot has not moved yet.
        expect(page.locator("#seats .seat.to-move .badge").first).to_be_visible()
    wait_for_my_turn(page)
    seats = list(MoveRecord.objects.filter(match=match).values_list("seat", flat=True))
    assert seats.count(0) == 3 and seats.count(1) >= 3
    match.refresh_from_db()
    assert match.version == 1 + match.moves_played
