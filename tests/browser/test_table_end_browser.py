"""The end of a match reaches every page: when one member resigns, the other's open page shows
the result on its next poll, without the Resign button or the old messages; and a waiting page
shows a member sitting down."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, expect

from games import writes
from tests.web.table_helpers import start_match, variant

from .helpers import session_for

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_resignation_takes_the_live_controls_off_the_other_members_page(
    live_server, browser: Browser, alice, bob
):
    match = start_match("escoba", [alice, bob])
    url = live_server.url + match.get_absolute_url()
    alice_page, bob_page = (session_for(browser, live_server.url, u) for u in ("alice", "bob"))
    bob_page.goto(url)
    # An old message on Bob's page: he pressed "Take a seat" at a table already started.
    bob_page.evaluate(
        "document.getElementById('messages').innerHTML = '<p class=\"message error\">old news</p>'"
    )
    expect(bob_page.locator("form.resign-form button")).to_be_visible()
    alice_page.goto(url)
    alice_page.once("dialog", lambda dialog: dialog.accept())
    alice_page.locator("form.resign-form button").click()
    expect(alice_page.locator("#table .result")).to_be_visible()
    # Bob did nothing: his page polls and must end up with the finished table only.
    expect(bob_page.locator("#table .result")).to_be_visible(timeout=10000)
    expect(bob_page.locator("form.resign-form")).to_have_count(0)
    expect(bob_page.locator("#messages")).not_to_contain_text("old news")


def test_the_creators_waiting_page_shows_who_sat_down(live_server, browser: Browser, alice, bob):
    match = writes.create_match(alice, variant("scout"), 3, ["open", "open"])
    page = session_for(browser, live_server.url, "alice")
    page.goto(live_server.url + match.get_absolute_url())
    expect(page.locator("#seats")).not_to_contain_text("bob")
    writes.join_match(match.pk, bob)
    expect(page.locator("#seats")).to_contain_text("bob", timeout=10000)
