"""Partners in two browsers: at an Escoba table in pairs, each member's page marks the pairs
and names their partner, at phone width."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, expect

from tests.web.table_helpers import start_match

from .helpers import session_for

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_each_member_sees_who_plays_with_whom(live_server, browser: Browser, alice, bob):
    match = start_match("escoba", [alice, bob], slug="por-parejas", fillers=["easy", "hard"])
    for name, partner in (("alice", "Bot fácil 3"), ("bob", "Bot difícil 4")):
        page = session_for(browser, live_server.url, name)
        page.set_viewport_size({"width": 390, "height": 800})
        page.goto(live_server.url + match.get_absolute_url())
        me = page.locator("#seats .seat.me")
        expect(me).to_contain_text(f"con {partner}")
        expect(page.locator("#seats .seat.pair-1")).to_have_count(2)
        expect(page.locator("#seats .seat.pair-2")).to_have_count(2)
        assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
