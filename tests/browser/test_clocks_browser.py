"""Match clocks in the browser: a live clock counts down on the page (static/js/clock.js, no
inline script), and a time-out applied by the worker's sweep with nobody watching is what every
member finds afterwards, with the ratings updated."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.utils import timezone
from playwright.sync_api import Browser, expect

from cardclub.ratings.models import Rating
from games import tasks
from games.models import Clock, Match
from tests.web.table_helpers import engine_state, start_match, variant

from .helpers import session_for

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def with_clock(game: str, **settings):
    rules = variant(game)
    for name, value in settings.items():
        setattr(rules, name, value)
    rules.save()


def test_a_live_clock_counts_down_and_the_sweep_ends_the_match_on_the_open_page(
    live_server, browser: Browser, alice, bob
):
    with_clock("escoba", clock=Clock.LIVE, clock_minutes=5, clock_increment=0)
    match = start_match("escoba", [alice, bob])
    late = match.engine.to_move(engine_state(match))[0]
    started = match.version
    # The member to move has eight seconds left from now: long enough for the page to open
    # showing time still left on a busy machine, short enough to watch it run out.
    left = [5 * 60_000, 5 * 60_000]
    left[late] = 8000
    now = timezone.now()
    Match.objects.filter(pk=match.pk).update(
        clock_left=left, clock_turn_started=now, clock_deadline=now + timedelta(seconds=8)
    )
    page = session_for(browser, live_server.url, "alice")
    page.goto(live_server.url + match.get_absolute_url())
    running = page.locator("#seats .clock.running .clock-text")
    expect(running).to_have_count(1)
    first = running.text_content()
    # clock.js counts down: the text changes within a couple of seconds, and reaches 0:00.
    assert first != "0:00"
    expect(running).not_to_have_text(first, timeout=3000)
    # The late seat's clock reaches 0:00: still running, or, when the page's own fetch of the
    # table has already found the time-out, stopped there on the finished table. That is eight
    # seconds after `now` however soon the page opened, and it stays: waited for that long.
    expect(
        page.locator("#seats .clock .clock-text").filter(has_text=re.compile(r"^0:00$"))
    ).to_have_count(1, timeout=15000)
    # The worker's sweep ends it, unless the page's own fetch of the table found it first (an
    # action re-checks the clock too); either way once, and the page shows the result.
    tasks.sweep_clocks.call()
    expect(page.locator("#table .result")).to_be_visible(timeout=15000)
    expect(page.locator("#table .result")).to_contain_text(re.compile("por tiempo"))
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED
    assert match.version == started + 1  # the time-out, once


def test_a_correspondence_time_out_with_nobody_watching_ends_the_match_and_rates_it(
    live_server, browser: Browser, alice, bob
):
    with_clock("schotten_totten", clock=Clock.CORRESPONDENCE, clock_days=2)
    match = start_match("schotten_totten", [alice, bob])
    late = match.engine.to_move(engine_state(match))[0]
    # Nobody has the table open; two days and a minute go by.
    Match.objects.filter(pk=match.pk).update(
        clock_turn_started=match.clock_turn_started - timedelta(days=2, minutes=1),
        clock_deadline=match.clock_deadline - timedelta(days=2, minutes=1),
    )
    assert tasks.sweep_clocks.call() == 1
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED
    assert Rating.objects.filter(game="schotten_totten", games=1).count() == 2
    winner, loser = ("bob", "alice") if late == 0 else ("alice", "bob")
    for name in (winner, loser):
        page = session_for(browser, live_server.url, name)
        page.goto(live_server.url + match.get_absolute_url())
        result = page.locator("#table .result")
        expect(result).to_be_visible()
        expect(result.locator("li").first).to_contain_text(winner)
        expect(result).to_contain_text(re.compile(f"{loser}.*por tiempo"))
        page.context.close()
