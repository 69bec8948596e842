"""Results in words in two browsers: a league fixture ends by resignation on one member's page;
each member's notifications say who won and how, to them."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, expect

from tests.web.table_helpers import league_fixture_match

from .helpers import session_for

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_each_member_reads_who_won_their_fixture_and_how(live_server, browser: Browser, alice, bob):
    _fixture, match = league_fixture_match("schotten_totten", [alice, bob])
    alice_page, bob_page = (session_for(browser, live_server.url, u) for u in ("alice", "bob"))
    alice_page.goto(live_server.url + match.get_absolute_url())
    alice_page.once("dialog", lambda dialog: dialog.accept())
    alice_page.locator("form.resign-form button").click()
    expect(alice_page.locator("#table .result")).to_be_visible()
    # The worker (run at once in the tests) wrote the notifications after the commit.
    bob_page.goto(live_server.url + "/notifications/")
    expect(bob_page.locator(".notification-list")).to_contain_text("Ganaste: alice abandonó.")
    alice_page.goto(live_server.url + "/notifications/")
    expect(alice_page.locator(".notification-list")).to_contain_text("Ganó bob: abandonaste.")
