"""Rematch in two browsers: Alice offers "Play again" on the finished table; Bob's open page
shows the offer without a reload, he accepts, and Alice's page links to the new match."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, expect

from games import writes
from games.models import Match
from tests.web.table_helpers import start_match

from .helpers import session_for

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_an_offer_reaches_the_other_page_and_its_yes_starts_the_new_match_for_both(
    live_server, browser: Browser, alice, bob
):
    old = start_match("schotten_totten", [alice, bob])
    writes.resign(old.pk, alice)
    url = live_server.url + old.get_absolute_url()
    alice_page, bob_page = (session_for(browser, live_server.url, u) for u in ("alice", "bob"))
    alice_page.goto(url)
    bob_page.goto(url)
    alice_page.set_viewport_size({"width": 390, "height": 800})
    # By keyboard: the button takes the focus and Enter sends the plain form.
    alice_page.locator("#rematch button", has_text="Jugar otra").focus()
    alice_page.keyboard.press("Enter")
    expect(alice_page.locator("#rematch")).to_contain_text("alice")
    # Bob did nothing: the offer arrives on his page by the page's own updates.
    accept = bob_page.locator("#rematch button", has_text="Aceptar la revancha")
    expect(accept).to_be_visible(timeout=10000)
    accept.click()
    new = Match.objects.exclude(pk=old.pk).get()
    bob_page.wait_for_url(live_server.url + new.get_absolute_url())
    link = alice_page.locator(f'#rematch a[href="{new.get_absolute_url()}"]')
    expect(link).to_be_visible(timeout=10000)
    # No sideways scroll at 390 px.
    assert alice_page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    link.click()
    alice_page.wait_for_url(live_server.url + new.get_absolute_url())
    expect(alice_page.locator("form.resign-form button")).to_be_visible()
