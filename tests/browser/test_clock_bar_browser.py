"""The visible clock in two browsers: the member to move sees both clocks large; in the last
30 seconds their own turns to the warning colour, is said once to screen readers and plays the
turn sound (they turned sounds on); the opponent sees the warning colour, and hears nothing."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from playwright.sync_api import Browser, expect

from cardclub.accounts.models import Preferences
from games.models import Clock, Match
from tests.web.table_helpers import engine_state, start_match

from .helpers import session_for
from .test_clocks_browser import with_clock

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

WARN = re.compile(r"\bwarn\b")
COUNT_PLAYS = """
window.__plays = 0;
HTMLMediaElement.prototype.play = function () { window.__plays += 1; return Promise.resolve(); };
"""


def test_the_member_to_move_is_warned_once_in_their_last_thirty_seconds(
    live_server, browser: Browser, alice, bob
):
    with_clock("schotten_totten", clock=Clock.LIVE, clock_minutes=1, clock_increment=0)
    match = start_match("schotten_totten", [alice, bob])
    late = match.engine.to_move(engine_state(match))[0]
    mover, other = ((alice, bob), (bob, alice))[late]
    Preferences.objects.filter(user=mover).update(turn_sound=True)
    left = [60_000, 60_000]
    left[late] = 33_000
    Match.objects.filter(pk=match.pk).update(
        clock_left=left, clock_deadline=match.clock_turn_started + timedelta(seconds=33)
    )
    pages = {}
    for member in (mover, other):
        page = session_for(browser, live_server.url, member.username)
        page.add_init_script(script=COUNT_PLAYS)
        page.set_viewport_size({"width": 390, "height": 800})
        page.goto(live_server.url + match.get_absolute_url())
        pages[member.username] = page
    mine = pages[mover.username].locator(".clock-bar .big-clock.mine")
    expect(pages[mover.username].locator(".clock-bar .big-clock")).to_have_count(2)
    expect(mine).to_have_class(WARN, timeout=10000)
    region = pages[mover.username].locator("#clock-announce")
    expect(region).to_have_attribute("aria-live", "assertive")
    expect(region).to_contain_text("Se te acaba el tiempo")
    # The opponent sees the mover's clock in the warning colour, and is told nothing.
    theirs = pages[other.username].locator(".clock-bar .big-clock.running")
    expect(theirs).to_have_class(WARN, timeout=10000)
    expect(pages[other.username].locator("#clock-announce")).to_have_count(0)
    # Once: the clock ticks on, the announcement and the sound are not repeated.
    text = mine.locator(".clock-text")
    shown = text.text_content()
    expect(text).not_to_have_text(shown, timeout=3000)
    assert pages[mover.username].evaluate("window.__plays") == 1
    assert pages[other.username].evaluate("window.__plays") == 0
    page = pages[mover.username]
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
