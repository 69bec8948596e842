"""Who is online in two browsers: Bob opens the site and Alice's lobby lists him with the match
he plays and a link to challenge him; once Bob hides his presence on his profile, he is gone
from her lobby and his profile says nothing of when he was last seen."""

from __future__ import annotations

import pytest
from django.core.cache import cache
from playwright.sync_api import Browser, expect

from tests.web.table_helpers import start_match

from .helpers import session_for

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_the_lobby_shows_who_is_online_until_they_hide_it(
    live_server, browser: Browser, alice, bob, charlie
):
    match = start_match("schotten_totten", [bob, charlie])
    bob_page = session_for(browser, live_server.url, "bob")  # logging in opens a page
    alice_page = session_for(browser, live_server.url, "alice")
    alice_page.set_viewport_size({"width": 390, "height": 800})
    cache.clear()  # the list is kept for a few seconds: draw it now
    alice_page.goto(live_server.url + "/play/")
    row = alice_page.locator(".online-list li", has_text="bob")
    expect(row).to_contain_text(f"Schotten Totten #{match.pk}")
    assert alice_page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    row.get_by_role("link", name="Retar").click()
    expect(alice_page.locator("h1")).to_have_text("Retar a bob")
    alice_page.goto(live_server.url + "/members/bob/")
    expect(alice_page.locator(".presence")).to_contain_text("en línea")
    # Bob hides his presence (the plain profile form, by keyboard).
    bob_page.goto(live_server.url + "/accounts/profile/")
    bob_page.locator("#id_hide_presence").check()
    bob_page.locator("main button[type=submit]").focus()
    bob_page.keyboard.press("Enter")
    bob_page.wait_for_url(live_server.url + "/members/bob/")
    cache.clear()
    alice_page.goto(live_server.url + "/play/")
    expect(alice_page.locator(".online-list")).not_to_contain_text("bob")
    alice_page.goto(live_server.url + "/members/bob/")
    expect(alice_page.locator(".presence")).to_have_count(0)
